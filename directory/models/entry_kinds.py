"""What each kind of profile entry is, declared once: its model, the fields it exports and
their order, its labels, its vocabularies, its CV section and its template partial.

Everything else that lists entry kinds is derived from :data:`ENTRY_KINDS`: the profile's
loaders (``services/profiles.py``), the interchange document and its JSON Schema
(``services/interchange.py``), the API's fields and OpenAPI schemas (``web/api/``), the
editing views' registry and forms (``web/entry_kinds.py``), the CV's sections
(:data:`CV_SECTIONS`) and the history's field labels. Field lengths are the model's
``String(n)``: forms and the schema read them from the column. Adding a kind is described in
docs/architecture.md ("Adding an entry kind").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from directory.models.base import Base
from directory.models.entries import (
    TERM_SEASONS,
    AdvisingRelation,
    Award,
    CustomSection,
    Education,
    Experience,
    Funding,
    NewsItem,
    RecruitingNotice,
    ResearchProject,
    Service,
    Teaching,
)
from directory.models.vocabularies import (
    ADVISING_ROLES,
    ADVISING_STATUSES,
    DEGREES,
    EXPERIENCE_KINDS,
    N_,
    PLACEMENT_KINDS,
    PROJECT_STATUSES,
    RECRUITING_LEVELS,
    SERVICE_KINDS,
    TEACHING_ROLES,
)

Vocabulary = tuple[tuple[str, str], ...]

#: The fields of an entry that spans time (models.entries.DateRangeMixin), in their order.
DATE_RANGE = ("start_year", "start_month", "end_year", "end_month", "is_current")


@dataclass(frozen=True)
class CvSection:
    """A section of the CV made from a profile: its name (stored in ``Person.cv_sections``)
    and its heading."""

    name: str
    label: str


@dataclass(frozen=True, eq=False)
class EntryKind:
    """One kind of profile entry (compared and hashed by identity: one object per kind)."""

    #: The name in URLs, the interchange document, the API and the history ("awards").
    name: str
    model: type[Base]
    #: The fields the API and the interchange document carry (besides ``id`` and
    #: ``visibility``), in the document's order; each is a column of ``model``.
    fields: tuple[str, ...]
    #: The section heading on the editing page ("Awards"), translated where shown.
    title: str
    #: One entry ("award"), translated where shown.
    singular: str
    #: The name of the entry's definition in the interchange schema (its ``$defs``).
    document_name: str
    #: Columns only the interchange document (the backup) carries, after ``fields``: state
    #: the owner does not publish but a restore must bring back (an advising relation's
    #: confirmations).
    backup_fields: tuple[str, ...] = ()
    #: The values a field may take, by field (forms, schema and history read them).
    vocabularies: Mapping[str, Vocabulary] = field(default_factory=dict)
    #: How a field is named on forms and in the history when the shared table
    #: (services.snapshots.FIELD_LABELS) does not name it.
    labels: Mapping[str, str] = field(default_factory=dict)
    #: The kind's section of the CV, if it has one.
    cv_section: CvSection | None = None
    #: The name of its schema in the OpenAPI document; None: the API has no list of these
    #: entries under the kind's name (advising and recruiting have their own shapes there).
    api_name: str | None = None
    #: The anchor of its section on the profile page ("#research").
    anchor: str = ""

    @property
    def partial(self) -> str:
        """The template that shows the kind on the profile and on the CV: macros ``toc``,
        ``profile`` and (with a CV section) ``cv``."""
        return f"directory/entries/{self.name}.html"

    @property
    def section_anchor(self) -> str:
        return self.anchor or self.name

    def max_length(self, name: str) -> int | None:
        """The longest text ``name`` holds: its column's ``String(n)`` (None: unlimited)."""
        return getattr(self.model.__table__.columns[name].type, "length", None)


