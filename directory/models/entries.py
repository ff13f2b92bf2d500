"""The ordered entries of a profile: news, education, experience, projects, teaching,
service, awards, funding, free sections, advising and recruiting (each declared in
:mod:`directory.models.entry_kinds`)."""

from __future__ import annotations

import re
from datetime import date
from typing import NamedTuple

from sqlalchemy import (
    Boolean,
    Column,
    Date,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship, validates

from directory.models.base import Base, EntryMixin
from directory.models.people import BINARY_TEXT, Person, ResearchArea
from directory.models.publications import Publication
from directory.models.vocabularies import N_

notice_areas = Table(
    "directory_notice_areas",
    Base.metadata,
    Column(
        "notice_id",
        ForeignKey("directory_recruiting_notices.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("area_id", ForeignKey("directory_areas.id", ondelete="CASCADE"), primary_key=True),
)


class DateRangeMixin:
    start_year: Mapped[int | None] = mapped_column(Integer)
    start_month: Mapped[int | None] = mapped_column(Integer)
    end_year: Mapped[int | None] = mapped_column(Integer)
    end_month: Mapped[int | None] = mapped_column(Integer)
    #: True while the entry is ongoing ("2023 – present").
    is_current: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)


class NewsItem(EntryMixin, Base):
    __tablename__ = "directory_news"

    year: Mapped[int] = mapped_column(Integer, nullable=False)
    month: Mapped[int | None] = mapped_column(Integer)
    day: Mapped[int | None] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text, nullable=False)
    url: Mapped[str | None] = mapped_column(String(1000))
    #: Shown under "older news" on the profile (the owner's choice of what stays prominent).
    archived: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)


class Education(DateRangeMixin, EntryMixin, Base):
    __tablename__ = "directory_education"

    degree: Mapped[str] = mapped_column(String(120), nullable=False)
    field: Mapped[str | None] = mapped_column(String(200))
    institution: Mapped[str] = mapped_column(String(200), nullable=False)
    unit: Mapped[str | None] = mapped_column(String(200))
    place: Mapped[str | None] = mapped_column(String(200))
    advisors: Mapped[str | None] = mapped_column(String(400))
    thesis: Mapped[str | None] = mapped_column(String(400))
    thesis_url: Mapped[str | None] = mapped_column(String(1000))
    note: Mapped[str | None] = mapped_column(Text)


class Experience(DateRangeMixin, EntryMixin, Base):
    __tablename__ = "directory_experience"

    kind: Mapped[str] = mapped_column(String(16), default="job", nullable=False)
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    organisation: Mapped[str] = mapped_column(String(200), nullable=False)
    place: Mapped[str | None] = mapped_column(String(200))
    #: Names of hosts, mentors or advisors at the organisation, comma separated.
    hosts: Mapped[str | None] = mapped_column(String(400))
    #: How the hosts are introduced: "Hosts", "Advisor", "Advisors", "Mentor"...
    hosts_label: Mapped[str | None] = mapped_column(String(40))
    description: Mapped[str | None] = mapped_column(Text)
    url: Mapped[str | None] = mapped_column(String(1000))


project_publications = Table(
    "directory_project_publications",
    Base.metadata,
    Column("project_id", ForeignKey("directory_projects.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "publication_id",
        ForeignKey("directory_publications.id", ondelete="CASCADE"),
        primary_key=True,
    ),
)


class ResearchProject(EntryMixin, Base):
    """A research project; projects nest (a system and its components)."""

    __tablename__ = "directory_projects"

    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("directory_projects.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(String(300), nullable=False)
    summary: Mapped[str | None] = mapped_column(Text)
    url: Mapped[str | None] = mapped_column(String(1000))
    status: Mapped[str] = mapped_column(String(16), default="current", nullable=False)

    parent: Mapped[ResearchProject | None] = relationship(
        remote_side="ResearchProject.id", back_populates="children"
    )
    children: Mapped[list[ResearchProject]] = relationship(
        back_populates="parent", order_by="ResearchProject.position"
    )
    publications: Mapped[list[Publication]] = relationship(
        secondary=project_publications, order_by="Publication.year"
    )


class Teaching(EntryMixin, Base):
    __tablename__ = "directory_teaching"

    course_code: Mapped[str | None] = mapped_column(String(60))
    title: Mapped[str] = mapped_column(String(300), nullable=False)
    term: Mapped[str | None] = mapped_column(String(60))
    year: Mapped[int | None] = mapped_column(Integer)
    institution: Mapped[str | None] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(32), default="instructor", nullable=False)
    url: Mapped[str | None] = mapped_column(String(1000))


class Service(EntryMixin, Base):
    __tablename__ = "directory_service"

    kind: Mapped[str] = mapped_column(String(32), nullable=False)
    venue: Mapped[str] = mapped_column(String(200), nullable=False)
    year: Mapped[int | None] = mapped_column(Integer)
    #: The role when it is not plain membership: "Co-Chair", "Area chair"...
    role: Mapped[str | None] = mapped_column(String(120))
    #: A qualifier printed after the venue: "Fall", "Winter", "Artifact track".
    note: Mapped[str | None] = mapped_column(String(200))


class Award(EntryMixin, Base):
    __tablename__ = "directory_awards"

    #: The award's name as given, in any script ("华为火花奖").
    title: Mapped[str] = mapped_column(String(400), nullable=False)
    #: A translation or Latin-script rendering shown beside the title.
    title_translation: Mapped[str | None] = mapped_column(String(400))
    year: Mapped[int | None] = mapped_column(Integer)
    giver: Mapped[str | None] = mapped_column(String(200))
    url: Mapped[str | None] = mapped_column(String(1000))
    note: Mapped[str | None] = mapped_column(String(400))
    publication_id: Mapped[int | None] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="SET NULL")
    )

    publication: Mapped[Publication | None] = relationship()


