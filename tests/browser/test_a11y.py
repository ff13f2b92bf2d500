"""Accessibility: axe-core (installed from the npm registry by ``make axe``) finds no serious or
critical violation on any page type, and pages can be used with the keyboard alone.

Add a line to A11Y_PAGES for each new page type; a page that answers 404 where a page is
expected fails the test (it is not skipped)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .browser import keep_screenshot

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent.parent / ".cache/axe/node_modules/axe-core/axe.min.js"

#: (page type, path under the prefix, expected status). The demo department is loaded.
A11Y_PAGES = [
    ("listing", "/", 200),
    ("faculty profile", "/people/danyang-zhuo", 200),
    ("research staff profile", "/people/jiangfei-duan", 200),
    ("student profile", "/people/yicheng-jin", 200),
    ("alumni profile", "/people/samantha-miller", 200),
    ("not found", "/people/nobody-here", 404),
]
SERIOUS = {"serious", "critical"}


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        message = "axe-core is not installed: run `make axe` (npm install into .cache/axe)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return AXE.read_text(encoding="utf-8")


def run_axe(page, source: str) -> list[dict]:
    # evaluate() is not subject to the page's Content-Security-Policy, which stays enforced.
    page.evaluate(source)
    result = page.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ["violations"]});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))}));
        }"""
    )
    return [v for v in result if v["impact"] in SERIOUS]


@pytest.mark.parametrize(("kind", "path", "status"), A11Y_PAGES, ids=[p[0] for p in A11Y_PAGES])
def test_no_serious_accessibility_violations(
    demo, live_server, page, axe_source, request, kind, path, status
) -> None:
    response = page.goto(f"{live_server}/directory{path}")
    assert response.status == status, f"{kind}: {path} answered {response.status}"
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        violations = run_axe(page, axe_source)
        if violations:
            shot = keep_screenshot(page, request)
            pytest.fail(f"{kind} at {width}px ({shot}):\n{json.dumps(violations, indent=1)}")


def test_the_keyboard_reaches_every_link_with_a_visible_focus(demo, live_server, page) -> None:
    page.goto(f"{live_server}/directory/people/danyang-zhuo")
    page.keyboard.press("Tab")
    first = page.evaluate("document.activeElement.textContent.trim()")
    assert first == "Skip to content"
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#main"

    focusable = page.evaluate(
        "document.querySelectorAll('a[href], button, input, select, textarea, summary').length"
    )
    seen = set()
    for _ in range(focusable + 5):
        page.keyboard.press("Tab")
        info = page.evaluate(
            """() => {
                const el = document.activeElement;
                const style = getComputedStyle(el);
                return {tag: el.tagName, text: (el.textContent || "").trim().slice(0, 40),
                        outline: style.outlineStyle, width: style.outlineWidth,
                        path: el.closest("[id]") ? el.closest("[id]").id : ""};
            }"""
        )
        if info["tag"] == "BODY":
            break
        assert info["outline"] != "none" and info["width"] != "0px", f"no visible focus: {info}"
        seen.add((info["tag"], info["text"], info["path"]))
    assert len(seen) >= 20  # the whole page, not a trap: sections, papers, links


def test_the_audit_reports_a_planted_violation(demo, live_server, page, axe_source) -> None:
    """The harness itself works: a nameless button and an image without alt text are caught."""
    page.goto(f"{live_server}/directory/")
    page.evaluate(
        """document.querySelector("main").insertAdjacentHTML(
            "beforeend", '<button></button><img src="x.png">')"""
    )
    found = {violation["id"] for violation in run_axe(page, axe_source)}
    assert {"button-name", "image-alt"} <= found
