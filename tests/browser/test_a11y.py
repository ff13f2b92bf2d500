"""Accessibility: axe-core (installed from the npm registry by ``make axe``) finds no serious or
critical violation on any page type, public or editing, in the light and the dark colour
scheme, at desktop and phone widths; and the
editing forms can be used with the keyboard alone.

Add a line to A11Y_PAGES for each new page type. A page that does not answer its expected status
fails the test (it is not skipped)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from directory import models as m
from tests.browser.conftest import sign_in

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / ".cache/axe/node_modules/axe-core/axe.min.js"

#: (page type, who is signed in or None, path, expected status). The demo department is loaded.
A11Y_PAGES = [
    ("listing", None, "/directory/", 200),
    ("faculty profile", None, "/directory/people/danyang-zhuo", 200),
    ("research staff profile", None, "/directory/people/jiangfei-duan", 200),
    ("student profile", None, "/directory/people/yicheng-jin", 200),
    ("alumni profile", None, "/directory/people/samantha-miller", 200),
    ("search results", None, "/directory/search?q=systems", 200),
    # People ranked by what they work on, each with the papers and interests that matched.
    ("search, who works on X", None, "/directory/search?q=who+works+on+LLM+serving%3F", 200),
    ("search, people only", None, "/directory/search?q=RDMA&kind=person", 200),
    (
        "search in Chinese",
        None,
        "/directory/search?q=%E5%A4%A7%E6%A8%A1%E5%9E%8B&lang=zh_Hans",
        200,
    ),
    ("recruiting by topic", None, "/directory/recruiting?topic=LLM+serving&level=phd", 200),
    ("listing, filtered", None, "/directory/?role=phd_student", 200),
    ("research areas", None, "/directory/areas/", 200),
    ("recruiting", None, "/directory/recruiting", 200),
    ("alumni", None, "/directory/alumni", 200),
    ("alumni summary", None, "/directory/alumni/summary", 200),
    ("alumni summary, filtered", None, "/directory/alumni/summary?degree=phd&year_from=2020", 200),
    ("news", None, "/directory/news", 200),
    ("department publications", None, "/directory/publications", 200),
    ("a person's complete list of papers", None, "/directory/people/xingda-wei/publications", 200),
    ("not found", None, "/directory/people/nobody-here", 404),
    ("profile editor", "admin", "/directory/people/xingda-wei/edit", 200),
    ("profile details form", "admin", "/directory/people/xingda-wei/edit/profile", 200),
    ("news entry form", "admin", "/directory/people/xingda-wei/edit/news/new", 200),
    ("recruiting notice form", "admin", "/directory/people/xingda-wei/edit/recruiting/new", 200),
    ("recruiting, filtered", None, "/directory/recruiting?level=phd&term=Fall+2026", 200),
    ("research area", None, "/directory/areas/machine-learning-systems", 200),
    ("publication form", "admin", "/directory/people/xingda-wei/edit/publications/new", 200),
    ("photo form", "admin", "/directory/people/xingda-wei/edit/photo", 200),
    ("publication import", "admin", "/directory/people/xingda-wei/publications/import", 200),
    ("publication management", "admin", "/directory/people/xingda-wei/publications/manage", 200),
    ("history", "admin", "/directory/people/xingda-wei/history", 200),
    ("admin home", "admin", "/directory/admin/", 200),
    ("admin people", "admin", "/directory/admin/people", 200),
    ("admin areas", "admin", "/directory/admin/areas", 200),
    ("approvals", "admin", "/directory/approvals", 200),
    ("a person's activity report", "admin", "/directory/people/xingda-wei/report?year=2025", 200),
    ("department activity report", "admin", "/directory/reports/department?year=2025", 200),
    ("co-authorship network", "admin", "/directory/reports/network?year=2025", 200),
    ("activity report, bad period", "admin", "/directory/reports/department?year=20x5", 400),
    # The interface in Simplified Chinese (lang="zh-Hans", the native name first).
    ("listing in Chinese", None, "/directory/?lang=zh_Hans", 200),
    ("profile in Chinese", None, "/directory/people/xingda-wei?lang=zh_Hans", 200),
    ("recruiting in Chinese", None, "/directory/recruiting?lang=zh_Hans", 200),
    ("profile editor in Chinese", "admin", "/directory/people/xingda-wei/edit?lang=zh_Hans", 200),
    ("department report in Chinese", "admin", "/directory/reports/department?lang=zh_Hans", 200),
]
SERIOUS = {"serious", "critical"}
#: Every page is audited in both colour schemes (prefers-color-scheme): the dark one has its
#: own colours, a search hit's highlight among them.
SCHEMES = ("light", "dark")


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        message = "axe-core is not installed: run `make axe` (npm install into .cache/axe)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return AXE.read_text(encoding="utf-8")


def run_axe(page, source: str) -> list[dict]:
    """Serious and critical violations on the page. ``evaluate`` is not subject to the page's
    Content-Security-Policy, which stays enforced for the page itself."""
    page.evaluate(source)
    result = page.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ["violations"]});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))}));
        }"""
    )
    return [v for v in result if v["impact"] in SERIOUS]


