"""What the names work adds to pages, seen in a browser: the "Suggested for you" list on /me,
the import form's site field, and papers with editors, "et al.", no authors or no venue on a
profile. axe-core finds no violation of any impact level at desktop and phone widths; with
``DIRECTORY_SHOTS`` set to a folder, each page is also saved there as a screenshot."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from directory.formats.bibtex.parse import parse_bibtex
from directory.services.pubimport.planning import plan_import
from directory.services.pubimport.writing import apply_plan
from tests.browser.conftest import sign_in
from tests.browser.test_a11y import axe_source  # noqa: F401 - the fixture
from tests.browser.test_paper_pages_a11y import _all_violations

pytestmark = pytest.mark.browser

BIB = Path(__file__).resolve().parents[1] / "fixtures" / "bibtex"


def test_suggestions_import_form_and_names_have_no_accessibility_violation(
    db,
    make_person,
    page,
    axe_source,  # noqa: F811
) -> None:
    wei = make_person("Xingda Wei", user_key="wei")
    make_person("Rong Chen", user_key="chen")
    for name in ("display.bib", "names.bib", "coauthor_initials.bib"):
        result = parse_bibtex((BIB / name).read_bytes())
        plan = plan_import(db, wei, result.entries, result.problems)
        decisions = {e.index: "new" for e in plan.entries if e.needs_decision}
        apply_plan(db, plan, wei, decisions)
    db.commit()
    shots = os.environ.get("DIRECTORY_SHOTS")
    pages = [
        ("chen", "/directory/me", "Suggested for you"),
        ("wei", "/directory/people/xingda-wei/publications/import", "relative links are on"),
        (None, "/directory/people/xingda-wei", "et al."),
    ]
    for who, path, expected in pages:
        if who:
            sign_in(page, who)
        response = page.goto(path)
        assert response.status == 200, path
        assert expected in page.content(), path
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            violations = _all_violations(page, axe_source)
            assert not violations, f"{path} ({width}px):\n{json.dumps(violations, indent=1)}"
            if shots:
                name = path.strip("/").replace("/", "_") or "index"
                page.screenshot(path=f"{shots}/{name}-{width}.png", full_page=True)
