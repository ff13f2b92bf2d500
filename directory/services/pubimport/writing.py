"""Writing a plan in the caller's transaction (:func:`apply_plan`; it only flushes): new papers
in bulk (:mod:`.bulk`), existing ones linked and completed through the ORM, versions linked,
an ORCID record's profile entries and person data written. All or nothing: a plan that may
not be written raises :class:`.decisions.PlanRefused` before anything is."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.batch import collection_paused
from directory.services.cache import invalidate
from directory.services.claims.queue import offer_to_coauthors
from directory.services.expertise import vectors as expertise_vectors
from directory.services.pubimport.bulk import create_publications
from directory.services.pubimport.decisions import PlanRefused, check_decisions
from directory.services.pubimport.plan import ImportPlan, PersonPlan, PlannedEntry
from directory.services.pubimport.planning import FILL_FIELDS, enrichment
from directory.services.publication_merge import link_versions
from directory.services.publications import AuthorIndex, PublicationIndex
from directory.services.search_index import note_written

#: How many new papers one bulk INSERT round writes (and the progress bar advances by).
CHUNK = 250


@dataclass
class ImportSummary:
    created: int = 0
    linked: int = 0
    updated: int = 0
    skipped: int = 0
    versions: int = 0
    records: int = 0
    #: What the import wrote, for its history record (and for undoing it).
    created_ids: list[int] = field(default_factory=list)
    linked_ids: list[int] = field(default_factory=list)
    #: Profile entries created from an ORCID record, as (kind, id).
    record_refs: list[tuple[str, int]] = field(default_factory=list)
    #: What the record's person data changed on the profile ("biography", "2 links").
    person: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        parts = [f"{self.created} new paper{'s' if self.created != 1 else ''}"]
        if self.linked:
            parts.append(f"{self.linked} linked to existing department papers")
        if self.updated:
            plural = "s" if self.updated != 1 else ""
            parts.append(f"{self.updated} existing paper{plural} completed")
        if self.versions:
            parts.append(f"{self.versions} linked as versions")
        if self.records:
            parts.append(f"{self.records} profile entr{'y' if self.records == 1 else 'ies'}")
        parts.extend(self.person)
        if self.skipped:
            parts.append(f"{self.skipped} skipped")
        return ", ".join(parts)


def _next_position(session: Session, model: Any, column: Any, person_id: int) -> int:
    current = session.scalar(select(func.max(model.position)).where(column == person_id))
    return 0 if current is None else current + 1


def _link_existing(
    session: Session, pub: m.Publication, entry: PlannedEntry, owner_id: int, position: int
) -> bool:
    """Attach an existing paper to the owner's profile, filling what it lacked. Returns
    whether the paper itself changed."""
    fill = entry.fill
    changed = False
    for name in (*FILL_FIELDS, "bibtex", "citation_key"):
        if name in fill:
            setattr(pub, name, fill[name])
            changed = True
    for link in fill.get("links", []):
        pub.links.append(
            m.PublicationLink(
                kind=link["kind"], url=link["url"], label=link.get("label"),
                position=len(pub.links),
            )
        )  # fmt: skip
        changed = True
    for name in fill.get("awards", []):
        pub.awards.append(m.PublicationAward(name=name, position=len(pub.awards)))
        changed = True
    for authorship in pub.authorships:
        person_id = fill.get("author_links", {}).get(authorship.position)
        if person_id is not None:
            authorship.person_id = person_id
            authorship.suggested_person_id = None
            changed = True
        suggested = fill.get("author_suggestions", {}).get(authorship.position)
        if suggested is not None and authorship.person_id is None:
            authorship.suggested_person_id = suggested
            changed = True
    row = session.get(m.ProfilePublication, (owner_id, pub.id))
    if row is None:
        session.add(
            m.ProfilePublication(
                person_id=owner_id, publication_id=pub.id,
                selected=bool((entry.data or {}).get("selected")), position=position,
            )
        )  # fmt: skip
    elif fill.get("selected"):
        row.selected = True
    session.flush()
    return changed


@collection_paused()  # see formats/batch.py
def apply_plan(
    session: Session,
    plan: ImportPlan,
    person: m.Person,
    decisions: dict[int, str] | None = None,
    *,
    skip_invalid: bool = False,
    progress: Callable[[int], None] | None = None,
    replace: Iterable[str] = (),
) -> ImportSummary:
    """Write ``plan`` (with a decision for every possible duplicate) in the caller's
    transaction. Raises :class:`PlanRefused`, having written nothing, if it may not be;
    entries that cannot be imported are left out only when ``skip_invalid``. ``replace``
    names the profile fields holding text the record's may change (``"bio"``,
    ``"interests"``: the person opted in on the preview)."""
    decisions = decisions or {}
    messages = check_decisions(plan, decisions, skip_invalid=skip_invalid)
    if messages:
        raise PlanRefused(messages)
    step = progress or (lambda _n: None)
    summary = ImportSummary()
    position = _next_position(
        session, m.ProfilePublication, m.ProfilePublication.person_id, person.id
    )
    work = _sort_entries(plan, decisions, summary)
    entry_pub: dict[int, int] = {}  # entry index -> paper it ended on
    _create_new_papers(session, work.create, person, position, summary, entry_pub, step)
    _link_existing_papers(
        session, work.link, person, position + len(work.create), summary, entry_pub, step
    )
    _link_new_versions(session, work.versions, summary, entry_pub)
    _create_records(session, plan, person, summary)
    summary.person = _apply_person(session, plan.person, person, replace)
    session.flush()
    return summary


@dataclass
class _Work:
    """A plan's entries sorted by what writing does with them, each list in file order."""

    #: Entries written as new papers.
    create: list[PlannedEntry] = field(default_factory=list)
    #: (entry, paper it is linked to: an existing paper's id, or an earlier entry's
    #: negative index).
    link: list[tuple[PlannedEntry, int]] = field(default_factory=list)
    #: (entry created as new, the paper or earlier entry it is a version of).
    versions: list[tuple[PlannedEntry, int]] = field(default_factory=list)


