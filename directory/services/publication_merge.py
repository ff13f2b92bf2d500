"""Versions, merge and split of department papers, for admins: a preprint linked to its
published version (:func:`link_versions`, also used by an import), two records of one paper
merged into one (:func:`merge_publications`), and a wrongly shared record split in two
(:func:`split_publication`). Every authorship is kept.

Services only ``flush()``; the caller commits.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.names import name_match_keys
from directory.services.publications import PUBLICATION_COLUMNS


def link_versions(session: Session, preprint: m.Publication, published: m.Publication) -> None:
    """Record that ``preprint`` is a preprint of ``published`` (both directions, so that each
    paper's page points at the other). Linking twice adds nothing."""
    if preprint.id == published.id:
        raise ValueError("a paper cannot be a version of itself")
    pairs = ((preprint, published, "preprint_of"), (published, preprint, "published_version_of"))
    for source, target, kind in pairs:
        if not any(r.target_id == target.id and r.kind == kind for r in source.relations):
            source.relations.append(m.PublicationRelation(kind=kind, target=target))
    session.flush()


def _names_equal(a: str, b: str) -> bool:
    return name_match_keys(a).get("exact") == name_match_keys(b).get("exact")


def merge_publications(session: Session, survivor: m.Publication, other: m.Publication) -> None:
    """Fold ``other`` into ``survivor`` and delete it.

    Every person linked on ``other`` stays linked: on the survivor's authorship of the same
    name when it has no person yet, else on an authorship appended at the end. Profile rows
    (keeping selected / hidden), project links, profile awards and version relations move
    over; empty fields of the survivor are filled from ``other``.
    """
    if survivor.id == other.id:
        raise ValueError("a paper cannot be merged with itself")
    _move_linked_authors(survivor, other)
    # Fill the survivor's gaps; identifiers move only after the other row is gone.
    moved_ids = _fill_gaps(survivor, other)
    session.flush()
    _move_profile_rows(session, survivor, other)
    _move_projects_and_awards(session, survivor, other)
    _move_relations(session, survivor, other)
    session.expire(survivor, ["relations"])
    session.delete(other)
    session.flush()
    for name, value in moved_ids.items():
        setattr(survivor, name, value)
    session.flush()


def _move_linked_authors(survivor: m.Publication, other: m.Publication) -> None:
    """Every person linked on ``other`` linked on the survivor: on its unlinked authorship of
    the same name, else on one appended."""
    linked = {a.person_id for a in survivor.authorships if a.person_id}
    for authorship in other.authorships:
        if authorship.person_id is None or authorship.person_id in linked:
            continue
        target = next(
            (
                a
                for a in survivor.authorships
                if a.person_id is None and _names_equal(a.name, authorship.name)
            ),
            None,
        )
        if target is None:
            target = m.Authorship(
                position=len(survivor.authorships),
                name=authorship.name,
                co_first=authorship.co_first,
                corresponding=authorship.corresponding,
            )
            survivor.authorships.append(target)
        target.person_id = authorship.person_id
        linked.add(authorship.person_id)


def _fill_gaps(survivor: m.Publication, other: m.Publication) -> dict[str, Any]:
    """The survivor's empty fields, links, awards and badges filled from ``other``. The DOI
    and arXiv id it lacks are returned instead (they are unique: they move once ``other``
    is gone)."""
    moved_ids = {}
    for name in PUBLICATION_COLUMNS + ("citation_key", "bibtex"):
        if name == "uid":
            continue
        if getattr(survivor, name) in (None, "", []) and getattr(other, name) not in (None, "", []):
            if name in ("doi", "arxiv_id"):
                moved_ids[name] = getattr(other, name)
            else:
                setattr(survivor, name, getattr(other, name))
    urls = {link.url for link in survivor.links}
    for link in other.links:
        if link.url not in urls:
            survivor.links.append(
                m.PublicationLink(
                    kind=link.kind, url=link.url, label=link.label, position=len(survivor.links)
                )
            )
            urls.add(link.url)
    award_names = {a.name for a in survivor.awards}
    for award in other.awards:
        if award.name not in award_names:
            position = len(survivor.awards)
            survivor.awards.append(m.PublicationAward(name=award.name, position=position))
    badge_names = {b.name for b in survivor.badges}
    for badge in other.badges:
        if badge.name not in badge_names:
            survivor.badges.append(
                m.ArtifactBadge(name=badge.name, issuer=badge.issuer, position=len(survivor.badges))
            )
    return moved_ids


def _move_profile_rows(session: Session, survivor: m.Publication, other: m.Publication) -> None:
    """Profile rows of ``other`` move to the survivor; the survivor's row wins where a person
    has both."""
    kept = set(
        session.scalars(
            select(m.ProfilePublication.person_id).where(
                m.ProfilePublication.publication_id == survivor.id
            )
        )
    )
    for row in session.scalars(
        select(m.ProfilePublication).where(m.ProfilePublication.publication_id == other.id)
    ).all():
        if row.person_id in kept:
            session.delete(row)
        else:
            row.publication_id = survivor.id


def _move_projects_and_awards(
    session: Session, survivor: m.Publication, other: m.Publication
) -> None:
    """The projects listing ``other`` list the survivor (once); profile awards for ``other``
    are for the survivor."""
    pp = m.project_publications
    in_survivor = set(
        session.scalars(select(pp.c.project_id).where(pp.c.publication_id == survivor.id))
    )
    session.execute(
        delete(pp).where(pp.c.publication_id == other.id, pp.c.project_id.in_(in_survivor))
    )
    session.execute(
        update(pp).where(pp.c.publication_id == other.id).values(publication_id=survivor.id)
    )
    session.execute(
        update(m.Award).where(m.Award.publication_id == other.id).values(publication_id=survivor.id)
    )


def _move_relations(session: Session, survivor: m.Publication, other: m.Publication) -> None:
    """Version relations from and to ``other`` now concern the survivor (dropping
    self-references and repeats); those left naming ``other`` are deleted."""
    existing = {
        (r.publication_id, r.target_id, r.kind)
        for r in session.scalars(
            select(m.PublicationRelation).where(
                or_(
                    m.PublicationRelation.publication_id.in_((survivor.id, other.id)),
                    m.PublicationRelation.target_id.in_((survivor.id, other.id)),
                )
            )
        )
    }
    for source, target, kind in sorted(existing, key=lambda t: (t[0], t[1], t[2])):
        new_source = survivor.id if source == other.id else source
        new_target = survivor.id if target == other.id else target
        if (new_source, new_target) == (source, target):
            continue
        if new_source != new_target and (new_source, new_target, kind) not in existing:
            session.add(
                m.PublicationRelation(publication_id=new_source, target_id=new_target, kind=kind)
            )
            existing.add((new_source, new_target, kind))
    session.flush()
    session.execute(
        delete(m.PublicationRelation).where(
            or_(
                m.PublicationRelation.publication_id == other.id,
                m.PublicationRelation.target_id == other.id,
            )
        )
    )


def split_publication(
    session: Session, publication: m.Publication, person_ids: Iterable[int]
) -> m.Publication:
    """Give ``person_ids`` their own copy of a paper that was wrongly shared.

    The copy has the same fields and printed authors, but no DOI or arXiv id (they stay with
    the original, as they must be unique); the chosen people's authorship links and profile
    rows (with selected / hidden) move to it. Nobody loses an authorship: the original keeps
    the printed names.
    """
    moving = set(person_ids)
    if not moving:
        raise ValueError("choose at least one person to move to the new record")
    copy = m.Publication(title=publication.title, created_by_id=publication.created_by_id)
    for name in PUBLICATION_COLUMNS + ("citation_key", "bibtex", "visibility"):
        if name not in ("uid", "doi", "arxiv_id"):
            setattr(copy, name, getattr(publication, name))
    copy.labels = list(publication.labels or [])
    for a in publication.authorships:
        copy.authorships.append(
            m.Authorship(
                position=a.position,
                name=a.name,
                person_id=a.person_id if a.person_id in moving else None,
                co_first=a.co_first,
                corresponding=a.corresponding,
            )
        )
        if a.person_id in moving:
            a.person_id = None
    copy.links = [
        m.PublicationLink(kind=k.kind, url=k.url, label=k.label, position=k.position)
        for k in publication.links
    ]
    copy.awards = [m.PublicationAward(name=a.name, position=a.position) for a in publication.awards]
    copy.badges = [
        m.ArtifactBadge(name=b.name, issuer=b.issuer, position=b.position)
        for b in publication.badges
    ]
    session.add(copy)
    session.flush()
    session.execute(
        update(m.ProfilePublication)
        .where(
            m.ProfilePublication.publication_id == publication.id,
            m.ProfilePublication.person_id.in_(moving),
        )
        .values(publication_id=copy.id)
    )
    session.flush()
    return copy
