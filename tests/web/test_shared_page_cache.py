"""The page cache shared by several app hosts through a real Redis server
(``DIRECTORY_CACHE_URL``), and its invalidation.

The server is ``DIRECTORY_TEST_REDIS_URL`` (default redis://127.0.0.1:6379/9); every test uses
keys under a prefix of its own and deletes them afterwards. Without a reachable server these
tests are skipped on a workstation and fail under CI (``CI=true``), where Redis is part of the
set-up.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import text

from directory import migrate
from directory.services.health import DirectoryConfigError
from directory.web.page_cache import CachedResponse
from directory.web.shared_page_cache import SharedPageCache, decode, encode
from tests.conftest import make_app

REDIS_URL = os.environ.get("DIRECTORY_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")
PROFILE = "/directory/people/grace-hopper"


@pytest.fixture
def prefix() -> Iterator[str]:
    """A key prefix of this test's own on the test server, emptied afterwards."""
    name = f"directory-test-{uuid.uuid4().hex[:12]}:"
    store = SharedPageCache(REDIS_URL, name)
    try:
        store.client.ping()
    except Exception as error:  # noqa: BLE001 - any failure to reach it means "no server"
        message = f"no Redis server at {REDIS_URL}: {error}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    try:
        yield name
    finally:
        store.clear()
        assert list(store.client.scan_iter(match=f"{name}*")) == []
        store.close()


def _host(url: str, prefix: str, **config):
    """One app host of the directory: the shared database and the shared cache."""
    app = make_app(
        DIRECTORY_DATABASE_URL=url,
        DIRECTORY_CACHE_SECONDS=3600,
        DIRECTORY_CACHE_URL=REDIS_URL,
        DIRECTORY_CACHE_KEY_PREFIX=prefix,
        **config,
    )
    return app


def _import(app, tmp_path, title: str) -> None:
    """Write Grace Hopper's profile through this host's CLI (its own unit of work)."""
    document = tmp_path / "grace.json"
    person = {"full_name": "Grace Hopper", "role": "faculty", "title": title}
    document.write_text(
        json.dumps({"format": "faculty-directory-profile", "format_version": 1, "person": person})
    )
    result = app.test_cli_runner().invoke(args=["directory", "import-profile", str(document)])
    assert result.exit_code == 0, result.output


@pytest.fixture
def two_hosts(scratch_url, prefix) -> Iterator[tuple]:
    first, second = _host(scratch_url, prefix), _host(scratch_url, prefix)
    migrate.upgrade(first.extensions["directory"].db.engine)
    try:
        yield first, second
    finally:
        for app in (first, second):
            app.extensions["directory"].db.dispose()
            app.extensions["directory"].shared_pages.close()


def test_hosts_share_pages_and_a_write_on_one_is_seen_on_the_other(two_hosts, tmp_path) -> None:
    first, second = two_hosts
    _import(first, tmp_path, "Rear Admiral")
    a, b = first.test_client(), second.test_client()
    assert a.get(PROFILE).headers["X-Directory-Cache"] == "miss"
    # The second host serves the page the first one rendered.
    shared = b.get(PROFILE)
    assert shared.headers["X-Directory-Cache"] == "hit" and "Rear Admiral" in shared.text

    _import(second, tmp_path, "Professor of Compilers")  # a write on the second host
    fresh = a.get(PROFILE)
    assert fresh.headers["X-Directory-Cache"] == "miss"
    assert "Professor of Compilers" in fresh.text and "Rear Admiral" not in fresh.text
    assert b.get(PROFILE).headers["X-Directory-Cache"] == "hit"
    assert "Professor of Compilers" in b.get("/directory/").text


def test_the_shared_generation_not_the_database_decides_a_hit(two_hosts, tmp_path) -> None:
    """A hit asks the cache server only: the database's counter moving (raw SQL, no write
    through the directory) does not empty it, the shared generation moving does."""
    first, _second = two_hosts
    _import(first, tmp_path, "Rear Admiral")
    client = first.test_client()
    client.get(PROFILE)
    with first.extensions["directory"].db.engine.begin() as conn:
        conn.execute(text("UPDATE directory_cache_state SET generation = generation + 5"))
    assert client.get(PROFILE).headers["X-Directory-Cache"] == "hit"
    first.extensions["directory"].shared_pages.bump()
    assert client.get(PROFILE).headers["X-Directory-Cache"] == "miss"


def test_a_lost_generation_starts_afresh_and_serves_no_older_page(two_hosts, tmp_path) -> None:
    first, _second = two_hosts
    store = first.extensions["directory"].shared_pages
    _import(first, tmp_path, "Rear Admiral")
    client = first.test_client()
    client.get(PROFILE)
    before = int(store.client.get(store.generation_key))
    store.client.delete(store.generation_key)  # evicted, or the server restarted empty
    assert client.get(PROFILE).headers["X-Directory-Cache"] == "miss"
    assert int(store.client.get(store.generation_key)) != before
    assert client.get(PROFILE).headers["X-Directory-Cache"] == "hit"


def test_an_unreachable_cache_server_serves_pages_uncached(scratch_url, tmp_path) -> None:
    app = make_app(
        DIRECTORY_DATABASE_URL=scratch_url,
        DIRECTORY_CACHE_SECONDS=3600,
        DIRECTORY_CACHE_URL="redis://127.0.0.1:1/0",  # nothing listens there
    )
    try:
        migrate.upgrade(app.extensions["directory"].db.engine)
        _import(app, tmp_path, "Rear Admiral")  # the write commits; the bump only logs
        client = app.test_client()
        for _ in range(2):
            page = client.get(PROFILE)
            assert page.status_code == 200 and "Rear Admiral" in page.text
            assert "X-Directory-Cache" not in page.headers
    finally:
        app.extensions["directory"].db.dispose()


def test_a_stored_page_comes_back_as_it_was(prefix) -> None:
    entry = CachedResponse.build(
        b"<p>" + b"x" * 4000 + b"</p>", 200, [("Content-Type", "text/html; charset=utf-8")],
        "text/html",
    )  # fmt: skip
    generation, back = decode(encode(entry, 42))
    assert generation == 42
    assert (back.body, back.gzipped, back.etag) == (entry.body, entry.gzipped, entry.etag)
    assert (back.plain_headers, back.gzip_headers) == (entry.plain_headers, entry.gzip_headers)
    with pytest.raises(ValueError):
        decode(encode(entry, 1)[:-10])
    # A damaged value under a page's key is a miss, not an error.
    store = SharedPageCache(REDIS_URL, prefix)
    store.client.set(store.generation_key, 7)
    store.client.set(store.page_key(("k",)), b"\x00\x00\x00\x05junk")
    assert store.lookup(("k",)) == (7, None)
    store.put(("k",), 7, entry, 60)
    assert store.lookup(("k",))[1].body == entry.body
    assert 0 < store.client.ttl(store.page_key(("k",))) <= 60
    store.close()


@pytest.mark.parametrize("url", ["http://127.0.0.1:6379", 6379, "127.0.0.1:6379"])
def test_a_cache_url_that_is_not_redis_stops_the_app(url) -> None:
    with pytest.raises(DirectoryConfigError, match="DIRECTORY_CACHE_URL"):
        make_app(DIRECTORY_CACHE_URL=url)
