"""A host's inline scripts under the directory's Content-Security-Policy, in Chromium: the
microblog host (tests/hosts/microblog, built like the Flask mega-tutorial) has an inline
script in its layout. Without a nonce the directory's strict policy blocks it on directory
pages; with ``nonce="{{ directory_csp_nonce() }}"`` it runs, and the policy stays strict (an
injected inline script without the nonce is still blocked)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from tests.browser.conftest import serving
from tests.hosts.microblog import create_app, db

pytestmark = pytest.mark.browser


@pytest.fixture(params=[False, True], ids=["without-nonce", "with-nonce"])
def microblog(request, tmp_path, test_engine, connection) -> Iterator[tuple[str, bool]]:
    app: Flask = create_app({
        "TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'app.db'}",
        "DIRECTORY_ENGINE": test_engine, "LAYOUT_NONCE": request.param,
    })  # fmt: skip
    with app.app_context():
        db.create_all()
    with serving(app, connection) as base:
        yield base, request.param
    with app.app_context():
        db.engine.dispose()


def test_the_hosts_inline_script_runs_with_the_nonce_only(chromium, microblog, demo) -> None:
    base, with_nonce = microblog
    context = chromium.new_context(base_url=base)
    context.set_default_timeout(10_000)
    # The layout's CDN files would need the network (and the policy's origins): not here.
    context.route("https://cdn.jsdelivr.net/**", lambda route: route.abort())
    page = context.new_page()
    blocked: list[str] = []
    page.on("console", lambda message: blocked.append(message.text))
    try:
        assert page.goto("/directory/people/xingda-wei").status == 200
        ran = page.evaluate("() => window.microblogLocale")
        assert ran == ("en" if with_nonce else None)
        refused = [text for text in blocked if "Executing inline script violates" in text]
        assert bool(refused) is not with_nonce, blocked
        # The policy is still strict: an inline script planted without the nonce never runs.
        page.evaluate(
            """() => { const s = document.createElement("script");
                       s.textContent = "window.planted = 1"; document.body.append(s); }"""
        )
        assert page.evaluate("() => window.planted") is None
    finally:
        context.close()
