"""The one door every write goes through.

Each request (and each command-line command) has one :class:`UnitOfWork`. Views load and
check, then call services; services change objects in the unit's session and only flush.
Changes to a profile go through a :class:`~directory.services.changes.ChangeSet` obtained
from :meth:`UnitOfWork.change_set`, which checks access, applies the approval policy and
records the history. When the request ends the unit of work runs its components and commits
once — the only ``commit()`` in the package — or rolls everything back:

1. flush, so that every change is noted;
2. the search index rewrites the documents of what changed (:mod:`directory.services.search`);
   the expertise index makes the vectors of the papers and profiles that changed
   (:mod:`directory.services.expertise.vectors`);
3. the page-cache generation moves on when a directory table was written
   (:mod:`directory.services.cache`);
4. COMMIT;
5. the after-commit actions (:meth:`UnitOfWork.after_commit`), in the order they were
   registered: whatever leaves the database — e-mail above all — runs only once the writes it
   speaks of are committed, so a failed commit sends no invitation or reminder with a dead
   link. A rollback drops them unrun.

A view never commits: every view function registered on the blueprint is wrapped by
:func:`directory.web.committing.committing`, which commits when the view returns a
success (below 400) and rolls back otherwise, so a refused or failed request leaves nothing
half-written. A command-line command uses ``with command_unit_of_work(...) as uow:``.

A write that cannot go through because other writers hold the database (SQLite's lock after
its busy timeout, PostgreSQL's serialization failure, deadlock or lock timeout) is rolled back
and raised as :class:`SaveNotCommitted`; the web layer shows it as a conflict with what the user
typed kept (:mod:`directory.web.views.editing`), never as "the database is unreachable".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flask import g
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, SessionTransaction

from directory import models as m
from directory.db import get_session
from directory.services import cache
from directory.services.changes import ChangeSet
from directory.services.expertise.vectors import update_vectors
from directory.services.identity import Viewer, current_viewer
from directory.services.search_index import update_index

#: What runs between the last flush and COMMIT, in order (each takes the session).
COMPONENTS: tuple[Callable[[Session], None], ...] = (
    update_index,
    update_vectors,
    cache.bump_generation,
)

_REQUEST_KEY = "_directory_unit_of_work"

#: PostgreSQL's "try again" states: serialization failure, deadlock, lock not available.
_BUSY_SQLSTATES = frozenset({"40001", "40P01", "55P03"})


class SaveNotCommitted(Exception):
    """Other writers kept this request's writes from going through; nothing was written."""


def is_busy(error: OperationalError) -> bool:
    """Whether ``error`` says the database is busy with other writers (retrying may work),
    rather than unreachable."""
    if getattr(error.orig, "sqlstate", None) in _BUSY_SQLSTATES:
        return True
    message = str(error.orig).lower()
    return "database is locked" in message or "database table is locked" in message


class UnitOfWork:
    """The writes of one request or command, committed once."""

    def __init__(self, session: Session, viewer: Viewer) -> None:
        self.session = session
        self.viewer = viewer
        self.commits = 0
        self._after_commit: list[Callable[[], None]] = []

    def change_set(self, person: m.Person | None, **options: Any) -> ChangeSet:
        """The changes of this unit to ``person``'s profile (see ChangeSet for options)."""
        return ChangeSet(self, person, **options)

    @property
    def has_writes(self) -> bool:
        """Whether anything was added, changed or deleted (flushed or not)."""
        session = self.session
        return bool(session.new or session.dirty or session.deleted) or cache.written(session)

    def savepoint(self) -> SessionTransaction:
        """A part of the unit that can be undone alone (a change set held for approval)."""
        return self.session.begin_nested()

    def release(self, savepoint: SessionTransaction) -> None:
        """Keep what ``savepoint`` covered (RELEASE SAVEPOINT; nothing is committed yet)."""
        if savepoint.is_active:
            savepoint.commit()

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run ``action`` once this unit's writes are committed (never if they are not). What
        an action writes is committed after it, by the unit."""
        self._after_commit.append(action)

    @property
    def has_pending_actions(self) -> bool:
        return bool(self._after_commit)

    def commit(self) -> None:
        """Run the components and commit: the one place the package commits. Then the
        after-commit actions."""
        self.session.flush()
        for component in COMPONENTS:
            component(self.session)
        self.session.commit()
        self.commits += 1
        actions, self._after_commit = self._after_commit, []
        for action in actions:
            action()
        if actions and self.has_writes:  # what the actions wrote (a record of a refusal)
            self.commit()

    def rollback(self) -> None:
        self.session.rollback()
        self._after_commit = []


def current_unit_of_work() -> UnitOfWork:
    """This request's unit of work (created on first use, with the request's session)."""
    uow = g.get(_REQUEST_KEY)
    if uow is None:
        uow = UnitOfWork(get_session(), current_viewer())
        setattr(g, _REQUEST_KEY, uow)
    return uow


@contextmanager
def command_unit_of_work(session: Session, viewer: Viewer) -> Iterator[UnitOfWork]:
    """The unit of work of a command-line command: committed at the end of the block, rolled
    back if it raises."""
    uow = UnitOfWork(session, viewer)
    try:
        yield uow
    except BaseException:
        uow.rollback()
        raise
    uow.commit()
