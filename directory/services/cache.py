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

import functools
import gzip
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

from directory.models import CacheState
from directory.services.identity import host_identity_key

STATE_ROW_ID = 1
_DIRTY = "directory_cache_dirty"


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
    state row is held for the shortest time."""
    if session.info.pop(_DIRTY, False):
        session.execute(
            update(CacheState)
            .where(CacheState.id == STATE_ROW_ID)
            .values(generation=CacheState.generation + 1)
            .execution_options(synchronize_session=False)
        )


def install_invalidation(maker: sessionmaker) -> None:
    """Have every session of ``maker`` note when it writes a directory table. The unit of work
    bumps the generation before it commits; a commit made outside it (a host's own code on our
    session) bumps it too."""

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

    @event.listens_for(maker, "after_transaction_end")
    def _after_transaction_end(session: Session, transaction: Any) -> None:
        if transaction.parent is None:
            session.info.pop(_DIRTY, None)


_GENERATION = select(CacheState.__table__.c.generation).where(
    CacheState.__table__.c.id == STATE_ROW_ID
)


def current_generation(session: Session) -> int | None:
    """The committed generation, or None if the state row is missing (then nothing is cached).
    A Core statement on the session's connection: a cache hit should cost little more than
    this one primary-key lookup."""
    return session.connection().execute(_GENERATION).scalar()


def _read_generation() -> int | None:
    """The generation for this request, without an ORM session when the request has none yet
    (a cache hit needs none): on a pooled connection of the engine, or on the connection the
    sessionmaker is bound to (the test suite's)."""
    session = g.get("_directory_session")
    if session is not None:
        return current_generation(session)
    state = current_app.extensions["directory"].db
    bind = state.sessionmaker.kw.get("bind") or state.engine
    if isinstance(bind, Connection):
        return bind.execute(_GENERATION).scalar()
    with bind.connect() as connection:
        return connection.execute(_GENERATION).scalar()


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

    @property
    def size(self) -> int:
        return len(self.body) + len(self.gzipped or b"")

    def to_response(self) -> Response:
        use_gzip = self.gzipped is not None and "gzip" in request.accept_encodings
        response = Response(
            self.gzipped if use_gzip else self.body, status=self.status, headers=list(self.headers)
        )
        if use_gzip:
            response.headers["Content-Encoding"] = "gzip"
        response.vary.add("Accept-Encoding")
        response.headers["X-Directory-Cache"] = "hit"
        return response


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


def _settings_fingerprint(config: Any) -> int:
    items = ((k, repr(v)) for k, v in config.items() if k.startswith("DIRECTORY_"))
    return hash(tuple(sorted(items)))


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
        generation = _read_generation()
        if generation is None:
            return view(*args, **kwargs)
        key = (
            request.scheme,
            request.host,
            request.script_root,
            request.path,
            request.query_string,
            date.today(),
            _settings_fingerprint(current_app.config),
        )
        store = page_store(current_app)
        entry = store.get(key, generation, max_age)
        if entry is not None:
            return entry.to_response()
        response = current_app.make_response(view(*args, **kwargs))
        if _response_storable(response):
            headers = tuple((k, v) for k, v in response.headers.items() if k != "Content-Length")
            body = response.get_data()
            gzipped = _compress(body, response.mimetype)
            entry = CachedResponse(body, response.status_code, headers, time.monotonic(), gzipped)
            store.put(key, generation, entry)
            response.vary.add("Accept-Encoding")
            response.headers["X-Directory-Cache"] = "miss"
        return response

    wrapper.directory_cached = True  # type: ignore[attr-defined]
    return wrapper
