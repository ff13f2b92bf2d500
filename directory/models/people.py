"""People and research areas."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Date,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    false,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from directory.models.base import Base, TimestampMixin, VersionedMixin
from directory.models.vocabularies import STUDENT_ROLES

person_areas = Table(
    "directory_person_areas",
    Base.metadata,
    Column("person_id", ForeignKey("directory_people.id", ondelete="CASCADE"), primary_key=True),
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
        ForeignKey("directory_areas.id", ondelete="SET NULL"), index=True
    )
    position: Mapped[int] = mapped_column(Integer, default=0, nullable=False)

    parent: Mapped[ResearchArea | None] = relationship(remote_side=[id])


#: A stored sort key (formats.names.stored_sort_key): compared character by character (binary,
#: "C" on PostgreSQL, whose default collation is not), as Python compares the key.
BINARY_TEXT = Text().with_variant(Text(collation="C"), "postgresql")


class Person(VersionedMixin, Base):
    """A member of the department: faculty, staff, student or alumnus."""

    __tablename__ = "directory_people"
    __table_args__ = (
        # The listing's counts and page read this index only (role and the listed_people
        # rule's columns, both name orders, rank and id), not the people's wide rows.
        Index(
            "ix_directory_people_listing",
            "role", "visibility", "active", "published", "name_key", "name_key_zh", "rank", "id",
        ),
    )  # fmt: skip

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(120), unique=True, nullable=False)
    full_name: Mapped[str] = mapped_column(String(200), nullable=False)
    sort_name: Mapped[str] = mapped_column(String(200), nullable=False, index=True)
    native_name: Mapped[str | None] = mapped_column(String(200))
    #: The name's place in the listing's order, in every locale but Chinese and in Chinese
    #: (pinyin): formats.names.name_keys, filled on every insert and update by
    #: write_gates.fill_name_keys, so that the listing sorts and pages in SQL.
    name_key: Mapped[str] = mapped_column(BINARY_TEXT, nullable=False)
    name_key_zh: Mapped[str] = mapped_column(BINARY_TEXT, nullable=False)
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
    #: Whether the selected papers are listed again under their year or status below them on
    #: the profile, the CV and the printed profile; by default each paper is listed once.
    repeat_selected: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), nullable=False
    )
    #: Whether papers not yet published (preprints, under review, in preparation) that have a
    #: year are listed among that year's papers instead of under their status ahead of the
    #: years, as a home page ordered by year lists them; papers without a year keep their status.
    unpublished_in_year: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), nullable=False
    )
    #: The CV's sections in the owner's order (names of ``vocabularies.CV_SECTIONS``); None: every
    #: section, in that order.
    cv_sections: Mapped[list[str] | None] = mapped_column(JSON)
    #: Whether the profile is listed and shown to others. A person an admin adds starts
    #: unpublished when DIRECTORY_NEW_PROFILES_UNLISTED is on, until the owner (or an admin)
    #: publishes it; people from before this column, and imported profiles, are published.
    published: Mapped[bool] = mapped_column(
        Boolean, default=True, server_default=true(), nullable=False
    )

    #: Identifiers at the bibliographic sources (formats.person_ids: the stored forms): who
    #: the person is at ORCID, DBLP, OpenAlex and Semantic Scholar, for harvesting their
    #: papers and telling them from namesakes. One person each.
    orcid: Mapped[str | None] = mapped_column(String(19), unique=True, index=True)
    dblp_pid: Mapped[str | None] = mapped_column(String(80), unique=True, index=True)
    openalex_id: Mapped[str | None] = mapped_column(String(20), unique=True, index=True)
    semantic_scholar_id: Mapped[str | None] = mapped_column(String(20), unique=True, index=True)

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
    #: The point kept in view when the photo is cropped (to a square, a circle), in percent
    #: from the left and from the top; the centre by default.
    focus_x: Mapped[int] = mapped_column(Integer, default=50, server_default="50", nullable=False)
    focus_y: Mapped[int] = mapped_column(Integer, default=50, server_default="50", nullable=False)

    person: Mapped[Person] = relationship(back_populates="photo")
