"""Publication imports (BibTeX, ORCID) through the write path.

The web import and ``flask directory import-bibtex`` / ``import-orcid`` both end here, inside
a change set of the profile imported into:

* the file is parsed and planned against the database (:func:`plan_source`);
* if the member's changes need approval, nothing is written: the import waits as one
  proposal holding the file and the duplicate decisions, and an approver's "approve" plans it
  again against the directory as it is then and writes it (:func:`apply_group`);
* otherwise :func:`directory.services.pubimport.apply_plan` writes it in bulk, and one history
  record holds what it wrote (the new papers, the papers linked, the profile entries), which
  a revert takes off the profile again (:func:`revert_group`).

The history's import kind (:mod:`directory.services.change_kinds`) applies, undoes and shows
an import with :func:`apply_group`, :func:`revert_group` and :func:`display_rows`. As those run
inside a change set, this module sits below it and takes it as
:class:`directory.services.kinds.Changes`.

The search index and the page cache learn about the bulk-written papers from
:mod:`directory.services.pubimport` itself, so an imported paper is found by search as soon
as the unit of work commits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.bibtex.parse import parse_bibtex
from directory.formats.bibtex.results import BibtexProblem, BibtexTooLarge
from directory.formats.orcid import parse_orcid_record
from directory.models.vocabularies import N_
from directory.services.errors import CannotApply
from directory.services.kinds import IMPORT, PERSON, PUBLICATION, Changes
from directory.services.pubimport.decisions import PlanRefused, check_decisions
from directory.services.pubimport.plan import ImportPlan
from directory.services.pubimport.planning import plan_import
from directory.services.pubimport.writing import ImportSummary, apply_plan
from directory.services.snapshots import apply_snapshot

if TYPE_CHECKING:
    from directory.models import ChangeRecord, PendingChange
#: How many paper titles a history or approval row lists before "and N more".
SHOWN_TITLES = 50

FORMAT_NAMES = {"bibtex": "BibTeX", "orcid": "ORCID"}


def plan_source(
    session: Session, person: m.Person, kind: str, source: str | bytes, max_bytes: int,
    base_url: str | None = None,
) -> ImportPlan:  # fmt: skip
    """Parse ``source`` ("bibtex" or "orcid") and plan it against the database (no writes).
    A file over the size limit gives a plan with that one error. ``base_url`` is the
    address relative links of the file (al-folio's ``pdf = {p24.pdf}``) are resolved by."""
    try:
        if kind == "orcid":
            record = parse_orcid_record(source, person.full_name, max_bytes=max_bytes)
            return plan_import(
                session, person, record.entries, record.problems, source="orcid",
                records=record.records, person_data=record.person,
            )  # fmt: skip
        result = parse_bibtex(source, max_bytes=max_bytes)
    except BibtexTooLarge as exc:
        return plan_import(session, person, [], [BibtexProblem(None, None, str(exc))])
    return plan_import(session, person, result.entries, result.problems, base_url=base_url)


def _planned_summary(plan: ImportPlan, filename: str | None) -> str:
    counts = plan.counts
    where = f" from {filename}" if filename else ""
    return (
        f"Import{where}: {counts['new']} new, {counts['department']} department papers, "
        f"{counts['duplicate']} possible duplicates"
        + (f", {len(plan.new_records)} profile entries" if plan.records else "")
        + (f", {counts['error']} that cannot be imported left out" if counts["error"] else "")
    )


def import_plan(
    changes: Changes,
    plan: ImportPlan,
    *,
    kind: str,
    source: str,
    filename: str | None,
    decisions: dict[int, str],
    skip_invalid: bool = False,
    base_url: str | None = None,
    progress: Callable[[int], None] | None = None,
    replace: Iterable[str] = (),
) -> tuple[str, ImportSummary | None]:
    """Import ``plan`` into the change set's profile. Returns the change set's outcome and,
    when written, what was written; raises PlanRefused (nothing written) if it may not be.
    ``skip_invalid`` leaves out the entries that cannot be imported (else they refuse it);
    ``replace`` names the profile fields with text of their own the record's biography or
    keywords may change (the person opted in on the preview)."""
    replace = sorted(set(replace) & set(plan.person.optional))
    messages = check_decisions(plan, decisions, skip_invalid=skip_invalid)
    if messages:
        raise PlanRefused(messages)
    if changes.held:
        proposal = {
            "format": kind,
            "filename": filename,
            "source": source,
            "decisions": {str(k): v for k, v in decisions.items()},
            "skip_invalid": skip_invalid,
            "base_url": base_url,
            "replace": replace,
        }
        changes.group(IMPORT, IMPORT, _planned_summary(plan, filename), proposal)
        return changes.finish(), None
    summary = _write(changes, plan, decisions, skip_invalid, replace, progress)
    _record(changes, summary, kind, filename)
    return changes.finish(), summary


def _write(
    changes: Changes, plan: ImportPlan, decisions: dict[int, str], skip_invalid: bool,
    replace: Iterable[str], progress: Callable[[int], None] | None = None,
) -> ImportSummary:  # fmt: skip
    """Write the plan. A change the record's person data makes to the profile's own fields
    (biography, interests, areas, links) is a change to the person, recorded in the history
    with its before and after like an edit of the profile form (and undone the same way)."""
    if plan.person.writes(replace):
        changes.update(PERSON, changes.person)
    return apply_plan(
        changes.session, plan, changes.person, decisions, skip_invalid=skip_invalid,
        progress=progress, replace=replace,
    )  # fmt: skip


def _record(changes: Changes, summary: ImportSummary, kind: str, filename: str | None) -> None:
    where = f" from {filename}" if filename else ""
    changes.group(
        IMPORT,
        IMPORT,
        f"{FORMAT_NAMES.get(kind, kind)} import{where}: {summary}",
        {
            "format": kind,
            "filename": filename,
            "created": summary.created_ids,
            "linked": summary.linked_ids,
            "records": [list(ref) for ref in summary.record_refs],
        },
    )


def apply_group(changes: Changes, pending: PendingChange) -> None:
    """Carry out an approved import: plan the stored file again against the directory as it
    is now and write it, or refuse if it can no longer be written as proposed."""
    proposal = pending.proposed or {}
    kind = proposal.get("format", "bibtex")
    source = proposal.get("source", "")
    # The file passed the size limit when it was uploaded.
    plan = plan_source(changes.session, changes.person, kind, source, len(source.encode()) + 1,
                       proposal.get("base_url"))  # fmt: skip
    decisions = {int(k): v for k, v in (proposal.get("decisions") or {}).items()}
    skip_invalid = bool(proposal.get("skip_invalid"))
    if check_decisions(plan, decisions, skip_invalid=skip_invalid):
        raise CannotApply(
            "The department's papers changed since this import was proposed; the author "
            "should import the file again."
        )
    summary = _write(changes, plan, decisions, skip_invalid, proposal.get("replace") or ())
    _record(changes, summary, kind, proposal.get("filename"))


def revert_group(changes: Changes, record: ChangeRecord) -> None:
    """Undo an import: its new papers are deleted (kept, and only taken off this profile,
    where a co-author's profile now lists them too), the papers it linked are taken off the
    profile, and the profile entries it created are deleted. Each is recorded."""
    session, person = changes.session, changes.person
    after = record.after or {}
    for pub_id in [*after.get("created", []), *after.get("linked", [])]:
        pub = session.get(m.Publication, pub_id)
        holders = set(
            session.scalars(
                select(m.ProfilePublication.person_id).where(
                    m.ProfilePublication.publication_id == pub_id
                )
            )
        )
        if pub is None or person.id not in holders:
            continue
        if pub_id in after.get("created", []) and holders == {person.id}:
            changes.delete(PUBLICATION, pub)
        else:
            changes.update(PUBLICATION, pub)
            apply_snapshot(session, PUBLICATION, pub, {"listing": None}, person.id)
    for kind, entry_id in after.get("records", []):
        entry = session.get(m.ENTRY_MODELS[kind], entry_id)
        if entry is not None and entry.owner_id == person.id:
            changes.delete(kind, entry)


def _titles_row(label: str, titles: list[str], total: int | None = None) -> dict[str, object]:
    """A row listing the first titles of ``total`` (default: all of ``titles``)."""
    total = len(titles) if total is None else total
    shown = titles[:SHOWN_TITLES]
    if total > len(shown):
        shown.append(f"… and {total - len(shown)} more")
    return {"field": label.lower(), "label": label, "before": None, "after": shown}


def display_rows(session: Session, state: dict | None) -> list[dict[str, object]]:
    """What an import's history record or proposal holds, for the history and the approval
    queue: the file and the papers (a proposal's from its file, a record's from what it
    wrote), not the raw file or lists of ids."""
    state = state or {}
    rows: list[dict[str, object]] = []
    if state.get("filename"):
        rows.append({"field": "file", "label": N_("File"), "before": None,
                     "after": state["filename"]})  # fmt: skip
    if "source" in state:  # a proposal: what approving would import
        person = None
        try:
            if state.get("format") == "orcid":
                record = parse_orcid_record(state["source"], "", max_bytes=1 << 30)
                entries, person = record.entries, record.person
            else:
                entries = parse_bibtex(state["source"]).entries
        except BibtexTooLarge:
            entries = []
        rows.append(
            _titles_row(N_("Papers"), [e.data.get("title") or "(no title)" for e in entries])
        )
        if person:
            # What the record says about the person (written as the plan says on approval).
            profile = []
            if person.biography:
                replacing = "bio" in (state.get("replace") or ())
                profile.append(
                    f"Biography ({len(person.biography)} characters"
                    + (", replacing the profile's)" if replacing else ", if the profile has none)")
                )
            if person.keywords:
                profile.append(f"Keywords: {', '.join(person.keywords)}")
            profile.extend(f"Link: {u.name + ' ' if u.name else ''}{u.url}" for u in person.urls)
            rows.append({"field": "profile", "label": N_("Profile"), "before": None,
                         "after": profile})  # fmt: skip
        return rows
    for key, label in (("created", N_("New papers")), ("linked", N_("Papers linked"))):
        ids = state.get(key) or []
        if ids:
            found = dict(
                session.execute(
                    select(m.Publication.id, m.Publication.title).where(
                        m.Publication.id.in_(ids[: SHOWN_TITLES + 1])
                    )
                ).all()
            )
            titles = [found.get(i, "(since deleted)") for i in ids[:SHOWN_TITLES]]
            rows.append(_titles_row(label, titles, len(ids)))
    if state.get("records"):
        rows.append({"field": "records", "label": "Profile entries", "before": None,
                     "after": len(state["records"])})  # fmt: skip
    return rows
