"""The page cache in a Redis server shared by every app host (``DIRECTORY_CACHE_URL``).

The default cache (:mod:`directory.services.cache`) keeps pages in each process and learns of
writes by reading the database's generation counter on every hit: right for one host. With
several hosts behind one directory, each would render and keep every page itself; with
``DIRECTORY_CACHE_URL = "redis://..."`` they share one store, and the invalidation goes
through the same server:

* a *generation* key, moved on (``INCR``) after every committed transaction that wrote a
  directory table, by whichever process wrote (the unit of work's commit, a CLI command);
* each page is stored under its URL's key with the generation it was rendered at, and expires
  after ``DIRECTORY_CACHE_SECONDS``; a hit is one round trip (``MGET`` of the generation and the
  page) and serves the page only when the two generations agree.

The generation moves on after the COMMIT, so a request rendering in between stores its page
under the older generation, which no later request serves. When the generation key is missing
(a new or flushed server, an eviction) it starts again from a random number, so a page kept
from an earlier count is never mistaken for a current one. When the server cannot be reached a
page is rendered as if there were no cache (never an error page), and a write whose generation
could not be moved on is logged: pages may then be as old as ``DIRECTORY_CACHE_SECONDS``.

Pages are stored in a plain framed format (a JSON header, then the bytes), never pickled: what
comes back from the server is data, not code.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import struct

from directory.web.page_cache import CachedResponse

try:  # the `redis` extra: pip install "faculty-directory[redis]"
    import redis
except ImportError:  # pragma: no cover - checked by the settings check at start-up
    redis = None

log = logging.getLogger(__name__)

#: Errors that mean "the server is not there or not answering", never a broken request.
_UNREACHABLE: tuple[type[BaseException], ...] = (
    (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) if redis else ()
)
_HEADER = struct.Struct(">I")


def available() -> bool:
    """Whether the ``redis`` package is installed."""
    return redis is not None


def encode(entry: CachedResponse, generation: int) -> bytes:
    """``entry`` as bytes for the store, with the generation it was rendered at."""
    header = {
        "generation": generation,
        "status": entry.status,
        "headers": entry.headers,
        "etag": entry.etag,
        "plain": entry.plain_headers,
        "gzip": entry.gzip_headers,
        "body": len(entry.body),
        "gzipped": -1 if entry.gzipped is None else len(entry.gzipped),
    }
    raw = json.dumps(header, separators=(",", ":")).encode()
    return b"".join((_HEADER.pack(len(raw)), raw, entry.body, entry.gzipped or b""))


def decode(blob: bytes) -> tuple[int, CachedResponse]:
    """The generation and the page of a stored ``blob`` (ValueError when it is not one)."""
    if len(blob) < _HEADER.size:
        raise ValueError("not a stored page")
    (size,) = _HEADER.unpack_from(blob)
    header = json.loads(blob[_HEADER.size : _HEADER.size + size])
    start = _HEADER.size + size
    body = blob[start : start + header["body"]]
    gzipped = None if header["gzipped"] < 0 else blob[start + header["body"] :]
    if len(body) != header["body"] or (gzipped is not None and len(gzipped) != header["gzipped"]):
        raise ValueError("a stored page was cut short")

    def pairs(items: list) -> tuple[tuple[str, str], ...]:
        return tuple((str(k), str(v)) for k, v in items)

    entry = CachedResponse(
        body=body,
        status=int(header["status"]),
        headers=pairs(header["headers"]),
        stored_at=0.0,  # the server expires the key; the age is not checked here
        gzipped=gzipped,
        etag=str(header["etag"]),
        plain_headers=pairs(header["plain"]),
        gzip_headers=pairs(header["gzip"]),
    )
    return int(header["generation"]), entry


class SharedPageCache:
    """Pages and their generation in one Redis database, under ``prefix``."""

    def __init__(self, url: str, prefix: str, *, timeout: float = 0.5) -> None:
        if redis is None:
            raise RuntimeError("DIRECTORY_CACHE_URL needs the redis package (the redis extra)")
        self.client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        self.prefix = prefix
        self.generation_key = f"{prefix}generation"

    def page_key(self, key: tuple) -> str:
        digest = hashlib.blake2b(repr(key).encode(), digest_size=16).hexdigest()
        return f"{self.prefix}page:{digest}"

    def lookup(self, key: tuple) -> tuple[int | None, CachedResponse | None]:
        """The current generation and the page stored for ``key`` at that generation, in one
        round trip; (None, None) when the server cannot be reached (render without cache)."""
        try:
            generation, blob = self.client.mget(self.generation_key, self.page_key(key))
            if generation is None:
                return self._restart(), None
        except _UNREACHABLE as error:
            log.warning("page cache server unreachable, page rendered uncached: %s", error)
            return None, None
        generation = int(generation)
        if blob is None:
            return generation, None
        try:
            stored_at, entry = decode(blob)
        except (ValueError, KeyError, TypeError):
            return generation, None  # not ours or damaged: rendered again and replaced
        return generation, entry if stored_at == generation else None

    def put(self, key: tuple, generation: int, entry: CachedResponse, max_age: int) -> None:
        try:
            self.client.set(self.page_key(key), encode(entry, generation), ex=max(1, max_age))
        except _UNREACHABLE as error:
            log.warning("page cache server unreachable, page not stored: %s", error)

    def bump(self) -> None:
        """Move the generation on: every stored page is stale from now on, on every host."""
        try:
            if self.client.incr(self.generation_key) == 1:
                self._restart(force=True)  # the key was missing: not a count to continue
        except _UNREACHABLE as error:
            log.error("page cache server unreachable after a write; cached pages may be up to "
                      "DIRECTORY_CACHE_SECONDS old: %s", error)  # fmt: skip

    def _restart(self, force: bool = False) -> int:
        """Start the generation at a random number (kept if another process set one first)."""
        start = secrets.randbits(62) + 2
        if force:
            self.client.set(self.generation_key, start)
            return start
        if self.client.set(self.generation_key, start, nx=True):
            return start
        return int(self.client.get(self.generation_key) or start)

    def clear(self) -> None:
        """Delete every key under the prefix (tests, and `flask directory` maintenance)."""
        for name in self.client.scan_iter(match=f"{self.prefix}*", count=500):
            self.client.delete(name)

    def close(self) -> None:
        self.client.close()
