"""Vocabularies: stored as plain strings (validated by forms and the interchange schema) so
that adding a value never needs a migration. Each is (value, label) in display order."""

from __future__ import annotations

VISIBILITIES = (("public", "Public"), ("members", "Signed-in members"), ("private", "Private"))

ROLES = (
    ("faculty", "Faculty"),
    ("research_staff", "Research staff"),
    ("postdoc", "Postdoctoral researchers"),
    ("phd_student", "PhD students"),
    ("masters_student", "Master's students"),
    ("undergraduate", "Undergraduate students"),
    ("staff", "Staff"),
    ("emeritus", "Emeriti"),
    ("alumni", "Alumni"),
)
#: The same roles named for one person (the admin's tables and forms, the CSV onboarding).
ROLE_NAMES = (
    ("faculty", "Faculty member"),
    ("research_staff", "Research staff member"),
    ("postdoc", "Postdoctoral researcher"),
    ("phd_student", "PhD student"),
    ("masters_student", "Master's student"),
    ("undergraduate", "Undergraduate student"),
    ("staff", "Staff member"),
    ("emeritus", "Emeritus"),
    ("alumni", "Alum"),
)
STUDENT_ROLES = ("phd_student", "masters_student", "undergraduate")

FACULTY_RANKS = (
    ("professor", "Professor"),
    ("associate_professor", "Associate Professor"),
    ("assistant_professor", "Assistant Professor"),
    ("teaching_professor", "Teaching Professor"),
    ("lecturer", "Lecturer"),
    ("adjunct", "Adjunct"),
    ("research_professor", "Research Professor"),
)

PERSON_LINK_KINDS = (
    ("homepage", "Homepage"),
    ("scholar", "Google Scholar"),
    ("dblp", "DBLP"),
    ("orcid", "ORCID"),
    ("github", "GitHub"),
    ("linkedin", "LinkedIn"),
    ("cv", "CV"),
    ("other", "Link"),
)

EXPERIENCE_KINDS = (("job", "Experience"), ("internship", "Internship"), ("visiting", "Visiting"))

SERVICE_KINDS = (
    ("organizer", "Organizer"),
    ("program_committee", "Technical Program Committee"),
    ("artifact_evaluation", "Artifact Evaluation Committee"),
    ("reviewer", "Reviewer"),
    ("editorial", "Editorial board"),
    ("department", "Department service"),
    ("other", "Other service"),
)

TEACHING_ROLES = (
    ("instructor", "Instructor"),
    ("co_instructor", "Co-instructor"),
    ("teaching_assistant", "Teaching Assistant"),
    ("guest_lecturer", "Guest lecturer"),
)

PUBLICATION_TYPES = (
    ("conference", "Conference paper"),
    ("journal", "Journal article"),
    ("workshop", "Workshop paper"),
    ("preprint", "Preprint"),
    ("survey", "Survey"),
    ("thesis", "Thesis"),
    ("book", "Book"),
    ("chapter", "Book chapter"),
    ("report", "Technical report"),
    ("talk", "Talk"),
    ("other", "Other"),
)

PUBLICATION_STATUSES = (
    ("published", "Published"),
    ("accepted", "Accepted"),
    ("under_review", "Under review"),
    ("preprint", "Preprint"),
    ("in_preparation", "In preparation"),
)

PUBLICATION_LINK_KINDS = (
    ("paper", "Paper"),
    ("preprint", "Preprint"),
    ("publisher", "Publisher page"),
    ("code", "Code"),
    ("artifact", "Artifact"),
    ("slides", "Slides"),
    ("talk", "Talk"),
    ("video", "Video"),
    ("poster", "Poster"),
    ("blog", "Blog"),
    ("dataset", "Dataset"),
    ("website", "Website"),
    ("other", "Link"),
)

PUBLICATION_RELATIONS = (
    ("extended_version_of", "Extended version of"),
    ("published_version_of", "Published version of"),
    ("preprint_of", "Preprint of"),
    ("follow_up_of", "Follow-up of"),
)

ADVISING_ROLES = (("advisor", "Advisor"), ("co_advisor", "Co-advisor"))
DEGREES = (
    ("phd", "PhD"),
    ("masters", "Master's"),
    ("undergraduate", "Undergraduate"),
    ("postdoc", "Postdoc"),
    ("visiting", "Visiting"),
)
ADVISING_STATUSES = (("current", "Current"), ("graduated", "Graduated"), ("left", "Left"))
#: The kind of position an alumnus went to (the placement's structure; its text is kept too).
PLACEMENT_KINDS = (
    ("faculty", "Faculty"),
    ("postdoc", "Postdoc"),
    ("industry_research", "Industry research"),
    ("industry", "Industry"),
    ("government", "Government"),
    ("other", "Other"),
)

#: Month names, January first (a month's number is its place here plus 1).
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip

RECRUITING_LEVELS = (
    ("phd", "PhD students"),
    ("masters", "Master's students"),
    ("postdoc", "Postdocs"),
    ("undergraduate", "Undergraduate researchers"),
    ("intern", "Research interns"),
    ("visiting", "Visiting researchers"),
)

PROJECT_STATUSES = (("current", "Current"), ("past", "Past"))


def values(vocabulary: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The stored values of a vocabulary."""
    return tuple(value for value, _ in vocabulary)


def label(vocabulary: tuple[tuple[str, str], ...], value: str | None) -> str:
    """The display label of ``value`` in ``vocabulary`` (the value itself if unknown)."""
    return dict(vocabulary).get(value or "", value or "")


#: The sections of a CV made from a profile, in their default order (the owner may choose
#: some and order them: ``Person.cv_sections``).
CV_SECTIONS = (
    ("interests", "Research interests"),
    ("education", "Education"),
    ("experience", "Experience"),
    ("publications", "Publications"),
    ("awards", "Awards and honours"),
    ("funding", "Funding"),
    ("teaching", "Teaching"),
    ("service", "Service"),
    ("students", "Students advised"),
)
