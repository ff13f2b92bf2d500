"""The papers a profile or its complete list shows, read as plain values: everything their
citations print (authors and the authors' profiles, links, awards, badges, versions) in one
statement per list, without an ORM object for each of the thousand or so rows.

The citation macros, :func:`~directory.services.publications.publication_data` (BibTeX,
JSON-LD) and the access helpers read these exactly as they read the mapped objects: the
attribute names are the models'. The values are read-only: a page that changes a paper
loads it as an object (:func:`~directory.services.profiles.profile_publications`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.services.publication_rows import NAME_PARTS
from directory.services.publications import PUBLICATION_COLUMNS

#: A paper's own columns that a shown citation reads (``PUBLICATION_COLUMNS`` and what the
#: access rule and the citation key need); not the stored BibTeX, which no page prints.
PAPER_COLUMNS = ("id", *PUBLICATION_COLUMNS, "citation_key", "visibility", "created_by_id")
#: An author's profile as a citation reads it (linked when the viewer may see it), and as the
#: department list's person filter names it.
PERSON_COLUMNS = ("id", "slug", "visibility", "published", "full_name", "sort_name")
AUTHOR_COLUMNS = ("name", "person_id", "co_first", "corresponding", "role", *NAME_PARTS)
#: A related version's paper: its badge, title and address, and whether the viewer may see it.
TARGET_COLUMNS = ("id", "uid", "title", "venue_short", "year", "visibility", "created_by_id")


@dataclass(slots=True, eq=False)
class ShownPerson:
    id: int
    slug: str
    visibility: str
    published: bool
    full_name: str
    sort_name: str


@dataclass(slots=True, eq=False)
class ShownAuthor:
    name: str
    person_id: int | None
    co_first: bool
    corresponding: bool
    role: str
    given: str | None
    particle: str | None
    family: str | None
    suffix: str | None
    person: ShownPerson | None = None


@dataclass(slots=True, eq=False)
class ShownLink:
    kind: str
    url: str
    label: str | None


@dataclass(slots=True, eq=False)
class ShownAward:
    name: str


@dataclass(slots=True, eq=False)
class ShownBadge:
    name: str
    issuer: str | None


@dataclass(slots=True, eq=False)
class ShownTarget:
    id: int
    uid: str
    title: str
    venue_short: str | None
    year: int | None
    visibility: str
    created_by_id: int | None


@dataclass(slots=True, eq=False)
class ShownRelation:
    kind: str
    target: ShownTarget


@dataclass(slots=True, eq=False)
class ShownPaper:
    """A paper as its citation reads it (the attributes of :class:`~directory.models.Publication`
    that the citation macros, ``publication_data`` and ``can_view`` use). Compared by
    identity: a paper listed twice on a page (selected, then under its year) is one value."""

    id: int
    uid: str
    title: str
    venue: str | None
    venue_short: str | None
    year: int | None
    month: int | None
    type: str
    status: str
    abstract: str | None
    doi: str | None
    arxiv_id: str | None
    volume: str | None
    number: str | None
    pages: str | None
    article: str | None
    publisher: str | None
    location: str | None
    note: str | None
    labels: list[str]
    authors_incomplete: bool
    citation_key: str | None
    visibility: str
    created_by_id: int | None
    authorships: list[ShownAuthor] = field(default_factory=list)
    links: list[ShownLink] = field(default_factory=list)
    awards: list[ShownAward] = field(default_factory=list)
    badges: list[ShownBadge] = field(default_factory=list)
    relations: list[ShownRelation] = field(default_factory=list)


def _columns(model: Any, names: Iterable[str]) -> list[Any]:
    return [getattr(model, name) for name in names]


#: Each list's other parts: (attribute, model, value class, columns).
_PARTS = (
    ("links", m.PublicationLink, ShownLink, ("kind", "url", "label")),
    ("awards", m.PublicationAward, ShownAward, ("name",)),
    ("badges", m.ArtifactBadge, ShownBadge, ("name", "issuer")),
)


@cache
def _statements() -> dict[str, Any]:
    """The six statements, built once: the papers' ids are one expanding parameter (``ids``),
    so a page neither builds them again nor turns each id into a literal of each of them."""
    ids = bindparam("ids", expanding=True)
    pub, a, person = m.Publication, m.Authorship, m.Person
    rel, target = m.PublicationRelation, m.Publication.__table__.alias("target")
    statements = {
        "papers": select(*paper_columns()).where(pub.id.in_(ids)),
        "authors": select(
            a.publication_id, *_columns(a, AUTHOR_COLUMNS), *_columns(person, PERSON_COLUMNS)
        )
        .outerjoin(person, person.id == a.person_id)
        .where(a.publication_id.in_(ids))
        .order_by(a.publication_id, a.position),
        "relations": select(
            rel.publication_id, rel.kind, *(target.c[name] for name in TARGET_COLUMNS)
        )
        .join(target, target.c.id == rel.target_id)
        .where(rel.publication_id.in_(ids))
        .order_by(rel.publication_id, rel.id),
    }
    for attribute, model, _kind, names in _PARTS:
        statements[attribute] = (
            select(model.publication_id, *_columns(model, names))
            .where(model.publication_id.in_(ids))
            .order_by(model.publication_id, model.position, model.id)
        )
    return statements


def paper_columns() -> list[Any]:
    """The columns of :data:`PAPER_COLUMNS`: a statement that selects them (its own filters
    and order) gives :func:`shown_papers_of` its papers."""
    return _columns(m.Publication, PAPER_COLUMNS)


def shown_papers(session: Session, ids: Iterable[int]) -> dict[int, ShownPaper]:
    """The papers ``ids`` by id, each with its authors (in print order, each with the profile
    it links to), links, awards, badges (each in the owner's order) and related versions:
    six statements, whatever their number. No visibility filter: the caller chose the ids
    (rows listed for the viewer), and a citation checks each author's profile and each
    related version itself (``person_visible``, ``can_view``), as it does on objects. Read
    on the session's connection (plain columns need none of the ORM's work on their rows):
    the pages that show them have written nothing that is not flushed."""
    ids = sorted(set(ids))
    if not ids:
        return {}
    execute = session.connection().execute
    papers = {row[0]: ShownPaper(*row) for row in execute(_statements()["papers"], {"ids": ids})}
    _add_parts(execute, papers)
    return papers


def shown_papers_of(session: Session, stmt: Any) -> list[ShownPaper]:
    """The papers ``stmt`` selects (:func:`paper_columns`, with its filters, order and limit)
    in its order, each with its parts as :func:`shown_papers` gives them: one statement fewer
    than choosing the ids first."""
    return [paper for _own, paper in shown_rows_of(session, stmt)]


def shown_rows_of(session: Session, stmt: Any, own: int = 0) -> list[tuple[Any, ShownPaper]]:
    """:func:`shown_papers_of` for a statement that selects ``own`` columns of its own (a
    profile row's flags, say) before :func:`paper_columns`: each row's own values (a tuple)
    with its paper."""
    execute = session.connection().execute
    rows = [(row[:own], ShownPaper(*row[own:])) for row in execute(stmt)]
    if rows:
        _add_parts(execute, {paper.id: paper for _own, paper in rows})
    return rows


def _add_parts(execute: Any, papers: dict[int, ShownPaper]) -> None:
    """Each paper's authors, links, awards, badges and related versions: five statements."""
    statements, given = _statements(), {"ids": sorted(papers)}
    authors = len(AUTHOR_COLUMNS)
    for pub_id, *values in execute(statements["authors"], given):
        author = ShownAuthor(*values[:authors])
        if values[authors] is not None:
            author.person = ShownPerson(*values[authors:])
        papers[pub_id].authorships.append(author)
    for attribute, _model, kind, _names in _PARTS:
        by_paper: dict[int, list[Any]] = defaultdict(list)
        for pub_id, *values in execute(statements[attribute], given):
            by_paper[pub_id].append(kind(*values))
        for pub_id, items in by_paper.items():
            setattr(papers[pub_id], attribute, items)
    for pub_id, kind, *values in execute(statements["relations"], given):
        papers[pub_id].relations.append(ShownRelation(kind, ShownTarget(*values)))
