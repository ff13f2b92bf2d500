"""The paper page, the profile's paper list, the CV, the editor's paper list, its "Paper list and
CV" choices and the photo's focal point: axe-core finds no violation of any impact level, in
the light and the dark colour scheme, at desktop and phone widths; the Bib and author toggles
open with the keyboard, without any script of ours."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from directory import models as m
from tests.browser.conftest import sign_in
from tests.browser.test_a11y import axe_source, run_axe  # noqa: F401 - the fixture and the runner

pytestmark = pytest.mark.browser


def _all_violations(page, source: str) -> list[dict]:
    """Every violation, whatever its impact (run_axe keeps only serious and critical)."""
    page.evaluate(source)
    return page.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ["violations"]});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))}));
        }"""
    )


def _paper_path(db) -> str:
    uid = db.scalar(
        select(m.Publication.uid).where(m.Publication.title.startswith("Fast RDMA-based Ordered"))
    )
    return f"/directory/publications/{uid}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_new_pages_have_no_accessibility_violation_in_either_scheme(
    demo, db, page, axe_source, scheme  # noqa: F811 - axe_source is the imported fixture
) -> None:  # fmt: skip
    pages = [
        (None, _paper_path(db)),
        (None, "/directory/people/xingda-wei"),
        (None, "/directory/people/jiangfei-duan"),
        (None, "/directory/people/xingda-wei/cv"),
        (None, "/directory/people/danyang-zhuo"),
        (None, "/directory/publications"),
        ("admin", "/directory/people/xingda-wei/edit"),
        ("admin", "/directory/people/xingda-wei/edit/papers-and-cv"),
        ("admin", "/directory/people/xingda-wei/edit/photo"),
    ]
    page.emulate_media(color_scheme=scheme)
    for who, path in pages:
        if who:
            sign_in(page, who)
        response = page.goto(path)
        assert response.status == 200, path
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            violations = _all_violations(page, axe_source)
            where = f"{path} ({scheme}, {width}px)"
            assert not violations, f"{where}:\n{json.dumps(violations, indent=1)}"
    # Every toggle open (Bib, abstract, the folded authors): the opened blocks pass too.
    page.goto("/directory/people/jiangfei-duan")
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        violations = _all_violations(page, axe_source)
        found = json.dumps(violations, indent=1)
        assert not violations, f"opened toggles ({scheme}, {width}px):\n{found}"


def test_the_bib_toggle_and_folded_authors_open_from_the_keyboard(demo, page) -> None:
    page.goto("/directory/people/jiangfei-duan")
    more = page.locator("details.pub__more-authors").first
    bib = page.locator("details.pub__bib").first
    assert more.evaluate("d => d.open") is False
    more.locator("summary").focus()
    page.keyboard.press("Enter")
    assert more.evaluate("d => d.open") is True
    bib.locator("summary").focus()
    page.keyboard.press("Enter")
    assert "@" in bib.locator("pre").inner_text()
