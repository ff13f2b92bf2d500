"""Operations on papers as a profile lists them: save one from its form, take it off the
profile, move it within its heading, mark papers selected or hidden, answer a suggested
authorship, confirm or discard an import; and on the department's shared records: merge,
link versions, split.

How a profile lists a paper is part of the paper's snapshot ("listing"), so each of these is
a change of the paper in the profile's change set: recorded, held for approval when the
owner's changes need it, refused when stale."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from directory import models as m
from directory.services.changes import PENDING, UNCHANGED, ChangeSet
from directory.services.claims.queue import (
    REMOVED,
    publication_keys,
    remember_rejection,
    unlink_member,
)
from directory.services.importing import import_plan
from directory.services.kinds import PUBLICATION
from directory.services.profiles import group_publications, listing_heading
from directory.services.publication_merge import (
    link_versions,
    merge_publications,
    split_publication,
)
from directory.services.publications import (
    accept_suggested_authorship,
    reject_suggested_authorship,
)
from directory.services.snapshots import apply_snapshot
from directory.services.unit_of_work import UnitOfWork


def save(
    uow: UnitOfWork,
    person: m.Person,
    pub: m.Publication | None,
    state: dict[str, Any],
    base_version: int | None,
) -> str:
    """Add a paper to ``person``'s profile (``pub`` None) or change it to ``state`` (the
    publication form's snapshot, with its ``listing`` on this profile). A DOI or arXiv id
    another record has raises :class:`sqlalchemy.exc.IntegrityError`."""
    changes = uow.change_set(person)
    if pub is None:
        pub = m.Publication(created_by_id=person.id)
        changes.create(PUBLICATION, pub)
    else:
        changes.update(PUBLICATION, pub, base_version)
    apply_snapshot(uow.session, PUBLICATION, pub, state, person.id)
    return changes.finish()


@dataclass(frozen=True)
class Removed:
    outcome: str
    #: Whether co-authors still list the paper (then only this profile's listing went).
    still_listed: bool


def remove_from_profile(
    uow: UnitOfWork, person: m.Person, row: m.ProfilePublication, base_version: int | None
) -> Removed:
    """Take a paper off ``person``'s profile; the shared record is deleted (restorable from
    the history) when no other profile lists it."""
    still_listed = listed_elsewhere(uow, row)
    pub = row.publication
    # The removal sticks: no co-author's import, edit or harvest puts it back or asks again.
    keys, title = publication_keys(uow.session, pub), pub.title
    changes = uow.change_set(person)
    if still_listed:
        changes.update(PUBLICATION, pub, base_version)
        apply_snapshot(uow.session, PUBLICATION, pub, {"listing": None}, person.id)
        unlink_member(pub, person.id)
    else:
        changes.delete(PUBLICATION, pub, base_version)
    outcome = changes.finish()
    if outcome != PENDING:
        remember_rejection(uow.session, person.id, keys, title, REMOVED)
    return Removed(outcome, still_listed)


def move_in_listing(
    uow: UnitOfWork,
    person: m.Person,
    row: m.ProfilePublication,
    direction: str,
    base_version: int | None,
) -> str | None:
    """Move a paper up or down within the heading it is listed under (None when it is
    already at that end): an update of every paper under the heading."""
    in_year = person.unpublished_in_year
    heading = listing_heading(row, in_year)
    group = [r for r in listing_rows(uow, person) if listing_heading(r, in_year) == heading]
    index = group.index(row)
    other = index - 1 if direction == "up" else index + 1
    if not 0 <= other < len(group):
        return None
    group[index], group[other] = group[other], group[index]
    changes = uow.change_set(person)
    changes.update(PUBLICATION, row.publication, base_version)
    for item in group:
        if item is not row:
            changes.update(PUBLICATION, item.publication)
    for position, item in enumerate(group):
        apply_snapshot(uow.session, PUBLICATION, item.publication,
                       {"listing": {"position": position}}, person.id)  # fmt: skip
    return changes.finish()


def set_selected_and_hidden(
    uow: UnitOfWork, person: m.Person, shown: set[str], selected: set[str], hidden: set[str]
) -> str:
    """Of the papers ``shown`` (by uid) on the manage page, the ``selected`` ones are
    selected and the ``hidden`` ones hidden on ``person``'s profile; the others neither."""
    rows = uow.session.scalars(
        select(m.ProfilePublication)
        .join(m.Publication)
        .where(m.ProfilePublication.person_id == person.id, m.Publication.uid.in_(shown))
        .options(selectinload(m.ProfilePublication.publication))
    )
    changed = []
    for row in rows:
        uid = row.publication.uid
        listing = {"selected": uid in selected, "hidden": uid in hidden}
        if (row.selected, row.hidden) != (listing["selected"], listing["hidden"]):
            changed.append((row, listing))
    if not changed:
        return UNCHANGED
    changes = uow.change_set(person)
    for row, _listing in changed:
        changes.update(PUBLICATION, row.publication)
    for row, listing in changed:
        apply_snapshot(uow.session, PUBLICATION, row.publication, {"listing": listing}, person.id)
    return changes.finish()


