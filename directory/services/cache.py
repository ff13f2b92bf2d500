"""A page cache for anonymous GETs of public pages, correct across processes and hosts.

How it stays correct:

* One row, ``directory_cache_state``, holds a *generation* counter. Every transaction of the
  directory's sessionmaker that writes a directory row (ORM flush or bulk ``update``/``delete``)
  increments it just before COMMIT, in the same transaction as the write. Any process sees the
  new generation exactly when it sees the new data.
* A cacheable request costs one indexed ``SELECT`` of the generation; the rendered page is kept
  per process under (URL, generation, today's date, settings). A newer generation empties the
  store, so no process serves a page older than the last committed write.
* ``DIRECTORY_CACHE_SECONDS`` bounds the age of an entry, for changes that are not writes (a
  host editing our tables with raw SQL; see :func:`invalidate`); today's date in the key makes
  date-based changes (a recruiting notice expiring) show the next day at the latest.

Only anonymous ``GET``/``HEAD`` requests without pending flash messages are served from or stored
in the cache, and only 200 responses that set no cookie and rendered no CSRF token.

A view opts in with one line::

    @blueprint.route("/people/<slug>")
    @cached_page
    def profile(slug): ...
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from flask import Flask, Response, current_app, g, request, session
from sqlalchemy import Connection, event, select, update
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from directory import i18n
from directory.models import CacheState
from directory.services.identity import host_identity_key

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


_GENERATION = select(CacheState.__table__.c.generation).where(
    CacheState.__table__.c.id == STATE_ROW_ID
)


def current_generation(session: Session) -> int | None:
    """The committed generation, or None if the state row is missing (then nothing is cached).
    A Core statement on the session's connection: a cache hit should cost little more than
    this one primary-key lookup."""
    return session.connection().execute(_GENERATION).scalar()


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
            self._sql = str(_GENERATION.compile(engine, compile_kwargs={"literal_binds": True}))
        if not _reads_outside_transactions(engine):
            with engine.connect() as connection:
                return connection.execute(_GENERATION).scalar()
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
                return connection.execute(_GENERATION).scalar()
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


def _read_generation() -> int | None:
    """The generation for this request, without an ORM session when the request has none yet
    (a cache hit needs none): outside any transaction (:class:`GenerationReader`), or on the
    connection the sessionmaker is bound to (the test suite's)."""
    session = g.get("_directory_session")
    if session is not None:
        return current_generation(session)
    state = current_app.extensions["directory"]
    bind = state.db.sessionmaker.kw.get("bind") or state.db.engine
    if isinstance(bind, Connection):
        return bind.execute(_GENERATION).scalar()
    return state.generations.read(bind)


# ----------------------------------------------------------------------------- page store


@dataclass(frozen=True)
class CachedResponse:
    body: bytes
    status: int
    headers: tuple[tuple[str, str], ...]
    stored_at: float
    #: The body compressed once when stored, for clients that accept gzip (every browser):
    #: a hit then moves a tenth of the bytes and costs no compression work.
    gzipped: bytes | None = None
    #: The entity tag of the page (the same for both encodings: they decode to one body).
    etag: str = ""
    #: The full header lists of the two answers, built once when the page is stored.
    plain_headers: tuple[tuple[str, str], ...] = ()
    gzip_headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def build(
        cls, body: bytes, status: int, headers: list[tuple[str, str]], mimetype: str | None
    ) -> CachedResponse:
        gzipped = _compress(body, mimetype)
        etag = f'"{hashlib.blake2b(body, digest_size=12).hexdigest()}"'
        kept = [(k, v) for k, v in headers if k not in _SET_ON_HIT]
        common = [*kept, ("ETag", etag), ("Vary", "Accept-Encoding"), ("X-Directory-Cache", "hit")]
        plain = (*common, ("Content-Length", str(len(body))))
        zipped = ()
        if gzipped is not None:
            zipped = (
                *common,
                ("Content-Encoding", "gzip"),
                ("Content-Length", str(len(gzipped))),
            )
        return cls(body, status, tuple(headers), time.monotonic(), gzipped, etag, plain, zipped)

    @property
    def size(self) -> int:
        return len(self.body) + len(self.gzipped or b"")

    def to_response(self) -> Response:
        if request.if_none_match.contains(self.etag.strip('"')):
            # The client has this page: 304, no body (RFC 9110 15.4.5).
            headers = [(k, v) for k, v in self.plain_headers if k in _ON_NOT_MODIFIED]
            return Response(status=304, headers=headers)
        if self.gzipped is not None and "gzip" in request.accept_encodings:
            return Response(self.gzipped, status=self.status, headers=self.gzip_headers)
        return Response(self.body, status=self.status, headers=self.plain_headers)


#: Headers a stored page's answers set themselves (not copied from the rendered response).
_SET_ON_HIT = frozenset({"Content-Length", "Content-Encoding", "ETag", "Vary", "X-Directory-Cache"})
#: What a 304 repeats of the full answer.
_ON_NOT_MODIFIED = frozenset({"ETag", "Vary", "Cache-Control", "Expires", "X-Directory-Cache"})


#: Bodies smaller than this are not worth compressing.
GZIP_MIN_BYTES = 1024


def _compress(body: bytes, mimetype: str | None) -> bytes | None:
    textual = mimetype and (mimetype.startswith("text/") or mimetype.endswith(("json", "xml")))
    if not textual or len(body) < GZIP_MIN_BYTES:
        return None
    return gzip.compress(body, compresslevel=6, mtime=0)


class PageStore:
    """Rendered pages of one app in one process: least recently used first out, bounded in
    bytes, emptied whenever a newer generation is seen."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple, CachedResponse] = OrderedDict()
        self._bytes = 0
        self._generation: int | None = None

    def _observe(self, generation: int) -> None:
        if self._generation is None or generation > self._generation:
            self._entries.clear()
            self._bytes = 0
            self._generation = generation

    def get(self, key: tuple, generation: int, max_age: float) -> CachedResponse | None:
        with self._lock:
            self._observe(generation)
            entry = self._entries.get(key)
            if entry is None:
                return None
            if time.monotonic() - entry.stored_at > max_age:
                self._drop(key)
                return None
            self._entries.move_to_end(key)
            return entry

    def put(self, key: tuple, generation: int, entry: CachedResponse) -> None:
        size = entry.size
        if size > self.max_bytes:
            return
        with self._lock:
            self._observe(generation)
            if generation != self._generation:
                return  # rendered from data older than what another request has already seen
            if key in self._entries:
                self._drop(key)
            self._entries[key] = entry
            self._bytes += size
            while self._bytes > self.max_bytes:
                self._drop(next(iter(self._entries)))

    def _drop(self, key: tuple) -> None:
        entry = self._entries.pop(key)
        self._bytes -= entry.size

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self._generation = None

    def __len__(self) -> int:
        return len(self._entries)


def page_store(app: Flask) -> PageStore:
    return app.extensions["directory"].pages


# ----------------------------------------------------------------------------- the decorator


def _request_cacheable() -> bool:
    if request.method not in ("GET", "HEAD"):
        return False
    if "_flashes" in session:
        return False
    return host_identity_key() is None


def settings_fingerprint(config: Any) -> int:
    """The directory's settings, as part of every page's key. Computed once, when the
    extension starts (settings are read at start-up, as Flask's config is meant to be)."""
    items = sorted((k, repr(v)) for k, v in config.items() if k.startswith("DIRECTORY_"))
    # Stable across processes (unlike hash()): hosts sharing a page cache compute the same.
    return int.from_bytes(hashlib.blake2b(repr(items).encode(), digest_size=8).digest())


def _response_storable(response: Response) -> bool:
    csrf_field = current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    return (
        response.status_code == 200
        and not response.is_streamed
        and not response.direct_passthrough
        and "Set-Cookie" not in response.headers
        and not response.cache_control.private
        and not response.cache_control.no_store
        and csrf_field not in g  # the page carries a per-session token
        and not session.modified
    )


def cached_page(view: Callable[..., Any]) -> Callable[..., Any]:
    """Serve ``view``'s anonymous GET responses from the page cache (when
    ``DIRECTORY_CACHE_SECONDS`` > 0). The view must render the same page for every anonymous
    visitor of the same URL."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        max_age = current_app.config["DIRECTORY_CACHE_SECONDS"]
        if not max_age or not _request_cacheable():
            return view(*args, **kwargs)
        state = current_app.extensions["directory"]
        key = (
            request.scheme,
            request.host,
            request.script_root,
            request.path,
            request.query_string,
            date.today(),
            state.settings,
            i18n.current_locale(),
        )
        if state.shared_pages is not None:
            generation, entry = state.shared_pages.lookup(key)
        else:
            generation = _read_generation()
            entry = None if generation is None else state.pages.get(key, generation, max_age)
        if generation is None:
            return view(*args, **kwargs)
        if entry is not None:
            return entry.to_response()
        response = current_app.make_response(view(*args, **kwargs))
        if _response_storable(response):
            headers = [(k, v) for k, v in response.headers.items()]
            entry = CachedResponse.build(
                response.get_data(), response.status_code, headers, response.mimetype
            )
            if state.shared_pages is not None:
                state.shared_pages.put(key, generation, entry, max_age)
            else:
                state.pages.put(key, generation, entry)
            response.vary.add("Accept-Encoding")
            response.set_etag(entry.etag.strip('"'))
            response.headers["X-Directory-Cache"] = "miss"
        return response

    wrapper.directory_cached = True  # type: ignore[attr-defined]
    return wrapper