class _Registry(Mapping[str, EntryKind]):
    """The declared kinds by name, in the editing page's order."""

    def __init__(self) -> None:
        self._kinds: dict[str, EntryKind] = {}

    def __getitem__(self, name: str) -> EntryKind:
        return self._kinds[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds)

    def __len__(self) -> int:
        return len(self._kinds)

    def declare(self, kind: EntryKind) -> EntryKind:
        if kind.name in self._kinds:
            raise ValueError(f"entry kind {kind.name!r} is declared twice")
        self._kinds[kind.name] = kind
        return kind

    def withdraw(self, name: str) -> EntryKind:
        """Take a kind out again (a test's throwaway kind)."""
        return self._kinds.pop(name)


#: Every kind of ordered profile entry, by name.
ENTRY_KINDS = _Registry()
declare = ENTRY_KINDS.declare

declare(
    EntryKind(
        name="news",
        model=NewsItem,
        fields=("year", "month", "day", "body", "url", "archived"),
        title=N_("News"),
        singular=N_("news item"),
        document_name="news",
        api_name="NewsItem",
    )
)
declare(
    EntryKind(
        name="recruiting",
        model=RecruitingNotice,
        fields=(
            "level",
            "term_season",
            "term_year",
            "term",
            "title",
            "description",
            "how_to_apply",
            "deadline",
            "expires_on",
            "funding_note",
            "funded",
            "last_confirmed",
        ),  # fmt: skip
        title=N_("Recruiting notices"),
        singular=N_("recruiting notice"),
        document_name="recruiting",
        vocabularies={"level": RECRUITING_LEVELS, "term_season": TERM_SEASONS},
    )
)
declare(
    EntryKind(
        name="projects",
        model=ResearchProject,
        fields=("title", "summary", "url", "status"),
        title=N_("Research projects"),
        singular=N_("project"),
        document_name="project",
        vocabularies={"status": PROJECT_STATUSES},
        api_name="Project",
        anchor="research",
    )
)
declare(
    EntryKind(
        name="advising",
        model=AdvisingRelation,
        fields=(
            "advisor_name",
            "student_name",
            "role",
            "degree",
            "start_year",
            "end_year",
            "status",
            "thesis",
            "placement",
            "placement_organisation",
            "placement_kind",
            "placement_year",
            "note",
        ),  # fmt: skip
        title=N_("Students and advisors"),
        singular=N_("advising relation"),
        document_name="advising",
        backup_fields=("advisor_confirmed", "student_confirmed"),
        vocabularies={
            "role": ADVISING_ROLES,
            "degree": DEGREES,
            "status": ADVISING_STATUSES,
            "placement_kind": PLACEMENT_KINDS,
        },
        cv_section=CvSection("students", N_("Students advised")),
        anchor="students",
    )
)
declare(
    EntryKind(
        name="education",
        model=Education,
        fields=(
            "degree",
            "field",
            "institution",
            "unit",
            "place",
            *DATE_RANGE,
            "advisors",
            "thesis",
            "thesis_url",
            "note",
        ),  # fmt: skip
        title=N_("Education"),
        singular=N_("degree"),
        document_name="education",
        cv_section=CvSection("education", N_("Education")),
        api_name="Education",
    )
)
declare(
    EntryKind(
        name="experience",
        model=Experience,
        fields=(
            "kind",
            "title",
            "organisation",
            "place",
            *DATE_RANGE,
            "hosts",
            "hosts_label",
            "description",
            "url",
        ),  # fmt: skip
        title=N_("Experience"),
        singular=N_("position"),
        document_name="experience",
        vocabularies={"kind": EXPERIENCE_KINDS},
        cv_section=CvSection("experience", N_("Experience")),
        api_name="Experience",
    )
)
declare(
    EntryKind(
        name="teaching",
        model=Teaching,
        fields=("course_code", "title", "term", "year", "institution", "role", "url"),
        title=N_("Teaching"),
        singular=N_("course"),
        document_name="teaching",
        vocabularies={"role": TEACHING_ROLES},
        cv_section=CvSection("teaching", N_("Teaching")),
        api_name="Teaching",
    )
)
declare(
    EntryKind(
        name="service",
        model=Service,
        fields=("kind", "venue", "year", "role", "note"),
        title=N_("Service"),
        singular=N_("service entry"),
        document_name="service",
        vocabularies={"kind": SERVICE_KINDS},
        cv_section=CvSection("service", N_("Service")),
        api_name="Service",
    )
)
declare(
    EntryKind(
        name="awards",
        model=Award,
        fields=("title", "title_translation", "year", "giver", "url", "note"),
        title=N_("Awards"),
        singular=N_("award"),
        document_name="award",
        cv_section=CvSection("awards", N_("Awards and honours")),
        api_name="Award",
    )
)
declare(
    EntryKind(
        name="funding",
        model=Funding,
        fields=("funder", "title", "grant_number", "url", "start_year", "end_year", "note"),
        title=N_("Funding"),
        singular=N_("funding source"),
        document_name="funding",
        cv_section=CvSection("funding", N_("Funding")),
        api_name="Funding",
    )
)
declare(
    EntryKind(
        name="custom_sections",
        model=CustomSection,
        fields=("title", "body"),
        title=N_("Other sections"),
        singular=N_("section"),
        document_name="custom_section",
        api_name="CustomSection",
    )
)


