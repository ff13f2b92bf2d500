"""The directory's database connection: its own engine (or the host's) and a session per
request. Helpers and services only ``flush()``; the view commits once (see CONVENTIONS)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask, current_app, g
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


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


def _sqlite_pragmas(engine: Engine) -> None:
    """Foreign keys on, and SQLAlchemy's documented pysqlite workaround so that SAVEPOINT and
    transactional DDL behave (pysqlite otherwise manages BEGIN itself and breaks both)."""
    enable_sqlite_foreign_keys(engine)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN")


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
    session = g.pop("_directory_session", None)
    if session is not None:
        session.close()