class Funding(EntryMixin, Base):
    """A funding acknowledgement (agency, company or programme)."""

    __tablename__ = "directory_funding"

    funder: Mapped[str] = mapped_column(String(200), nullable=False)
    title: Mapped[str | None] = mapped_column(String(400))
    grant_number: Mapped[str | None] = mapped_column(String(120))
    url: Mapped[str | None] = mapped_column(String(1000))
    start_year: Mapped[int | None] = mapped_column(Integer)
    end_year: Mapped[int | None] = mapped_column(Integer)
    note: Mapped[str | None] = mapped_column(Text)


class CustomSection(EntryMixin, Base):
    """A free section for what the structured kinds don't cover (Markdown)."""

    __tablename__ = "directory_custom_sections"

    title: Mapped[str] = mapped_column(String(200), nullable=False)
    body: Mapped[str] = mapped_column(Text, nullable=False)


class AdvisingRelation(EntryMixin, Base):
    """An advisor–student relation. Either side may be a department person or a plain name
    ("Prof. Tom Anderson, University of Washington"). ``owner`` is who entered it; it is shown
    on the other side's profile once that side (or an admin) confirms."""

    __tablename__ = "directory_advising"

    advisor_id: Mapped[int | None] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), index=True
    )
    advisor_name: Mapped[str | None] = mapped_column(String(200))
    student_id: Mapped[int | None] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), index=True
    )
    student_name: Mapped[str | None] = mapped_column(String(200))
    #: The typed student name case-folded (one alumnus per fold and degree) and in the
    #: alumni pages' order: formats.names.typed_name_keys, filled on every insert and update
    #: by write_gates.fill_name_keys, so that the alumni outputs merge, count and page in SQL.
    student_fold: Mapped[str | None] = mapped_column(BINARY_TEXT)
    student_key: Mapped[str | None] = mapped_column(BINARY_TEXT)
    role: Mapped[str] = mapped_column(String(16), default="advisor", nullable=False)
    degree: Mapped[str] = mapped_column(String(16), default="phd", nullable=False)
    start_year: Mapped[int | None] = mapped_column(Integer)
    end_year: Mapped[int | None] = mapped_column(Integer)
    #: Indexed: the alumni outputs read the graduated relations only.
    status: Mapped[str] = mapped_column(String(16), default="current", nullable=False, index=True)
    thesis: Mapped[str | None] = mapped_column(String(400))
    #: Where the student went, as they wrote it ("Assistant Professor, CMU (2024)"); kept
    #: beside its structure below, which is read from it where it can be.
    placement: Mapped[str | None] = mapped_column(String(300))
    placement_organisation: Mapped[str | None] = mapped_column(String(200))
    #: One of PLACEMENT_KINDS.
    placement_kind: Mapped[str | None] = mapped_column(String(24))
    placement_year: Mapped[int | None] = mapped_column(Integer)
    #: The placement text could not be read into an organisation and a kind: the editor asks
    #: for them (nothing of the text is dropped).
    placement_unparsed: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    note: Mapped[str | None] = mapped_column(String(300))
    advisor_confirmed: Mapped[bool] = mapped_column(Boolean, default=True, nullable=False)
    student_confirmed: Mapped[bool] = mapped_column(Boolean, default=True, nullable=False)

    advisor: Mapped[Person | None] = relationship(foreign_keys=[advisor_id])
    student: Mapped[Person | None] = relationship(foreign_keys=[student_id])

    @property
    def advisor_display(self) -> str:
        return self.advisor.full_name if self.advisor else (self.advisor_name or "")

    @property
    def student_display(self) -> str:
        return self.student.full_name if self.student else (self.student_name or "")

    @property
    def confirmed(self) -> bool:
        return self.advisor_confirmed and self.student_confirmed


#: The seasons an intake may name, in the order of a year (the value stored, its label).
TERM_SEASONS = (
    ("spring", N_("Spring")), ("summer", N_("Summer")), ("fall", N_("Fall")),
    ("winter", N_("Winter")),
)  # fmt: skip
#: How a notice open to any intake is labelled.
ROLLING_LABEL = N_("Rolling / any time")
#: Text that means "any time" when an intake is typed.
_ROLLING_WORDS = {"", "rolling", "rolling intake", "any", "any time", "anytime", "open", "ongoing"}
_SEASON_WORDS = {"spring": "spring", "summer": "summer", "fall": "fall", "autumn": "fall",
                 "winter": "winter"}  # fmt: skip