def _sort_entries(plan: ImportPlan, decisions: dict[int, str], summary: ImportSummary) -> _Work:
    """What to do with each entry, by its status and (for a possible duplicate) the
    person's decision; the entries skipped are counted in ``summary``."""
    work = _Work()
    for entry in plan.entries:
        if entry.status == "new":
            work.create.append(entry)
        elif entry.status == "department" or (entry.status == "on_profile" and entry.fill):
            work.link.append((entry, entry.target_id))
        elif entry.status == "duplicate":
            action, _, target = decisions[entry.index].partition(":")
            if action == "new":
                work.create.append(entry)
            elif action == "version":
                work.create.append(entry)
                work.versions.append((entry, int(target)))
            elif action == "link":
                work.link.append((entry, int(target)))
            else:
                summary.skipped += 1
        elif entry.status in ("repeat", "error", "not_mine"):
            summary.skipped += 1
    return work


def _create_new_papers(
    session: Session, entries: list[PlannedEntry], person: m.Person, position: int,
    summary: ImportSummary, entry_pub: dict[int, int], step: Callable[[int], None],
) -> None:  # fmt: skip
    """New papers, in bulk and in file order, :data:`CHUNK` at a time."""
    for start in range(0, len(entries), CHUNK):
        chunk = entries[start : start + CHUNK]
        ids = create_publications(session, chunk, person.id, position + start)
        for entry, pid in zip(chunk, ids, strict=True):
            entry_pub[entry.index] = pid
        summary.created += len(chunk)
        summary.created_ids.extend(ids)
        step(len(chunk))
    session.flush()
    # The department co-authors its names link to are asked, not listed (services.claims).
    offer_to_coauthors(session, summary.created_ids)
    # Written below the ORM: tell the search index and the page cache.
    note_written(session, "publication", summary.created_ids)
    expertise_vectors.note_written(session, "publication", summary.created_ids)
    invalidate(session)