class _ModelsByKind(Mapping[str, type[Base]]):
    """:data:`ENTRY_KINDS`' models by kind name (always the declared kinds, however many)."""

    def __getitem__(self, name: str) -> type[Base]:
        return ENTRY_KINDS[name].model

    def __iter__(self) -> Iterator[str]:
        return iter(ENTRY_KINDS)

    def __len__(self) -> int:
        return len(ENTRY_KINDS)


#: Every kind of ordered profile entry's model, by the name used in URLs and the interchange
#: format.
ENTRY_MODELS: Mapping[str, type[Base]] = _ModelsByKind()

#: The profile page's sections in their order: entry kinds by name, and the page's own
#: sections ("about", "publications"). A kind not named here comes last.
PROFILE_LAYOUT = (
    "about", "recruiting", "news", "projects", "advising", "publications", "education",
    "experience", "teaching", "service", "awards", "funding", "custom_sections",
)  # fmt: skip

#: The CV's sections that are not an entry kind's, by name.
CV_OWN_SECTIONS = {
    "interests": N_("Research interests"),
    "publications": N_("Publications"),
}
#: The CV's default order: its own sections and the kinds' CV sections, by name. A kind's
#: section not named here comes last.
CV_LAYOUT = (
    "interests", "education", "experience", "publications", "awards", "funding", "teaching",
    "service", "students",
)  # fmt: skip


def profile_layout() -> list[str]:
    """The profile page's sections in order (:data:`PROFILE_LAYOUT`, then any other kind)."""
    return [*PROFILE_LAYOUT, *(name for name in ENTRY_KINDS if name not in PROFILE_LAYOUT)]


def cv_kinds() -> dict[str, EntryKind]:
    """The kinds with a CV section, by the section's name."""
    return {k.cv_section.name: k for k in ENTRY_KINDS.values() if k.cv_section is not None}


class _CvSections(Sequence[tuple[str, str]]):
    """(name, label) of every CV section in the default order: :data:`CV_LAYOUT`, then the
    sections of kinds it does not name."""

    def _all(self) -> list[tuple[str, str]]:
        labels = dict(CV_OWN_SECTIONS)
        labels.update((name, kind.cv_section.label) for name, kind in cv_kinds().items())
        names = [*CV_LAYOUT, *(name for name in labels if name not in CV_LAYOUT)]
        return [(name, labels[name]) for name in names]

    def __getitem__(self, index):  # type: ignore[override]
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())


#: The sections of a CV made from a profile, in their default order (the owner may choose
#: some and order them: ``Person.cv_sections``).
CV_SECTIONS: Sequence[tuple[str, str]] = _CvSections()

__all__ = [
    "CV_LAYOUT",
    "CV_OWN_SECTIONS",
    "CV_SECTIONS",
    "DATE_RANGE",
    "ENTRY_KINDS",
    "ENTRY_MODELS",
    "PROFILE_LAYOUT",
    "CvSection",
    "EntryKind",
    "cv_kinds",
    "declare",
    "profile_layout",
]
