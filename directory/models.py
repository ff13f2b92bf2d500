"""The directory's data model.

Everything lives on :class:`Base`, whose metadata is the plugin's own: every table is prefixed
``directory_`` and no foreign key points into a host table (a host user is referenced by a
stable string key, :attr:`Person.user_key`).

Vocabulary used throughout:

* a *Person* owns many *entries* (news, education, experience, ...), each with a position in
  its list, a visibility and a version for conflict-safe editing;
* a *Publication* is one shared record per paper; *Authorship* rows keep the authors in print
  order and link department members; *ProfilePublication* holds one person's view of a paper
  (selected / hidden);
* an *AdvisingRelation* joins an advisor and a student, either of whom may be an external name.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Date,
    DateTime,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# ----------------------------------------------------------------------------- vocabularies
# Stored as plain strings (validated by forms and the interchange schema) so that adding a
# value never needs a migration. Each is (value, label) in display order.

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


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_uid() -> str:
    return uuid.uuid4().hex


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {dict[str, Any]: JSON, list[str]: JSON}

    def __repr__(self) -> str:
        ident = getattr(self, "slug", None) or getattr(self, "id", None)
        return f"<{type(self).__name__} {ident!r}>"


class TimestampMixin:
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )


class VersionedMixin(TimestampMixin):
    """An editable record: the version increases on every update, so that a save based on an
    outdated version can be detected and refused instead of silently overwriting."""

    version: Mapped[int] = mapped_column(Integer, default=1, nullable=False)

    @declared_attr.directive
    def __mapper_args__(cls) -> dict[str, Any]:
        return {"version_id_col": cls.version}


class EntryMixin(VersionedMixin):
    """An ordered, owned entry on a person's profile."""

    id: Mapped[int] = mapped_column(primary_key=True)
    position: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    visibility: Mapped[str] = mapped_column(String(16), default="public", nullable=False)

    @declared_attr
    def owner_id(cls) -> Mapped[int]:
        return mapped_column(
            ForeignKey("directory_people.id", ondelete="CASCADE"), index=True, nullable=False
        )


person_areas = Table(
    "directory_person_areas",
    Base.metadata,
    Column("person_id", ForeignKey("directory_people.id", ondelete="CASCADE"), primary_key=True),
    Column("area_id", ForeignKey("directory_areas.id", ondelete="CASCADE"), primary_key=True),
)

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


class ResearchArea(VersionedMixin, Base):
    """A research area of the department-owned taxonomy (optionally under a broader area)."""

    __tablename__ = "directory_areas"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(80), unique=True, nullable=False)
    name: Mapped[str] = mapped_column(String(120), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("directory_areas.id", ondelete="SET NULL")
    )
    position: Mapped[int] = mapped_column(Integer, default=0, nullable=False)

    parent: Mapped[ResearchArea | None] = relationship(remote_side=[id])


class Person(VersionedMixin, Base):
    """A member of the department: faculty, staff, student or alumnus."""

    __tablename__ = "directory_people"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(120), unique=True, nullable=False)
    full_name: Mapped[str] = mapped_column(String(200), nullable=False)
    sort_name: Mapped[str] = mapped_column(String(200), nullable=False, index=True)
    native_name: Mapped[str | None] = mapped_column(String(200))
    #: Other spellings used as an author ("X. Wei"), for linking printed author names.
    name_variants: Mapped[list[str]] = mapped_column(JSON, default=list)
    role: Mapped[str] = mapped_column(String(32), nullable=False, index=True)
    rank: Mapped[str | None] = mapped_column(String(32))
    title: Mapped[str | None] = mapped_column(String(300))
    unit: Mapped[str | None] = mapped_column(String(200))
    #: The institution, when the department directory spans several or the person is hosted
    #: elsewhere; empty means DIRECTORY_INSTITUTION_NAME.
    institution: Mapped[str | None] = mapped_column(String(200))
    email: Mapped[str | None] = mapped_column(String(254))
    office: Mapped[str | None] = mapped_column(String(200))
    address: Mapped[str | None] = mapped_column(Text)
    phone: Mapped[str | None] = mapped_column(String(64))
    pronouns: Mapped[str | None] = mapped_column(String(40))
    #: One-line research interests, shown on cards and searched.
    interests: Mapped[str | None] = mapped_column(Text)
    bio: Mapped[str | None] = mapped_column(Text)
    #: Short Markdown introductions shown under a profile section's heading, by section name
    #: ("students": "I am very fortunate to work with...").
    section_intros: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    last_confirmed: Mapped[date | None] = mapped_column(Date)
    #: The host's stable identity key (username, eppn or email) bound to this person.
    user_key: Mapped[str | None] = mapped_column(String(254), unique=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True, nullable=False)
    visibility: Mapped[str] = mapped_column(String(16), default="public", nullable=False)

    links: Mapped[list[PersonLink]] = relationship(
        back_populates="person", order_by="PersonLink.position", cascade="all, delete-orphan"
    )
    areas: Mapped[list[ResearchArea]] = relationship(
        secondary=person_areas, order_by="ResearchArea.name"
    )
    photo: Mapped[PersonPhoto | None] = relationship(
        back_populates="person", cascade="all, delete-orphan", uselist=False
    )

    @property
    def is_student(self) -> bool:
        return self.role in STUDENT_ROLES