def _link_existing_papers(
    session: Session, to_link: list[tuple[PlannedEntry, int]], person: m.Person, position: int,
    summary: ImportSummary, entry_pub: dict[int, int], step: Callable[[int], None],
) -> None:  # fmt: skip
    """Existing papers linked to the profile and completed (and "same as an earlier entry"
    decisions, which write nothing)."""
    touched: list[m.Publication] = []
    indexes: list[Any] = []  # built once, only if a duplicate was decided "same paper"
    for offset, (entry, target) in enumerate(to_link):
        if target < 0:
            entry_pub[entry.index] = entry_pub.get(-target - 1, 0)
            summary.skipped += 1
            step(1)
            continue
        pub = session.get(m.Publication, target)
        if pub is None:
            raise PlanRefused(["A paper this import links to was just deleted; preview again."])
        if entry.status == "duplicate":
            # Decided "same paper" on the preview: fill in like a DOI match would.
            if not indexes:
                decided = [e.data for e, _ in to_link if e.status == "duplicate"]
                indexes.extend((PublicationIndex(session, decided), AuthorIndex.load(session)))
            entry.changes, entry.fill = enrichment(
                pub, entry.data, entry.raw, *indexes, person.id, False, None
            )
        on_profile_before = session.get(m.ProfilePublication, (person.id, pub.id)) is not None
        if _link_existing(session, pub, entry, person.id, position + offset):
            summary.updated += 1
        if not on_profile_before:
            summary.linked += 1
            summary.linked_ids.append(pub.id)
        entry_pub[entry.index] = pub.id
        touched.append(pub)
        step(1)
    offer_to_coauthors(session, [pub.id for pub in touched])


def _link_new_versions(
    session: Session, versions: list[tuple[PlannedEntry, int]], summary: ImportSummary,
    entry_pub: dict[int, int],
) -> None:  # fmt: skip
    """Entries decided "a different version of": the preprint is linked to the published paper."""
    for entry, target in versions:
        other_id = entry_pub.get(-target - 1) if target < 0 else target
        if not other_id:
            continue
        mine = session.get(m.Publication, entry_pub[entry.index])
        other = session.get(m.Publication, other_id)
        if mine.type == "preprint" or mine.status == "preprint":
            link_versions(session, mine, other)
        else:
            link_versions(session, other, mine)
        summary.versions += 1


def _create_records(
    session: Session, plan: ImportPlan, person: m.Person, summary: ImportSummary
) -> None:
    """The ORCID record's profile entries the profile does not have yet."""
    for record in plan.new_records:
        model = m.ENTRY_MODELS[record.kind]
        created = model(
            owner_id=person.id,
            position=_next_position(session, model, model.owner_id, person.id),
            **record.data,
        )
        session.add(created)
        session.flush()
        summary.records += 1
        summary.record_refs.append((record.kind, created.id))


def _apply_person(
    session: Session, plan: PersonPlan, person: m.Person, replace: Iterable[str]
) -> list[str]:
    """Write what ``plan`` does to the profile's own fields; the names of what changed."""
    replace = set(replace)
    written = []
    if plan.bio_status == "new" or (plan.bio_status == "replace" and "bio" in replace):
        person.bio = plan.bio
        written.append("biography")
    if plan.interests_status == "new" or (
        plan.interests_status == "add" and "interests" in replace
    ):
        person.interests = plan.interests_after
        written.append("research interests")
    if plan.areas:
        ids = [area_id for area_id, _name in plan.areas]
        person.areas = [
            *person.areas,
            *session.scalars(select(m.ResearchArea).where(m.ResearchArea.id.in_(ids))),
        ]
        written.append(f"{len(ids)} research area{'s' if len(ids) != 1 else ''}")
    new_links = plan.new_links
    for link in new_links:
        person.links.append(
            m.PersonLink(kind=link.kind, url=link.url, label=link.label, position=len(person.links))
        )
    if new_links:
        written.append(f"{len(new_links)} link{'s' if len(new_links) != 1 else ''}")
    return written
