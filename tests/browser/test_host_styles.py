"""Embedded in a real host, the directory's pages keep their shape: the listing, recruiting,
publications, alumni, a profile and the editor are rendered inside a host layout whose
stylesheet reproduces the element rules of flaskr's stock stylesheet, of Bootstrap 5 and of a
classless stylesheet (tests/browser/hosted/styles/), loaded after the directory's; the boxes of
the main elements are compared with the standalone page's.

Both pages get the same font and the same content width, so that what is compared is layout:
a host may change the typography, not the shape (flaskr's `.content form{flex-direction:
column}` made the people filter 1,039 px tall instead of 86)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Blueprint, Flask, redirect, session

from tests.browser.conftest import serving
from tests.conftest import TEST_USER_KEY, make_app

pytestmark = pytest.mark.browser

HOSTED = Path(__file__).parent / "hosted"
HOSTS = ("flaskr", "bootstrap", "classless")
PAGES = {
    "listing": "/directory/",
    "recruiting": "/directory/recruiting",
    "publications": "/directory/publications",
    "alumni": "/directory/alumni",
    "profile": "/directory/people/xingda-wei",
    "editor": "/directory/people/xingda-wei/edit",
}
#: The elements whose boxes must match: forms, navs, fieldsets, tables, lists of cards.
MEASURED = "form, nav, fieldset, table, .card-grid, .card, .notice, .pub, .pagination"
SAME_FONT = "html, body { font: 16px/1.5 'DejaVu Sans', sans-serif !important; }"
MEASURE = """(selector) => {
  const root = document.querySelector('main .directory:not(body)');
  const boxes = {};
  const seen = {};
  for (const el of root.querySelectorAll(selector)) {
    const first = el.className ? '.' + String(el.className).split(' ')[0] : '';
    const name = el.tagName.toLowerCase() + first;
    seen[name] = (seen[name] || 0) + 1;
    if (seen[name] > 3) continue;
    const r = el.getBoundingClientRect();
    boxes[name + '#' + seen[name]] = {height: Math.round(r.height), width: Math.round(r.width),
      background: getComputedStyle(el).backgroundColor, display: getComputedStyle(el).display};
  }
  return {width: Math.round(root.getBoundingClientRect().width), boxes};
}"""


def _host_app() -> Flask:
    host = make_app(DIRECTORY_BASE_TEMPLATE="host/base.html", HOST_STYLE="flaskr")
    styles = Blueprint(
        "host_styles",
        __name__,
        template_folder=str(HOSTED / "templates"),
        static_folder=str(HOSTED / "styles"),
        static_url_path="/_host",
    )
    host.register_blueprint(styles)

    @host.route("/_test/sign-in/<key>")
    def test_sign_in(key: str):
        session[TEST_USER_KEY] = key
        return redirect("/directory/")

    return host


@pytest.fixture(scope="module")
def host_app(app: Flask) -> Flask:
    return _host_app()


@pytest.fixture
def host_server(host_app: Flask, connection) -> Iterator[str]:
    with serving(host_app, connection) as base:
        yield base


def measure(context, base: str, path: str, width: int) -> dict:
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{base}/_test/sign-in/admin")
    response = page.goto(base + path)
    assert response.status == 200, (base, path)
    page.add_style_tag(content=SAME_FONT)
    found = page.evaluate(MEASURE, MEASURED)
    page.close()
    return found


def differences(standalone: dict, hosted: dict) -> list[str]:
    problems = []
    for name, box in standalone["boxes"].items():
        other = hosted["boxes"].get(name)
        if other is None:
            problems.append(f"{name}: missing")
            continue
        if abs(other["height"] - box["height"]) > max(16, 0.15 * box["height"]):
            problems.append(f"{name}: {other['height']} px tall instead of {box['height']}")
        if abs(other["width"] - box["width"]) > max(16, 0.05 * box["width"]):
            problems.append(f"{name}: {other['width']} px wide instead of {box['width']}")
        if other["display"] != box["display"]:
            problems.append(f"{name}: display {other['display']} instead of {box['display']}")
        if other["background"] != box["background"]:
            problems.append(f"{name}: background {other['background']} not {box['background']}")
    return problems


@pytest.mark.parametrize("host", HOSTS)
def test_host_stylesheets_do_not_reshape_the_pages(
    host, host_app, host_server, live_server, chromium, demo
) -> None:
    host_app.config["HOST_STYLE"] = host
    context = chromium.new_context(bypass_csp=True)
    context.set_default_timeout(10_000)
    problems = {}
    try:
        for name, path in PAGES.items():
            hosted = measure(context, host_server, path, 1100)
            # The standalone page, at the viewport that gives its content the same width.
            standalone = measure(context, live_server, path, hosted["width"] + 40)
            assert abs(standalone["width"] - hosted["width"]) <= 2, (name, standalone["width"])
            assert standalone["boxes"], name
            found = differences(standalone, hosted)
            if found:
                problems[name] = found
    finally:
        context.close()
    assert problems == {}