class PersonLink(Base):
    __tablename__ = "directory_person_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), index=True, nullable=False
    )
    kind: Mapped[str] = mapped_column(String(32), nullable=False)
    url: Mapped[str] = mapped_column(String(1000), nullable=False)
    label: Mapped[str | None] = mapped_column(String(200))
    position: Mapped[int] = mapped_column(Integer, default=0, nullable=False)

    person: Mapped[Person] = relationship(back_populates="links")


class PersonPhoto(TimestampMixin, Base):
    """A re-encoded profile photo, kept in the database so every app process serves it."""

    __tablename__ = "directory_person_photos"

    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), primary_key=True
    )
    data: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    mime_type: Mapped[str] = mapped_column(String(40), nullable=False)
    width: Mapped[int] = mapped_column(Integer, nullable=False)
    height: Mapped[int] = mapped_column(Integer, nullable=False)
    etag: Mapped[str] = mapped_column(String(64), nullable=False)
    alt_text: Mapped[str | None] = mapped_column(String(300))

    person: Mapped[Person] = relationship(back_populates="photo")


# ----------------------------------------------------------------------------- profile entries


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


# ----------------------------------------------------------------------------- publications


class Publication(VersionedMixin, Base):
    """One paper, shared by all its authors' profiles."""

    __tablename__ = "directory_publications"

    id: Mapped[int] = mapped_column(primary_key=True)
    #: Stable identity across exports and imports.
    uid: Mapped[str] = mapped_column(String(32), unique=True, default=new_uid, nullable=False)
    title: Mapped[str] = mapped_column(String(1000), nullable=False)
    venue: Mapped[str | None] = mapped_column(String(500))
    venue_short: Mapped[str | None] = mapped_column(String(60))
    year: Mapped[int | None] = mapped_column(Integer, index=True)
    month: Mapped[int | None] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(16), default="conference", nullable=False)
    status: Mapped[str] = mapped_column(String(16), default="published", nullable=False)
    abstract: Mapped[str | None] = mapped_column(Text)
    doi: Mapped[str | None] = mapped_column(String(255), unique=True)
    arxiv_id: Mapped[str | None] = mapped_column(String(40), unique=True)
    volume: Mapped[str | None] = mapped_column(String(40))
    number: Mapped[str | None] = mapped_column(String(40))
    pages: Mapped[str | None] = mapped_column(String(40))
    #: Article number in journals that number articles instead of pages ("Article 18").
    article: Mapped[str | None] = mapped_column(String(40))
    publisher: Mapped[str | None] = mapped_column(String(200))
    location: Mapped[str | None] = mapped_column(String(200))
    note: Mapped[str | None] = mapped_column(Text)
    #: Free labels such as "CCF A", "Spotlight", "Oral".
    labels: Mapped[list[str]] = mapped_column(JSON, default=list)
    citation_key: Mapped[str | None] = mapped_column(String(200))
    bibtex: Mapped[str | None] = mapped_column(Text)
    visibility: Mapped[str] = mapped_column(String(16), default="public", nullable=False)
    created_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("directory_people.id", ondelete="SET NULL")
    )

    authorships: Mapped[list[Authorship]] = relationship(
        back_populates="publication",
        order_by="Authorship.position",
        cascade="all, delete-orphan",
    )
    links: Mapped[list[PublicationLink]] = relationship(
        order_by="PublicationLink.position", cascade="all, delete-orphan"
    )
    awards: Mapped[list[PublicationAward]] = relationship(
        order_by="PublicationAward.position", cascade="all, delete-orphan"
    )
    badges: Mapped[list[ArtifactBadge]] = relationship(
        order_by="ArtifactBadge.position", cascade="all, delete-orphan"
    )
    relations: Mapped[list[PublicationRelation]] = relationship(
        foreign_keys="PublicationRelation.publication_id", cascade="all, delete-orphan"
    )


