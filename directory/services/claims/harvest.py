"""The harvest run: every person with an identifier (those who asked "check now" first),
every configured source (:mod:`directory.services.harvest.sources`), the works offered to the
claim queue (:mod:`.queue`), what each run found recorded per person and source.

* One run at a time: a lock row (``HarvestLock``), inserted and committed before anything
  else; a second run finds it and skips, on every engine (no advisory lock needed, nothing
  waits on a row another transaction holds). A lock older than ``LOCK_STALE`` is a crashed
  run's and is taken over.
* Each person is one unit of work, committed on its own: a fault stops nothing else, and a
  long run's work is kept as it goes.
* A re-run that finds nothing new writes nothing: no candidate, and no run record when the
  figures are those of the last one.
* The department's policy (``DIRECTORY_HARVEST_AUTO_ACCEPT``: the identifiers whose works
  are accepted without asking) goes through the same accept as the queue's button.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from directory import models as m
from directory.services.claims.evidence import member_index, person_facts
from directory.services.claims.queue import Offering
from directory.services.harvest.sources import HarvestSettings, harvest_person, make_client
from directory.services.identity import Viewer
from directory.services.operations import claims as claim_operations
from directory.services.person_identifiers import identifiers_of
from directory.services.unit_of_work import command_unit_of_work

LOCK = "harvest"
#: A lock held longer than this is a crashed run's.
LOCK_STALE = timedelta(hours=12)


@dataclass
class SourceLine:
    """What one source did for one person (one line of the command's report)."""

    slug: str
    source: str
    fetched: int = 0
    new: int = 0
    known: int = 0
    errors: list[str] = field(default_factory=list)
    skipped: bool = False


@dataclass
class RunReport:
    lines: list[SourceLine] = field(default_factory=list)
    people: int = 0
    accepted: int = 0
    #: Why the run did nothing (another run holds the lock), if so.
    refused: str | None = None


def acquire_lock(session: Session, viewer: Viewer, holder: str) -> str | None:
    """Take the harvest's lock (committed at once, in a unit of work of its own); None when
    taken, else why not."""
    now = m.utcnow()
    try:
        with command_unit_of_work(session, viewer) as uow:
            lock = uow.session.get(m.HarvestLock, LOCK)
            if lock is not None:
                acquired = lock.acquired_at
                if acquired.tzinfo is None:
                    acquired = acquired.replace(tzinfo=now.tzinfo)
                if now - acquired < LOCK_STALE:
                    since = f"{acquired:%Y-%m-%d %H:%M} UTC"
                    return f"another harvest run ({lock.holder}) holds the lock since {since}"
                uow.session.delete(lock)  # a crashed run's
                uow.session.flush()
            uow.session.add(m.HarvestLock(name=LOCK, holder=holder[:200]))
    except IntegrityError:
        session.rollback()
        return "another harvest run took the lock a moment ago"
    return None


def release_lock(session: Session, viewer: Viewer, holder: str) -> None:
    session.rollback()
    with command_unit_of_work(session, viewer) as uow:
        uow.session.execute(
            delete(m.HarvestLock).where(
                m.HarvestLock.name == LOCK, m.HarvestLock.holder == holder[:200]
            )
        )


def people_to_harvest(session: Session, slugs: Iterable[str] = ()) -> list[m.Person]:
    """The people a run takes: those named, or every active person with an identifier;
    those who asked "check now" first."""
    stmt = select(m.Person)
    wanted = list(slugs)
    if wanted:
        stmt = stmt.where(m.Person.slug.in_(wanted))
    else:
        stmt = stmt.where(
            m.Person.active.is_(True),
            or_(m.Person.orcid.is_not(None), m.Person.dblp_pid.is_not(None),
                m.Person.openalex_id.is_not(None), m.Person.semantic_scholar_id.is_not(None)),
        )  # fmt: skip
    people = list(session.scalars(stmt.order_by(m.Person.id)))
    asked = set(session.scalars(select(m.HarvestRequest.person_id)))
    return sorted(people, key=lambda p: (p.id not in asked, p.id))


def _person_ids(person: m.Person) -> dict[str, str]:
    return {key: value for key, value in identifiers_of(person).items() if value}


def _record_run(session: Session, person: m.Person, line: SourceLine) -> None:
    """The run's figures for this person and source, unless nothing is new and the last
    record says the same."""
    last = session.scalars(
        select(m.HarvestRun)
        .where(m.HarvestRun.person_id == person.id, m.HarvestRun.source == line.source)
        .order_by(m.HarvestRun.id.desc())
        .limit(1)
    ).first()
    # Nothing new, and the source answered as last time: the last record still says it.
    if (
        last is not None
        and line.new == 0
        and (last.fetched, list(last.errors)) == (line.fetched, list(line.errors))
    ):
        return
    session.add(m.HarvestRun(
        person_id=person.id, source=line.source, fetched=line.fetched, new=line.new,
        known=line.known, errors=list(line.errors), finished_at=m.utcnow(),
    ))  # fmt: skip


def run_harvest(
    session: Session,
    viewer: Viewer,
    config: Any,
    *,
    slugs: Iterable[str] = (),
    sources: Iterable[str] = (),
    dry_run: bool = False,
    progress: Callable[[SourceLine, int, int, float | None], None] | None = None,
    fetch: Callable[..., list] = harvest_person,
) -> RunReport:
    """One harvest run (see the module's docstring). ``progress(line, done, total, eta)``
    is called after each source of each person; ``fetch`` is the sources' harvest of one
    person (``harvest_person``)."""
    report = RunReport()
    holder = f"{socket.gethostname()}:{id(report)}:{time.time():.0f}"
    refused = None if dry_run else acquire_lock(session, viewer, holder)
    if refused:
        report.refused = refused
        return report
    settings = HarvestSettings.from_config(config)
    auto = set(config.get("DIRECTORY_HARVEST_AUTO_ACCEPT") or ())
    institution = config.get("DIRECTORY_INSTITUTION_NAME")
    client = make_client(settings)
    try:
        people = people_to_harvest(session, slugs)
        index = member_index(session)
        started = time.monotonic()
        for done, person in enumerate(people, start=1):
            with command_unit_of_work(session, viewer) as uow:
                lines = _harvest_one(uow, person, settings, client, index, institution,
                                     list(sources), auto, dry_run, fetch, report)  # fmt: skip
                if dry_run:
                    uow.rollback()
            report.people += 1
            elapsed = time.monotonic() - started
            eta = elapsed / done * (len(people) - done)
            for line in lines:
                report.lines.append(line)
                if progress is not None:
                    progress(line, done, len(people), eta)
    finally:
        client.close()
        if not dry_run:
            release_lock(session, viewer, holder)
    return report


def _harvest_one(uow, person, settings, client, index, institution, only, auto, dry_run,
                 fetch, report) -> list[SourceLine]:  # fmt: skip
    session = uow.session
    outcomes = fetch(_person_ids(person), settings, client, only)
    offering = Offering(session, person, person_facts(session, person, institution), index)
    lines = []
    for outcome in outcomes:
        line = SourceLine(person.slug, outcome.source, errors=list(outcome.errors),
                          skipped=outcome.skipped)  # fmt: skip
        offered = offering.offer(outcome.works, dry_run=dry_run)
        line.fetched, line.new, line.known = offered.fetched, offered.new, offered.known
        for candidate in offered.candidates:
            if candidate.found_by in auto:
                claim_operations.accept(uow, person, candidate, decided_by=claim_operations.POLICY)
                report.accepted += 1
        if not dry_run and not outcome.skipped:
            _record_run(session, person, line)
        lines.append(line)
    request = session.get(m.HarvestRequest, person.id)
    if request is not None and not dry_run:
        session.delete(request)
    session.flush()
    return lines


@dataclass(frozen=True)
class StatusRow:
    person: m.Person
    source: str
    run: m.HarvestRun
    pending: int


def harvest_status(session: Session, limit: int = 500) -> dict[str, Any]:
    """The admin's harvest status: each person's last run per source (faults first), the
    queue's pending count per person, the lock, and the "check now" requests waiting."""
    latest = (
        select(m.HarvestRun.person_id, m.HarvestRun.source, func.max(m.HarvestRun.id).label("id"))
        .group_by(m.HarvestRun.person_id, m.HarvestRun.source)
        .subquery()
    )
    runs = list(session.scalars(
        select(m.HarvestRun).join(latest, m.HarvestRun.id == latest.c.id)
        .order_by(m.HarvestRun.finished_at.desc(), m.HarvestRun.id.desc()).limit(limit)
    ))  # fmt: skip
    people = {p.id: p for p in session.scalars(
        select(m.Person).where(m.Person.id.in_({r.person_id for r in runs})))}  # fmt: skip
    pending = dict(session.execute(
        select(m.ClaimCandidate.person_id, func.count())
        .where(m.ClaimCandidate.state == m.CLAIM_PENDING).group_by(m.ClaimCandidate.person_id)
    ).all())  # fmt: skip
    rows = [StatusRow(people[r.person_id], r.source, r, pending.get(r.person_id, 0))
            for r in runs if r.person_id in people]  # fmt: skip
    rows.sort(key=lambda row: not row.run.errors)
    return {
        "rows": rows,
        "lock": session.get(m.HarvestLock, LOCK),
        "requests": session.scalar(select(func.count()).select_from(m.HarvestRequest)),
        "failing": sum(1 for row in rows if row.run.errors),
    }
