"""A page cache for anonymous GETs of public pages, correct across processes and hosts.

How it stays correct: every write moves the database's generation on
(:mod:`directory.services.cache`); a page is kept per process under (URL, generation, today's
date, settings), and a newer generation empties the store, so no process serves a page older
than the last committed write.

* ``DIRECTORY_CACHE_SECONDS`` bounds the age of an entry, for changes that are not writes (a
  host editing our tables with raw SQL; see :func:`directory.services.cache.invalidate`);
  today's date in the key makes date-based changes (a recruiting notice expiring) show the
  next day at the latest.

Only anonymous ``GET``/``HEAD`` requests without pending flash messages are served from or stored
in the cache, and only 200 responses that set no cookie and rendered no CSRF token or CSP nonce.

A view opts in with one line::

    @blueprint.route("/people/<slug>")
    @cached_page
    def profile(slug): ...
"""

from __future__ import annotations

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
from sqlalchemy import Connection

from directory import i18n
from directory.services.cache import GENERATION, current_generation
from directory.services.identity import host_identity_key
from directory.web.csp import nonce_used


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
        return bind.execute(GENERATION).scalar()
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
        and not nonce_used()  # nor a per-response nonce (directory.web.csp)
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