class Authorship(Base):
    __tablename__ = "directory_authorships"
    __table_args__ = (UniqueConstraint("publication_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    publication_id: Mapped[int] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="CASCADE"), nullable=False
    )
    position: Mapped[int] = mapped_column(Integer, nullable=False)
    #: The name as printed on the paper.
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    person_id: Mapped[int | None] = mapped_column(
        ForeignKey("directory_people.id", ondelete="SET NULL"), index=True
    )
    co_first: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    corresponding: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)

    publication: Mapped[Publication] = relationship(back_populates="authorships")
    person: Mapped[Person | None] = relationship()


class PublicationLink(Base):
    __tablename__ = "directory_publication_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    publication_id: Mapped[int] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="CASCADE"), index=True, nullable=False
    )
    kind: Mapped[str] = mapped_column(String(32), nullable=False)
    url: Mapped[str] = mapped_column(String(1000), nullable=False)
    #: Shown instead of the kind's label, e.g. "Video (Chinese)", "The Morning Paper".
    label: Mapped[str | None] = mapped_column(String(200))
    position: Mapped[int] = mapped_column(Integer, default=0, nullable=False)


class PublicationAward(Base):
    __tablename__ = "directory_publication_awards"

    id: Mapped[int] = mapped_column(primary_key=True)
    publication_id: Mapped[int] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="CASCADE"), index=True, nullable=False
    )
    name: Mapped[str] = mapped_column(String(300), nullable=False)
    position: Mapped[int] = mapped_column(Integer, default=0, nullable=False)


class ArtifactBadge(Base):
    __tablename__ = "directory_artifact_badges"

    id: Mapped[int] = mapped_column(primary_key=True)
    publication_id: Mapped[int] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="CASCADE"), index=True, nullable=False
    )
    #: "Artifacts Available", "Artifacts Functional", "Results Reproduced"...
    name: Mapped[str] = mapped_column(String(120), nullable=False)
    issuer: Mapped[str | None] = mapped_column(String(120))
    position: Mapped[int] = mapped_column(Integer, default=0, nullable=False)


class PublicationRelation(Base):
    """``publication`` is ``kind`` of ``target`` (e.g. an extended version of it)."""

    __tablename__ = "directory_publication_relations"

    id: Mapped[int] = mapped_column(primary_key=True)
    publication_id: Mapped[int] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="CASCADE"), index=True, nullable=False
    )
    target_id: Mapped[int] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="CASCADE"), index=True, nullable=False
    )
    kind: Mapped[str] = mapped_column(String(32), nullable=False)

    target: Mapped[Publication] = relationship(foreign_keys=[target_id])


class ProfilePublication(Base):
    """One person's view of a publication on their profile."""

    __tablename__ = "directory_profile_publications"

    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), primary_key=True
    )
    publication_id: Mapped[int] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="CASCADE"), primary_key=True
    )
    selected: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    hidden: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    #: A heading the owner files the paper under instead of its year ("Survey").
    section: Mapped[str | None] = mapped_column(String(120))
    #: The owner's order among papers of the same year.
    position: Mapped[int] = mapped_column(Integer, default=0, nullable=False)

    publication: Mapped[Publication] = relationship()


# ----------------------------------------------------------------------------- advising, recruiting


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
    role: Mapped[str] = mapped_column(String(16), default="advisor", nullable=False)
    degree: Mapped[str] = mapped_column(String(16), default="phd", nullable=False)
    start_year: Mapped[int | None] = mapped_column(Integer)
    end_year: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="current", nullable=False)
    thesis: Mapped[str | None] = mapped_column(String(400))
    placement: Mapped[str | None] = mapped_column(String(300))
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


class RecruitingNotice(EntryMixin, Base):
    __tablename__ = "directory_recruiting_notices"

    level: Mapped[str] = mapped_column(String(16), nullable=False, index=True)
    #: The intake, e.g. "Fall 2027"; empty for rolling recruitment.
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


#: Every kind of ordered profile entry, by the name used in URLs and the interchange format.
ENTRY_MODELS: dict[str, type[Base]] = {
    "news": NewsItem,
    "education": Education,
    "experience": Experience,
    "projects": ResearchProject,
    "teaching": Teaching,
    "service": Service,
    "awards": Award,
    "funding": Funding,
    "custom_sections": CustomSection,
    "advising": AdvisingRelation,
    "recruiting": RecruitingNotice,
}


# Modules whose tables live on the same metadata (imported last: they import this module).
from . import accounts, cache, editing_models, pubimport, search  # noqa: E402,F401,I001
