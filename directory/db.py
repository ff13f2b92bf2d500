"""The directory's database connection: its own engine (or the host's) and a session per
request. Helpers and services only ``flush()``; the view commits once (see CONVENTIONS)."""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import Any

from flask import Flask, current_app, g, has_request_context, request
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

#: How long (milliseconds) an SQLite write waits for another writer to finish before giving
#: up; a save that still cannot go through comes back as a conflict page with the input kept
#: (see directory.services.unit_of_work).
SQLITE_BUSY_TIMEOUT_MS = 15_000
#: How much of an SQLite file database its connections read through a memory map (bytes; the
#: file's size when smaller). Pages are then read from the operating system's cache without a
#: system call and shared by every connection and process, instead of copied into each
#: connection's own cache of 2 MB: reading the documents a search matches, or the papers of a
#: department, takes a third to half less CPU (docs/performance.md).
SQLITE_MMAP_BYTES = 256 * 1024 * 1024

#: Requests that may write: their SQLite transaction takes the write lock when it begins.
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def enable_sqlite_foreign_keys(engine: Engine) -> None:
    """Have SQLite enforce foreign keys (and so the directory's ON DELETE CASCADE) on every new
    connection of ``engine``; nothing for other databases. A host sharing its SQLite engine
    (DIRECTORY_ENGINE) calls this before the engine's first connection."""
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _foreign_keys_on(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()


def _writing_request() -> bool:
    return (
        has_request_context()
        and request.method not in _SAFE_METHODS
        and not g.get("_directory_read_only", False)
    )


def read_only_from_now() -> None:
    """The rest of this request only reads (its writes were given up): later transactions
    need not wait for SQLite's write lock."""
    g._directory_read_only = True


def _sqlite_pragmas(engine: Engine) -> None:
    """Foreign keys on, and SQLAlchemy's documented pysqlite workaround so that SAVEPOINT and
    transactional DDL behave (pysqlite otherwise manages BEGIN itself and breaks both).

    Concurrent editors: a file database runs in WAL mode (readers never wait for a writer),
    waits up to SQLITE_BUSY_TIMEOUT_MS for a lock, and the transaction of a request that may
    write begins with BEGIN IMMEDIATE. A deferred transaction that read first and then wants to
    write cannot wait for the lock (SQLite answers "database is locked" at once, to avoid a
    deadlock); one that takes the lock up front simply queues. A file database is read through
    a memory map (SQLITE_MMAP_BYTES)."""
    enable_sqlite_foreign_keys(engine)
    in_memory = engine.url.database in (None, "", ":memory:")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        if not in_memory:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute(f"PRAGMA mmap_size = {SQLITE_MMAP_BYTES}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if _writing_request() else "BEGIN")


def make_engine(url: str, **options: Any) -> Engine:
    """Create an engine for ``url`` with the settings this plugin relies on."""
    if url.startswith("sqlite") and (url.endswith(":memory:") or url in ("sqlite://", "sqlite:")):
        from sqlalchemy.pool import StaticPool

        options.setdefault("poolclass", StaticPool)
        options.setdefault("connect_args", {"check_same_thread": False})
    if not url.startswith("sqlite"):
        # A connection the server dropped (restart, failover, idle timeout) is replaced at
        # checkout instead of failing the request that draws it from the pool.
        options.setdefault("pool_pre_ping", True)
    if url.startswith("postgresql"):
        # PostgreSQL compiles a statement it estimates costly (jit_above_cost) to machine code
        # first: 70 ms for the search page's ranked statement, which then runs in 110. The
        # directory's statements are short; its own connections run without JIT.
        options.setdefault("connect_args", {}).setdefault("options", "-c jit=off")
    engine = create_engine(url, **options)
    if engine.dialect.name == "sqlite":
        _sqlite_pragmas(engine)
    return engine


class DatabaseState:
    """Per-app database state, kept in ``app.extensions["directory"]``'s state."""

    def __init__(self, app: Flask) -> None:
        self._config = app.config
        self._instance_path = app.instance_path
        self._engine: Engine | None = None
        #: The directory's sessions; the write gates of directory.services.write_gates and the
        #: search index and page-cache listeners are installed on it by the extension.
        self.sessionmaker = sessionmaker(expire_on_commit=False)

    @property
    def url(self) -> str:
        url = self._config["DIRECTORY_DATABASE_URL"]
        if url:
            return url
        Path(self._instance_path).mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{Path(self._instance_path) / 'directory.sqlite3'}"

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            shared = self._config["DIRECTORY_ENGINE"]
            if shared is not None:
                self._engine = shared() if callable(shared) else shared
            else:
                self._engine = make_engine(self.url, **self._config["DIRECTORY_ENGINE_OPTIONS"])
            if self.sessionmaker.kw.get("bind") is None:
                self.sessionmaker.configure(bind=self._engine)
        return self._engine

    def new_session(self) -> Session:
        self.engine  # noqa: B018 - binds the sessionmaker on first use
        return self.sessionmaker()

    def dispose(self) -> None:
        if self._engine is not None and self._config["DIRECTORY_ENGINE"] is None:
            self._engine.dispose()


def _state() -> DatabaseState:
    return current_app.extensions["directory"].db


def get_session() -> Session:
    """The current request's (or app context's) session."""
    session = g.get("_directory_session")
    if session is None:
        session = _state().new_session()
        g._directory_session = session
    return session


def close_session(_exc: BaseException | None = None) -> None:
    """End the request's session. It runs at teardown, after the response is made and outside
    every error handler, so it never raises: a connection the server dropped meanwhile (a
    terminated backend) cannot be rolled back, and is discarded instead of turning a finished
    response into a bare 500."""
    session = g.pop("_directory_session", None)
    if session is None:
        return
    try:
        session.close()
    except SQLAlchemyError as error:
        current_app.logger.warning("Directory session discarded at teardown: %s", error)
        with suppress(SQLAlchemyError):
            session.invalidate()