@pytest.mark.parametrize(
    ("kind", "who", "path", "status"), A11Y_PAGES, ids=[p[0] for p in A11Y_PAGES]
)
def test_no_serious_accessibility_violations(
    demo, page, axe_source, kind, who, path, status
) -> None:
    if who:
        sign_in(page, who)
    response = page.goto(path)
    assert response.status == status, f"{kind}: {path} answered {response.status}"
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            violations = run_axe(page, axe_source)
            where = f"{kind}, {scheme} scheme, at {width}px"
            assert not violations, f"{where}:\n{json.dumps(violations, indent=1)}"


def test_the_audit_reports_a_planted_violation(demo, page, axe_source) -> None:
    """The harness itself works: a nameless button and an image without alt text are caught."""
    page.goto("/directory/")
    page.evaluate(
        """document.querySelector("main").insertAdjacentHTML(
            "beforeend", '<button></button><img src="x.png">')"""
    )
    found = {violation["id"] for violation in run_axe(page, axe_source)}
    assert {"button-name", "image-alt"} <= found


def _focused(page) -> dict:
    return page.evaluate(
        """() => {
            const el = document.activeElement;
            const style = getComputedStyle(el);
            return {tag: el.tagName, name: el.name || "", type: el.type || "",
                    text: (el.textContent || "").trim().slice(0, 40),
                    outline: style.outlineStyle, width: style.outlineWidth,
                    shadow: style.boxShadow};
        }"""
    )


def _tab_to(page, predicate, limit: int = 200) -> dict:
    for _ in range(limit):
        page.keyboard.press("Tab")
        info = _focused(page)
        visible = info["outline"] != "none" and info["width"] != "0px"
        assert visible or info["shadow"] != "none", f"no visible focus on {info}"
        if predicate(info):
            return info
    raise AssertionError("not reached with the keyboard")


def test_a_public_page_is_usable_by_keyboard(demo, page) -> None:
    page.goto("/directory/people/danyang-zhuo")
    page.keyboard.press("Tab")
    assert _focused(page)["text"] == "Skip to content"
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#main"
    _tab_to(page, lambda info: info["text"] == "Publications")


def test_an_editing_form_is_usable_by_keyboard_alone(demo, page, db) -> None:
    """Sign in, open the profile form, change the title and save it, all with the keyboard."""
    sign_in(page, "admin")
    page.goto("/directory/people/xingda-wei/edit/profile")
    _tab_to(page, lambda info: info["name"] == "title")
    page.keyboard.press("Control+A")
    page.keyboard.type("Professor of Keyboards")
    _tab_to(page, lambda info: info["tag"] == "BUTTON" and info["text"] == "Save")
    page.keyboard.press("Enter")
    expect(page.get_by_text("Saved", exact=False).first).to_be_visible()
    db.expire_all()
    title = db.scalar(select(m.Person.title).where(m.Person.slug == "xingda-wei"))
    assert title == "Professor of Keyboards"
