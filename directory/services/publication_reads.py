"""The reads of the paper pages, the manage page and the record pages, by a name each:
which paper a URL names, its versions and projects, who lists it, a profile's papers a page
at a time, an import's draft, and which department member a printed author name is.

(These belong with :mod:`directory.services.publications`, which another change is splitting;
they are kept apart here until that lands.) The read rules themselves are
:mod:`directory.services.access`'s."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from directory import models as m
from directory.models import ImportDraft
from directory.models.vocabularies import N_
from directory.services.access import listed_publications, owned_entry_clause
from directory.services.department.publications import publications_stmt
from directory.services.identity import Viewer
from directory.services.shown_papers import ShownPaper, paper_columns, shown_rows_of

#: How a related paper of an unknown kind of relation is named.
RELATED_VERSION = N_("Related version")

#: How the other side of a relation is named on the target's page.
INVERSE_RELATIONS = {
    "extended_version_of": N_("Extended version"),
    "published_version_of": N_("Preprint"),
    "preprint_of": N_("Published version"),
    "follow_up_of": N_("Follow-up"),
}


def listed_paper(
    session: Session, viewer: Viewer, uid: str, options: list[Any]
) -> m.Publication | None:
    """The paper ``uid`` if ``viewer`` may see it on the department's pages."""
    return session.scalar(
        select(m.Publication)
        .where(m.Publication.uid == uid, listed_publications(viewer, m.Publication))
        .options(*options)
    )


def paper_by_uid(session: Session, uid: str, options: tuple[Any, ...] = ()) -> m.Publication | None:
    """The record ``uid``, whoever may see it (the record pages check who asks)."""
    return session.scalar(select(m.Publication).where(m.Publication.uid == uid).options(*options))


def papers_by_id(session: Session, ids: list[int]) -> dict[int, m.Publication]:
    return {
        p.id: p for p in session.scalars(select(m.Publication).where(m.Publication.id.in_(ids)))
    }


def related_versions(
    session: Session, pub: m.Publication, viewer: Viewer
) -> list[tuple[str, m.Publication]]:
    """Versions of the paper both ways ("Extended version of X", and X's "Extended version:
    Y"), each only when the viewer may see the other paper's page."""
    ids = [rel.target_id for rel in pub.relations]
    inverse = list(
        session.scalars(
            select(m.PublicationRelation).where(m.PublicationRelation.target_id == pub.id)
        )
    )
    ids += [rel.publication_id for rel in inverse]
    if not ids:
        return []
    visible = {
        p.id: p
        for p in session.scalars(
            select(m.Publication).where(
                m.Publication.id.in_(ids), listed_publications(viewer, m.Publication)
            )
        )
    }
    labels = dict(m.PUBLICATION_RELATIONS)
    related = [(labels.get(rel.kind, rel.kind), visible[rel.target_id])
               for rel in pub.relations if rel.target_id in visible]  # fmt: skip
    seen = {other.id for _kind, other in related}
    for rel in inverse:
        other = visible.get(rel.publication_id)
        if other is not None and other.id not in seen:
            seen.add(other.id)
            related.append((INVERSE_RELATIONS.get(rel.kind, RELATED_VERSION), other))
    return related


def listing_projects(
    session: Session, pub: m.Publication, viewer: Viewer
) -> list[tuple[m.ResearchProject, m.Person]]:
    """The research projects that list the paper, with their owners, on profiles the viewer
    may see."""
    owner = aliased(m.Person)
    rows = session.execute(
        select(m.ResearchProject, owner)
        .join(owner, owner.id == m.ResearchProject.owner_id)
        .where(
            m.ResearchProject.publications.any(m.Publication.id == pub.id),
            owned_entry_clause(viewer, m.ResearchProject, owner),
        )
        .order_by(m.ResearchProject.title, m.ResearchProject.id)
    )
    return [(project, person) for project, person in rows]


def holders(session: Session, pub: m.Publication) -> list[tuple[m.Person, m.ProfilePublication]]:
    """The people whose profiles list ``pub``, with how each lists it, by name."""
    return list(
        session.execute(
            select(m.Person, m.ProfilePublication)
            .join(m.ProfilePublication, m.ProfilePublication.person_id == m.Person.id)
            .where(m.ProfilePublication.publication_id == pub.id)
            .order_by(m.Person.sort_name)
        )
    )


def import_draft(session: Session, person: m.Person, token: str) -> ImportDraft | None:
    """The previewed import ``token`` of ``person``'s profile."""
    return session.scalar(
        select(ImportDraft).where(ImportDraft.token == token, ImportDraft.person_id == person.id)
    )


def profile_paper_count(session: Session, person: m.Person) -> int:
    """How many papers ``person``'s profile lists, hidden ones too."""
    return session.scalar(select(func.count()).select_from(_listed_by(person).subquery())) or 0


@dataclass(slots=True)
class ManagedRow:
    """A paper of a profile's manage page: how the profile lists it, and the paper as its
    citation reads it (a :class:`~directory.services.shown_papers.ShownPaper`)."""

    selected: bool
    hidden: bool
    publication: ShownPaper


def profile_paper_page(
    session: Session, person: m.Person, number: int, size: int
) -> list[ManagedRow]:
    """Page ``number`` of ``size`` of the papers ``person``'s profile lists, hidden ones too,
    newest first, read as plain values (six statements, however many authors the papers
    have; the page only reads them: its form saves by the papers' uids)."""
    pp, pub = m.ProfilePublication, m.Publication
    stmt = (
        select(pp.selected, pp.hidden, *paper_columns())
        .select_from(pp)
        .join(pub, pub.id == pp.publication_id)
        .where(pp.person_id == person.id)
        .order_by(pub.year.desc().nulls_last(), pp.position, pub.id)
        .limit(size)
        .offset((number - 1) * size)
    )
    return [ManagedRow(*own, paper) for own, paper in shown_rows_of(session, stmt, own=2)]


def profile_paper_uids(session: Session, person: m.Person) -> list[str]:
    """The record ids of every paper ``person``'s profile lists."""
    listed = _listed_by(person).with_only_columns(m.ProfilePublication.publication_id)
    return list(session.scalars(select(m.Publication.uid).where(m.Publication.id.in_(listed))))


def _listed_by(person: m.Person) -> Any:
    return select(m.ProfilePublication).where(m.ProfilePublication.person_id == person.id)


def listed_paper_dates(session: Session, viewer: Viewer) -> list[tuple[str, Any]]:
    """(uid, last change) of every paper ``viewer`` may see, for the sitemap."""
    return list(
        session.execute(
            select(m.Publication.uid, m.Publication.updated_at)
            .where(listed_publications(viewer, m.Publication))
            .order_by(m.Publication.id)
        )
    )


def member_printed_as(session: Session, name: str) -> int | None:
    """The department member printed as ``name``: an exact (case-insensitive) match of a full
    name or of a listed name variant, when exactly one person matches."""
    wanted = " ".join(name.split()).casefold()
    matches = {
        person_id
        for person_id, full_name, variants in session.execute(
            select(m.Person.id, m.Person.full_name, m.Person.name_variants)
        )
        if full_name.casefold() == wanted
        or any(" ".join(v.split()).casefold() == wanted for v in variants or [])
    }
    return matches.pop() if len(matches) == 1 else None


def department_list_papers(session: Session, viewer: Viewer, filters: Any) -> list[m.Publication]:
    """Every paper the department's publication list shows ``viewer`` with ``filters``, on
    every page at once (the list's BibTeX and CSL-JSON)."""
    return list(session.scalars(publications_stmt(viewer, filters)))
