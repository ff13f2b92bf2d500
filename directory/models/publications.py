"""Publications: one shared record per paper, its authors, links, awards and badges, and each
person's view of it on their profile."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from directory.models.base import Base, VersionedMixin, new_uid
from directory.models.people import Person


class Publication(VersionedMixin, Base):
    """One paper, shared by all its authors' profiles."""

    __tablename__ = "directory_publications"
    __table_args__ = (
        #: The chart's and filters' counts by year and type read this, not the wide rows. (The
        #: department's order has an index too, built by migration ``speed_3`` in each
        #: engine's own form: ``directory.migrate.ENGINE_SPECIFIC_INDEXES``.)
        Index("ix_directory_publications_facets", "year", "type", "visibility", "created_by_id"),
        #: The activity reports count the papers of a period by these columns from the index
        #: alone (migration ``reports3_1``).
        Index(
            "ix_directory_publications_period",
            "year",
            "month",
            "status",
            "type",
            "venue_short",
            "visibility",
        ),
    )

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
    #: The author list is cut short ("and others" in BibTeX): shown as "et al.".
    authors_incomplete: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)

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


class PublicationTitleWord(Base):
    """One word of a paper's title in its compared form (``formats.names.fold_for_matching``): an
    import finds the papers a title may duplicate by its rare words, and counts how rare they
    are, without reading every paper of the directory. Kept by ``services.write_gates`` on every ORM
    write of a title and by the bulk import beside its own rows (``services.title_words``)."""

    __tablename__ = "directory_publication_title_words"
    #: On SQLite the table is its primary key's b-tree (no separate rowid): one index less to
    #: write for each of an import's tens of thousands of words.
    __table_args__ = {"sqlite_with_rowid": False}

    #: The primary key leads with the word: the import looks words up and counts them.
    word: Mapped[str] = mapped_column(String(1000), primary_key=True)
    publication_id: Mapped[int] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="CASCADE"), primary_key=True, index=True
    )


def _where_set(column: str) -> Index:
    """An index of ``directory_authorships.column`` holding only the rows where it is set."""
    where = text(f"{column} IS NOT NULL")
    return Index(
        f"ix_directory_authorships_{column}", column, sqlite_where=where, postgresql_where=where
    )


class Authorship(Base):
    __tablename__ = "directory_authorships"
    __table_args__ = (
        UniqueConstraint("publication_id", "position"),
        #: Most printed names are no member's: the indexes of the two links hold only the
        #: names that have one, so each co-author an import writes costs no entry in them.
        #: Every read asks for one member's names (``person_id = ?``), which both engines
        #: answer from such an index, as they do the ON DELETE SET NULL of a member removed
        #: (migration ``speed_4``).
        _where_set("person_id"),
        _where_set("suggested_person_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    publication_id: Mapped[int] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="CASCADE"), nullable=False
    )
    position: Mapped[int] = mapped_column(Integer, nullable=False)
    #: The name as printed on the paper.
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    person_id: Mapped[int | None] = mapped_column(
        ForeignKey("directory_people.id", ondelete="SET NULL")
    )
    co_first: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    corresponding: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    #: The parts of the name as the source split them (BibTeX: First, von, Last, Jr); all None
    #: when unknown. A family name alone is an organisation ("{LaTeX3 Project Team}").
    given: Mapped[str | None] = mapped_column(String(200))
    particle: Mapped[str | None] = mapped_column(String(60))
    family: Mapped[str | None] = mapped_column(String(200))
    suffix: Mapped[str | None] = mapped_column(String(40))
    #: "author" or "editor" (an edited volume's editors).
    role: Mapped[str] = mapped_column(String(16), default="author", nullable=False)
    #: A member the printed name may be (initials, first name and surname): the paper is on
    #: their profile only once they confirm (then ``person_id`` is set and this cleared).
    suggested_person_id: Mapped[int | None] = mapped_column(
        ForeignKey("directory_people.id", ondelete="SET NULL")
    )
    #: The suggested member said the name is not them: not asked again.
    suggestion_declined: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)

    publication: Mapped[Publication] = relationship(back_populates="authorships")
    person: Mapped[Person | None] = relationship(foreign_keys=[person_id])
    suggested_person: Mapped[Person | None] = relationship(foreign_keys=[suggested_person_id])


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
    __table_args__ = (
        #: The primary key leads with person_id, and the "listed on a visible profile" rule
        #: looks rows up by paper (without an index, a table scan per paper). The index holds
        #: the rule's other columns too, so that the lookup reads no table row (SQLite checks
        #: 25,000 papers of a department in half the time; migration ``speed_5``).
        Index(
            "ix_directory_profile_publications_publication_id",
            "publication_id",
            "hidden",
            "person_id",
        ),
    )

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