_SEASON = "(" + "|".join(_SEASON_WORDS) + ")"
_TERM_PATTERNS = (
    re.compile(rf"^{_SEASON}[\s,]*(?:of\s+)?(\d{{4}})$"),
    re.compile(rf"^(\d{{4}})[\s,]*{_SEASON}$"),
)
#: The years an intake may name.
TERM_YEARS = (1900, 2200)


class Term(NamedTuple):
    """An intake: (season, year) such as ("fall", 2026), or (None, None) for rolling."""

    season: str | None = None
    year: int | None = None

    @property
    def rolling(self) -> bool:
        return self.season is None

    @property
    def label(self) -> str:
        """ "Fall 2026", or :data:`ROLLING_LABEL`."""
        if self.rolling:
            return ROLLING_LABEL
        return f"{dict(TERM_SEASONS)[self.season]} {self.year}"

    @property
    def arg(self) -> str:
        """The term as a query parameter: "Fall 2026" or "rolling"."""
        return "rolling" if self.rolling else self.label


ROLLING = Term()


def parse_term(text: str | None) -> Term | None:
    """The intake ``text`` names ("Fall 2027", "2027 fall", "Autumn 2027", empty or "rolling"
    for any time), or None when it names no season and year."""
    words = " ".join((text or "").lower().replace("-", " ").split())
    if words in _ROLLING_WORDS:
        return ROLLING
    for pattern in _TERM_PATTERNS:
        found = pattern.match(words)
        if found:
            first, second = found.groups()
            season, year = (first, second) if not first.isdigit() else (second, first)
            if TERM_YEARS[0] <= int(year) <= TERM_YEARS[1]:
                return Term(_SEASON_WORDS[season], int(year))
    return None


def stored_term(season: str | None, year: int | None, text: str | None) -> Term | None:
    """The intake stored as ``term_season``, ``term_year`` and ``term`` (see
    :class:`RecruitingNotice`): a term, ROLLING, or None for unreadable text."""
    if season and year:
        return Term(season, year)
    return None if (text or "").strip() else ROLLING


class RecruitingNotice(EntryMixin, Base):
    __tablename__ = "directory_recruiting_notices"

    level: Mapped[str] = mapped_column(String(16), nullable=False, index=True)
    #: The intake's season (a value of TERM_SEASONS) and year; both empty for a rolling notice,
    #: which matches every term.
    term_season: Mapped[str | None] = mapped_column(String(16))
    term_year: Mapped[int | None] = mapped_column(Integer)
    #: An intake typed as text that names no season and year (kept as it was written, from
    #: before terms were structured, or from an imported document); the owner's editor and
    #: the admin pages flag it until the owner picks a term. Empty otherwise.
    term: Mapped[str | None] = mapped_column(String(40))
    title: Mapped[str | None] = mapped_column(String(300))
    description: Mapped[str] = mapped_column(Text, nullable=False)
    how_to_apply: Mapped[str | None] = mapped_column(Text)
    deadline: Mapped[date | None] = mapped_column(Date)
    #: The notice disappears from every page on this date.
    expires_on: Mapped[date | None] = mapped_column(Date, index=True)
    funding_note: Mapped[str | None] = mapped_column(String(400))
    funded: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    last_confirmed: Mapped[date | None] = mapped_column(Date)

    owner: Mapped[Person] = relationship()
    areas: Mapped[list[ResearchArea]] = relationship(
        secondary=notice_areas, order_by="ResearchArea.name"
    )

    def is_open(self, today: date) -> bool:
        return self.expires_on is None or self.expires_on > today

    @property
    def intake(self) -> Term | None:
        """The structured term, or None while the intake is unreadable text (:attr:`term`)."""
        return stored_term(self.term_season, self.term_year, self.term)

    @property
    def is_rolling(self) -> bool:
        return self.intake == ROLLING

    @property
    def term_unreadable(self) -> bool:
        """Whether the intake is text naming no term (flagged for its owner to fix)."""
        return self.intake is None

    @property
    def term_label(self) -> str:
        """ "Fall 2026", "Rolling / any time", or the unreadable text as written."""
        intake = self.intake
        return intake.label if intake is not None else (self.term or "").strip()

    def set_intake(self, intake: Term | None, text: str | None = None) -> None:
        """Store a structured term (``intake``), or keep ``text`` when it names none."""
        if intake is None:
            self.term = (text or "").strip()[:40] or None
        else:
            self.term_season, self.term_year, self.term = intake.season, intake.year, None

    @validates("term")
    def _read_term_text(self, _key: str, text: str | None) -> str | None:
        """Text given as the intake is read: a season and year ("Fall 2027") is stored as
        such, so ``term`` keeps only text naming no term (and then no season or year)."""
        intake = parse_term(text)
        if intake is None:
            self.term_season = self.term_year = None
            return text.strip()
        if not intake.rolling:
            self.term_season, self.term_year = intake.season, intake.year
        return None
