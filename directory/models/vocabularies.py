"""Vocabularies: stored as plain strings (validated by forms and the interchange schema) so
that adding a value never needs a migration. Each is (value, label) in display order."""

from __future__ import annotations


def N_(label: str) -> str:  # noqa: N802 - gettext's name for a marker that translates nothing
    """Mark a label for the translators' catalogue (``pybabel extract`` finds it); it is
    translated where it is shown (directory.i18n.translate), since the models know no locale."""
    return label


VISIBILITIES = (
    ("public", N_("Public")),
    ("members", N_("Signed-in members")),
    ("private", N_("Private")),
)

ROLES = (
    ("faculty", N_("Faculty")),
    ("research_staff", N_("Research staff")),
    ("postdoc", N_("Postdoctoral researchers")),
    ("phd_student", N_("PhD students")),
    ("masters_student", N_("Master's students")),
    ("undergraduate", N_("Undergraduate students")),
    ("staff", N_("Staff")),
    ("emeritus", N_("Emeriti")),
    ("alumni", N_("Alumni")),
)
#: The same roles named for one person (the admin's tables and forms, the CSV onboarding).
ROLE_NAMES = (
    ("faculty", N_("Faculty member")),
    ("research_staff", N_("Research staff member")),
    ("postdoc", N_("Postdoctoral researcher")),
    ("phd_student", N_("PhD student")),
    ("masters_student", N_("Master's student")),
    ("undergraduate", N_("Undergraduate student")),
    ("staff", N_("Staff member")),
    ("emeritus", N_("Emeritus")),
    ("alumni", N_("Alum")),
)
STUDENT_ROLES = ("phd_student", "masters_student", "undergraduate")

FACULTY_RANKS = (
    ("professor", N_("Professor")),
    ("associate_professor", N_("Associate Professor")),
    ("assistant_professor", N_("Assistant Professor")),
    ("teaching_professor", N_("Teaching Professor")),
    ("lecturer", N_("Lecturer")),
    ("adjunct", N_("Adjunct")),
    ("research_professor", N_("Research Professor")),
)

PERSON_LINK_KINDS = (
    ("homepage", N_("Homepage")),
    ("scholar", N_("Google Scholar")),
    ("dblp", N_("DBLP")),
    ("orcid", N_("ORCID")),
    ("github", N_("GitHub")),
    ("linkedin", N_("LinkedIn")),
    ("cv", N_("CV")),
    ("other", N_("Link")),
)

EXPERIENCE_KINDS = (
    ("job", N_("Experience")),
    ("internship", N_("Internship")),
    ("visiting", N_("Visiting")),
)

SERVICE_KINDS = (
    ("organizer", N_("Organizer")),
    ("program_committee", N_("Technical Program Committee")),
    ("artifact_evaluation", N_("Artifact Evaluation Committee")),
    ("reviewer", N_("Reviewer")),
    ("editorial", N_("Editorial board")),
    ("department", N_("Department service")),
    ("other", N_("Other service")),
)

TEACHING_ROLES = (
    ("instructor", N_("Instructor")),
    ("co_instructor", N_("Co-instructor")),
    ("teaching_assistant", N_("Teaching Assistant")),
    ("guest_lecturer", N_("Guest lecturer")),
)

PUBLICATION_TYPES = (
    ("conference", N_("Conference paper")),
    ("journal", N_("Journal article")),
    ("workshop", N_("Workshop paper")),
    ("preprint", N_("Preprint")),
    ("survey", N_("Survey")),
    ("thesis", N_("Thesis")),
    ("book", N_("Book")),
    ("chapter", N_("Book chapter")),
    ("report", N_("Technical report")),
    ("talk", N_("Talk")),
    ("other", N_("Other")),
)

PUBLICATION_STATUSES = (
    ("published", N_("Published")),
    ("accepted", N_("Accepted")),
    ("under_review", N_("Under review")),
    ("preprint", N_("Preprint")),
    ("in_preparation", N_("In preparation")),
)

PUBLICATION_LINK_KINDS = (
    ("paper", N_("Paper")),
    ("preprint", N_("Preprint")),
    ("publisher", N_("Publisher page")),
    ("code", N_("Code")),
    ("artifact", N_("Artifact")),
    ("slides", N_("Slides")),
    ("talk", N_("Talk")),
    ("video", N_("Video")),
    ("poster", N_("Poster")),
    ("blog", N_("Blog")),
    ("dataset", N_("Dataset")),
    ("website", N_("Website")),
    ("other", N_("Link")),
)

PUBLICATION_RELATIONS = (
    ("extended_version_of", N_("Extended version of")),
    ("published_version_of", N_("Published version of")),
    ("preprint_of", N_("Preprint of")),
    ("follow_up_of", N_("Follow-up of")),
)

ADVISING_ROLES = (("advisor", N_("Advisor")), ("co_advisor", N_("Co-advisor")))
DEGREES = (
    ("phd", N_("PhD")),
    ("masters", N_("Master's")),
    ("undergraduate", N_("Undergraduate")),
    ("postdoc", N_("Postdoc")),
    ("visiting", N_("Visiting")),
)
ADVISING_STATUSES = (
    ("current", N_("Current")),
    ("graduated", N_("Graduated")),
    ("left", N_("Left")),
)
#: The kind of position an alumnus went to (the placement's structure; its text is kept too).
PLACEMENT_KINDS = (
    ("faculty", N_("Faculty")),
    ("postdoc", N_("Postdoc")),
    ("industry_research", N_("Industry research")),
    ("industry", N_("Industry")),
    ("government", N_("Government")),
    ("other", N_("Other")),
)

#: Month names, January first (a month's number is its place here plus 1).
MONTHS = (
    N_("January"),
    N_("February"),
    N_("March"),
    N_("April"),
    N_("May"),
    N_("June"),
    N_("July"),
    N_("August"),
    N_("September"),
    N_("October"),
    N_("November"),
    N_("December"),
)

RECRUITING_LEVELS = (
    ("phd", N_("PhD students")),
    ("masters", N_("Master's students")),
    ("postdoc", N_("Postdocs")),
    ("undergraduate", N_("Undergraduate researchers")),
    ("intern", N_("Research interns")),
    ("visiting", N_("Visiting researchers")),
)

PROJECT_STATUSES = (("current", N_("Current")), ("past", N_("Past")))


def values(vocabulary: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The stored values of a vocabulary."""
    return tuple(value for value, _ in vocabulary)


def label(vocabulary: tuple[tuple[str, str], ...], value: str | None) -> str:
    """The display label of ``value`` in ``vocabulary`` (the value itself if unknown)."""
    return dict(vocabulary).get(value or "", value or "")
