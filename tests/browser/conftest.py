"""A live server for browser tests: the test host app (callable identity) plus a test-only
sign-in route, served by werkzeug in a thread, its database session joined to the test's
rolled-back transaction. Chromium is Debian's, driven by Playwright; a failing test leaves a
screenshot under ``test-artifacts/``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask, redirect, session
from sqlalchemy import event
from werkzeug.serving import WSGIRequestHandler, make_server

from tests.conftest import TEST_USER_KEY, make_app

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session")
def browser_app(app: Flask) -> Flask:
    """A second host app sharing the test database; it has a sign-in route for the browser."""
    live = make_app()

    @live.route("/_test/sign-in/<key>")
    def test_sign_in(key: str):
        session[TEST_USER_KEY] = key
        return redirect("/directory/me")

    @live.route("/_test/sign-out")
    def test_sign_out():
        session.pop(TEST_USER_KEY, None)
        return redirect("/directory/")

    return live


class _IdleDropping(WSGIRequestHandler):
    """The server handles one connection at a time (its sessions share the test's one
    connection). Chromium opens sockets ahead of need and may send nothing on one: without a
    timeout, the server would wait on it while the page's own requests queue behind it (a
    browser test once timed out so). An idle socket is dropped after a few seconds."""

    timeout = 3


_SHARED_LOCK = "_directory_one_user_at_a_time"


@contextmanager
def _one_user_at_a_time(connection) -> Iterator[threading.RLock]:
    """A lock the server holds for each whole request (body included), and any other thread
    (the test's own ``db`` reads) for each statement on the shared connection: a connection
    is not thread-safe, and a test's read while the browser still loads a page's image once
    broke the savepoints of both (``savepoint ... does not exist``).

    Every server on one connection takes the same lock (a test serving the host's app beside
    the live server once deadlocked on PostgreSQL: each server held its own lock while its
    statements waited for the other's)."""
    shared = connection.info.get(_SHARED_LOCK)
    if shared is not None:
        shared["users"] += 1
        try:
            yield shared["lock"]
        finally:
            shared["users"] -= 1
        return

    lock = threading.RLock()
    held = threading.local()  # how many statements this thread has the lock for

    def acquire(*_args) -> None:
        lock.acquire()
        held.count = getattr(held, "count", 0) + 1

    def release(*_args) -> None:
        if getattr(held, "count", 0):  # an error before the statement took no lock
            held.count -= 1
            lock.release()

    # A failed statement ends in handle_error (an engine-wide event) instead of its "after".
    listeners = (
        (connection, "before_cursor_execute", acquire),
        (connection, "after_cursor_execute", release),
        (connection.engine, "handle_error", release),
    )
    for target, name, listener in listeners:
        event.listen(target, name, listener)
    connection.info[_SHARED_LOCK] = {"lock": lock, "users": 1}
    try:
        yield lock
    finally:
        connection.info.pop(_SHARED_LOCK, None)
        for target, name, listener in listeners:
            event.remove(target, name, listener)


@contextmanager
def serving(app: Flask, connection) -> Iterator[str]:
    """Serve ``app`` in a thread, its directory sessions joined to the test's transaction."""
    state = app.extensions["directory"].db
    state.sessionmaker.configure(bind=connection, join_transaction_mode="create_savepoint")
    with _one_user_at_a_time(connection) as lock:

        def one_at_a_time(environ, start_response):
            with lock:
                body = app(environ, start_response)
                try:
                    return list(body)
                finally:
                    if hasattr(body, "close"):
                        body.close()

        server = make_server(
            "127.0.0.1", 0, one_at_a_time, threaded=False, request_handler=_IdleDropping
        )
        app.config["SERVER_NAME"] = f"127.0.0.1:{server.server_port}"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_port}"
        finally:
            server.shutdown()
            thread.join(timeout=10)
            state.sessionmaker.configure(
                bind=state.engine, join_transaction_mode="conservative_savepoint"
            )


@pytest.fixture
def live_server(browser_app: Flask, connection) -> Iterator[str]:
    with serving(browser_app, connection) as base:
        yield base


@pytest.fixture(scope="session")
def chromium():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make browser)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"],
        )  # fmt: skip
        yield browser
        browser.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.stash[_FAILED] = report.failed


_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def browser_context(chromium, live_server, request):
    """A fresh browser profile per test; on failure every open page is kept as a PNG."""
    context = chromium.new_context(base_url=live_server, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    yield context
    if request.node.stash.get(_FAILED, False):
        ARTIFACTS.mkdir(exist_ok=True)
        for i, page in enumerate(context.pages):
            page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-{i}.png"), full_page=True)
    context.close()


@pytest.fixture
def page(browser_context):
    return browser_context.new_page()


def sign_in(page, key: str) -> None:
    page.goto(f"/_test/sign-in/{key}")