def answer_suggested_authorship(
    uow: UnitOfWork, person: m.Person, authorship: m.Authorship, *, accept: bool
) -> str:
    """``person`` says a printed author name is them (the paper shows on their profile) or
    is not (the name stays plain text). A statement about oneself: not held for approval."""
    changes = uow.change_set(person, approval_exempt=True)
    changes.update(PUBLICATION, authorship.publication)
    if accept:
        accept_suggested_authorship(uow.session, authorship, person.id)
    else:
        reject_suggested_authorship(uow.session, authorship)
    return changes.finish()


def import_draft(uow: UnitOfWork, person: m.Person, draft: m.ImportDraft, plan: Any,
                 **choices: Any) -> tuple[str, str]:  # fmt: skip
    """Carry out a previewed import with the user's ``choices`` (decisions, skip_invalid,
    replace); the draft is used up. Returns the outcome and a summary; raises
    :class:`~directory.services.pubimport.PlanRefused`."""
    outcome, summary = import_planned(
        uow, person, plan, kind=draft.kind, source=draft.source, filename=draft.filename,
        base_url=draft.base_url, **choices,
    )  # fmt: skip
    uow.session.delete(draft)
    return outcome, summary


def import_planned(uow: UnitOfWork, person: m.Person, plan: Any, **options: Any) -> tuple[str, str]:
    """Write an import plan to ``person``'s profile (see
    :func:`directory.services.importing.import_plan` for the ``options``): one change of the
    profile, recorded or held for approval. Returns the outcome and a summary."""
    return import_plan(uow.change_set(person), plan, **options)


def discard_draft(uow: UnitOfWork, draft: m.ImportDraft) -> None:
    """Throw a previewed import away; nothing of it was written."""
    uow.session.delete(draft)


# ----------------------------------------------------------------------------- shared records


def _record_changes(uow: UnitOfWork, allowed: bool) -> ChangeSet:
    """Shared paper records are the department's: their merges and splits are recorded in a
    change set of no single profile, by whoever may manage records (``allowed``: the result
    of :func:`directory.services.access.can_manage_publication_records`)."""
    return uow.change_set(None, allowed=allowed)


def merge_records(
    uow: UnitOfWork, keep: m.Publication, other: m.Publication, *, allowed: bool
) -> str:
    """Merge the record ``other`` into ``keep``, every author kept."""
    changes = _record_changes(uow, allowed)
    changes.update(PUBLICATION, keep)
    changes.delete(PUBLICATION, other, remove=False)  # the merge deletes it
    merge_publications(changes.session, keep, other)
    return changes.finish()


def link_as_versions(
    uow: UnitOfWork, preprint: m.Publication, published: m.Publication, *, allowed: bool
) -> str:
    """Link a preprint to its published version."""
    changes = _record_changes(uow, allowed)
    changes.group(PUBLICATION, "versions",
                  f"Versions linked: “{preprint.title}” → “{published.title}”",
                  {"preprint": preprint.id, "published": published.id})  # fmt: skip
    link_versions(changes.session, preprint, published)
    return changes.finish()


def split_record(
    uow: UnitOfWork, pub: m.Publication, people: set[int], *, allowed: bool
) -> m.Publication:
    """Give ``people`` (some of those listing ``pub``) their own record of it."""
    changes = _record_changes(uow, allowed)
    changes.update(PUBLICATION, pub)
    copy = split_publication(changes.session, pub, people)
    changes.create(PUBLICATION, copy)
    changes.finish()
    return copy


# ----------------------------------------------------------------------------- reads


def listed_elsewhere(uow: UnitOfWork, row: m.ProfilePublication) -> bool:
    """Whether another profile than ``row``'s lists its paper."""
    other = uow.session.scalar(
        select(m.ProfilePublication.person_id).where(
            m.ProfilePublication.publication_id == row.publication_id,
            m.ProfilePublication.person_id != row.person_id,
        )
    )
    return other is not None


def listing_rows(uow: UnitOfWork, person: m.Person) -> list[m.ProfilePublication]:
    """Every paper on the profile, hidden ones too, in the order the profile shows them."""
    rows = uow.session.scalars(
        select(m.ProfilePublication)
        .join(m.Publication)
        .where(m.ProfilePublication.person_id == person.id)
        .options(selectinload(m.ProfilePublication.publication))
        .order_by(
            m.Publication.year.desc().nulls_last(),
            m.ProfilePublication.position,
            m.Publication.id,
        )
    )
    groups = group_publications(list(rows), unpublished_in_year=person.unpublished_in_year)
    return [row for group in groups for row in group.items]
