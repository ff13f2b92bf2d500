"""Merging two profiles of the same person: everything of the duplicate moves to the profile
that is kept (entries, papers, advising, delegations, history); then the duplicate can go."""

from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from directory import models as m
from directory.models import ChangeRecord, Delegation, Invitation, PendingChange

#: Person columns copied from the duplicate where the kept profile has nothing.
FILLABLE = (
    "native_name", "rank", "title", "unit", "email", "office", "address", "phone", "pronouns",
    "interests", "bio", "last_confirmed",
)  # fmt: skip


def merge_people(session: Session, keep: m.Person, duplicate: m.Person) -> None:
    """Move every record of ``duplicate`` onto ``keep``, leaving the duplicate empty for the
    caller to delete (flushes only; the caller records the change and commits)."""
    if keep.id == duplicate.id:
        raise ValueError("cannot merge a person into themself")
    _move_entries(session, keep, duplicate)
    _move_advising(session, keep, duplicate)
    _move_papers(session, keep, duplicate)
    _move_delegations(session, keep, duplicate)
    _move_history(session, keep, duplicate)
    _fill_profile(keep, duplicate)
    user_key, duplicate.user_key = duplicate.user_key, None
    session.flush()
    if keep.user_key is None and user_key:
        keep.user_key = user_key
    session.flush()
    # The steps' bulk updates bypassed the objects in memory: reload them when next used.
    session.expire_all()


def _move_entries(session: Session, keep: m.Person, duplicate: m.Person) -> None:
    """The duplicate's profile entries, after the kept profile's own, in their order."""
    for model in m.ENTRY_MODELS.values():
        offset = (
            session.scalar(select(func.max(model.position)).where(model.owner_id == keep.id)) or 0
        ) + 1
        for entry in session.scalars(select(model).where(model.owner_id == duplicate.id)):
            entry.owner_id = keep.id
            entry.position = entry.position + offset


def _move_advising(session: Session, keep: m.Person, duplicate: m.Person) -> None:
    """Advising relations with the duplicate as advisor or as student."""
    for column in (m.AdvisingRelation.advisor_id, m.AdvisingRelation.student_id):
        session.execute(
            update(m.AdvisingRelation).where(column == duplicate.id).values({column: keep.id})
        )


def _move_papers(session: Session, keep: m.Person, duplicate: m.Person) -> None:
    """Authorships, suggested authorships, papers created and profile rows (the kept
    profile's row wins where both list a paper)."""
    session.execute(
        update(m.Authorship).where(m.Authorship.person_id == duplicate.id).values(person_id=keep.id)
    )
    # A co-author import's question to the duplicate is now a question to the kept profile.
    session.execute(
        update(m.Authorship)
        .where(m.Authorship.suggested_person_id == duplicate.id)
        .values(suggested_person_id=keep.id)
    )
    session.execute(
        update(m.Publication)
        .where(m.Publication.created_by_id == duplicate.id)
        .values(created_by_id=keep.id)
    )
    kept_papers = set(
        session.scalars(
            select(m.ProfilePublication.publication_id).where(
                m.ProfilePublication.person_id == keep.id
            )
        )
    )
    for row in session.scalars(
        select(m.ProfilePublication).where(m.ProfilePublication.person_id == duplicate.id)
    ):
        if row.publication_id not in kept_papers:
            session.add(
                m.ProfilePublication(
                    person_id=keep.id,
                    publication_id=row.publication_id,
                    selected=row.selected,
                    hidden=row.hidden,
                    section=row.section,
                    position=row.position,
                )
            )
        session.delete(row)


def _move_delegations(session: Session, keep: m.Person, duplicate: m.Person) -> None:
    """Delegations from and to the duplicate, dropping repeats and delegations to oneself."""
    existing = {
        (d.person_id, d.delegate_id)
        for d in session.scalars(
            select(Delegation).where(
                (Delegation.person_id == keep.id) | (Delegation.delegate_id == keep.id)
            )
        )
    }
    for d in session.scalars(
        select(Delegation).where(
            (Delegation.person_id == duplicate.id) | (Delegation.delegate_id == duplicate.id)
        )
    ):
        pair = (
            keep.id if d.person_id == duplicate.id else d.person_id,
            keep.id if d.delegate_id == duplicate.id else d.delegate_id,
        )
        if pair in existing or pair[0] == pair[1]:
            session.delete(d)
        else:
            d.person_id, d.delegate_id = pair
            existing.add(pair)


def _move_history(session: Session, keep: m.Person, duplicate: m.Person) -> None:
    """Pending changes and change records move; the duplicate's invitations are deleted."""
    session.execute(
        update(PendingChange)
        .where(PendingChange.person_id == duplicate.id)
        .values(person_id=keep.id)
    )
    session.execute(
        update(ChangeRecord).where(ChangeRecord.person_id == duplicate.id).values(person_id=keep.id)
    )
    for invitation in session.scalars(
        select(Invitation).where(Invitation.person_id == duplicate.id)
    ):
        session.delete(invitation)


def _fill_profile(keep: m.Person, duplicate: m.Person) -> None:
    """The kept profile's empty fields, name variants, links, areas and photo, filled from
    the duplicate."""
    for name in FILLABLE:
        if not getattr(keep, name) and getattr(duplicate, name):
            setattr(keep, name, getattr(duplicate, name))
    variants = list(keep.name_variants or [])
    for name in [duplicate.full_name, *(duplicate.name_variants or [])]:
        if name != keep.full_name and name not in variants:
            variants.append(name)
    keep.name_variants = variants
    known_urls = {link.url for link in keep.links}
    for link in duplicate.links:
        if link.url not in known_urls:
            keep.links.append(
                m.PersonLink(kind=link.kind, url=link.url, label=link.label,
                             position=len(keep.links))
            )  # fmt: skip
    keep.areas = list({a.id: a for a in [*keep.areas, *duplicate.areas]}.values())
    if keep.photo is None and duplicate.photo is not None:
        photo = duplicate.photo
        keep.photo = m.PersonPhoto(
            data=photo.data, mime_type=photo.mime_type, width=photo.width,
            height=photo.height, etag=photo.etag, alt_text=photo.alt_text,
        )  # fmt: skip
