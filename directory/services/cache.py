"""The page cache's generation: what keeps cached pages correct across processes and hosts.

* One row, ``directory_cache_state``, holds a *generation* counter. Every transaction of the
  directory's sessionmaker that writes a directory row (ORM flush or bulk ``update``/``delete``)
  increments it just before COMMIT, in the same transaction as the write. Any process sees the
  new generation exactly when it sees the new data.
* A cacheable request costs one indexed ``SELECT`` of the generation (:class:`GenerationReader`
  reads it outside any transaction); the page store empties itself on a newer one.

The pages themselves, and which requests and responses may be cached, are the web layer's
(:mod:`directory.web.page_cache`, the ``@cached_page`` decorator).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import event, select, update
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from directory.models import CacheState

STATE_ROW_ID = 1
_DIRTY = "directory_cache_dirty"
_BUMPED = "directory_cache_bumped"


# ----------------------------------------------------------------------------- invalidation


def _is_directory_table(table: Any) -> bool:
    name = getattr(table, "name", "") or ""
    return name.startswith("directory_") and name != CacheState.__tablename__


def invalidate(session: Session) -> None:
    """Mark ``session``'s transaction as a directory write, for code that changes directory
    tables with statements the ORM events don't see (a bulk import's driver-level INSERTs, a
    host's raw SQL). The generation moves on at commit."""
    session.info[_DIRTY] = True


def written(session: Session) -> bool:
    """Whether ``session``'s transaction has written a directory table so far."""
    return bool(session.info.get(_DIRTY))


def bump_generation(session: Session) -> None:
    """The unit of work's cache component: move the generation on, in the committing
    transaction, when it wrote a directory table. Last before COMMIT, so the row lock on the
    state row is held for the shortest time. (A shared page cache's generation moves on after
    the COMMIT: see :func:`install_invalidation`.)"""
    if session.info.pop(_DIRTY, False):
        session.info[_BUMPED] = True
        session.execute(
            update(CacheState)
            .where(CacheState.id == STATE_ROW_ID)
            .values(generation=CacheState.generation + 1)
            .execution_options(synchronize_session=False)
        )


def install_invalidation(
    maker: sessionmaker, after_write: Callable[[], None] | None = None
) -> None:
    """Have every session of ``maker`` note when it writes a directory table. The unit of work
    bumps the generation before it commits; a commit made outside it (a host's own code on our
    session) bumps it too. ``after_write`` (a shared page cache's invalidation) is called after
    each COMMIT of such a transaction."""

    @event.listens_for(maker, "after_flush")
    def _after_flush(session: Session, _context: Any) -> None:
        changed = [*session.new, *session.deleted]
        changed += [obj for obj in session.dirty if session.is_modified(obj)]
        if any(_is_directory_table(getattr(type(obj), "__table__", None)) for obj in changed):
            session.info[_DIRTY] = True

    @event.listens_for(maker, "do_orm_execute")
    def _on_execute(state: Any) -> None:
        writes = state.is_insert or state.is_update or state.is_delete
        if writes and _is_directory_table(getattr(state.statement, "table", None)):
            state.session.info[_DIRTY] = True

    @event.listens_for(maker, "before_commit")
    def _before_commit(session: Session) -> None:
        # Also called when a savepoint is released: only the real COMMIT counts. Flush first
        # so that this flush's writes count (a no-op after the unit of work's own call).
        if session.in_nested_transaction():
            return
        session.flush()
        bump_generation(session)

    @event.listens_for(maker, "after_commit")
    def _after_commit(session: Session) -> None:
        if session.info.pop(_BUMPED, False) and after_write is not None:
            after_write()

    @event.listens_for(maker, "after_transaction_end")
    def _after_transaction_end(session: Session, transaction: Any) -> None:
        if transaction.parent is None:
            session.info.pop(_DIRTY, None)
            session.info.pop(_BUMPED, None)


#: The statement that reads the generation.
GENERATION = select(CacheState.__table__.c.generation).where(
    CacheState.__table__.c.id == STATE_ROW_ID
)


def current_generation(session: Session) -> int | None:
    """The committed generation, or None if the state row is missing (then nothing is cached).
    A Core statement on the session's connection: a cache hit should cost little more than
    this one primary-key lookup."""
    return session.connection().execute(GENERATION).scalar()


class GenerationReader:
    """Reads the generation on connections of its own, outside any transaction: a cache hit
    then costs one statement and one round trip (no BEGIN/ROLLBACK, no pool pre-ping). The
    connections are taken from the engine once, detached from its pool and kept (at most
    ``keep``) for the next hits; one that fails is dropped and the read falls back to the
    engine's pool. Databases whose driver cannot read outside a transaction use the pool."""

    def __init__(self, keep: int = 4) -> None:
        self.keep = keep
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._sql: str | None = None

    def read(self, engine: Any) -> int | None:
        if self._sql is None:
            self._sql = str(GENERATION.compile(engine, compile_kwargs={"literal_binds": True}))
        if not _reads_outside_transactions(engine):
            with engine.connect() as connection:
                return connection.execute(GENERATION).scalar()
        with self._lock:
            dbapi = self._idle.pop() if self._idle else None
        try:
            if dbapi is None:
                dbapi = _detached_autocommit(engine)
                if not event.contains(engine, "engine_disposed", self._on_dispose):
                    event.listen(engine, "engine_disposed", self._on_dispose)
            cursor = dbapi.cursor()
            cursor.execute(self._sql)
            row = cursor.fetchone()
            cursor.close()
        except Exception:
            if dbapi is not None:
                _close_quietly(dbapi)
            with engine.connect() as connection:
                return connection.execute(GENERATION).scalar()
        # An engine without a pool (NullPool: every use opens the database anew) keeps none.
        keep = 0 if isinstance(engine.pool, NullPool) else self.keep
        with self._lock:
            if len(self._idle) < keep:
                self._idle.append(dbapi)
                dbapi = None
        if dbapi is not None:
            _close_quietly(dbapi)
        return row[0] if row else None

    def _on_dispose(self, _engine: Any) -> None:
        self.close()  # disposing the engine closes its connections, these included

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for dbapi in idle:
            _close_quietly(dbapi)


def _reads_outside_transactions(engine: Any) -> bool:
    """SQLite files (pysqlite runs a SELECT without BEGIN when isolation_level is None, as the
    directory's engines set it) and PostgreSQL through psycopg (autocommit); an in-memory
    SQLite database has one connection, which must stay in the pool."""
    if engine.dialect.name == "sqlite":
        return engine.url.database not in (None, "", ":memory:")
    return engine.dialect.name == "postgresql" and engine.dialect.driver in ("psycopg", "psycopg2")


def _detached_autocommit(engine: Any) -> Any:
    fairy = engine.raw_connection()
    dbapi = fairy.driver_connection
    fairy.detach()  # ours from now on: the pool neither resets nor counts it
    if engine.dialect.name == "postgresql":
        dbapi.rollback()
        dbapi.autocommit = True
    elif dbapi.isolation_level is not None:
        dbapi.isolation_level = None
    return dbapi


def _close_quietly(dbapi: Any) -> None:
    with contextlib.suppress(Exception):  # a broken connection is being dropped anyway
        dbapi.close()
