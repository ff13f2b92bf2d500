"""The claim queue ("Found for you") on the editor: axe-core finds no violation in the light
and the dark colour scheme at 1280 and 390 px, and both answers work without JavaScript. With
``DIRECTORY_SHOTS`` set to a folder, each view is also saved there as a screenshot."""

from __future__ import annotations

import json
import os

import pytest
from sqlalchemy import select

from directory import models as m
from tests.browser.conftest import sign_in
from tests.browser.test_a11y import axe_source  # noqa: F401 - the fixture
from tests.browser.test_paper_pages_a11y import _all_violations

pytestmark = pytest.mark.browser


def _queue(db) -> m.Person:
    wei = db.scalar(select(m.Person).where(m.Person.slug == "xingda-wei"))
    works = [
        ("Disaggregated Key-Value Stores over RDMA, Revisited at Datacenter Scale", "orcid", 90,
         [{"code": "identifier", "weight": 60, "detail": "orcid"},
          {"code": "name_exact", "weight": 20, "detail": "Xingda Wei"},
          {"code": "coauthor", "weight": 10, "detail": "Rong Chen"}]),
        ("Soil Chemistry of Alpine Meadows", "crossref", 0,
         [{"code": "name_initials", "weight": 6, "detail": "X. Wei"},
          {"code": "before_degree", "weight": -40, "detail": [2009, 2013]}]),
        ("面向分布式事务的快速远程内存访问", "openalex", 35,
         [{"code": "identifier", "weight": 60, "detail": "openalex"},
          {"code": "name_exact", "weight": 20, "detail": "魏星达"},
          {"code": "namesake", "weight": -15, "detail": "Xingda Wei (PhD student)"}]),
    ]  # fmt: skip
    for i, (title, source, score, evidence) in enumerate(works):
        authors = [{"name": r["detail"]} for r in evidence if r["code"].startswith("name_")]
        db.add(m.ClaimCandidate(
            person_id=wei.id, work_key=f"title:{i}", keys=[f"title:{i}"], title=title,
            year=2021 + i, source=source, found_by=source if source != "crossref" else "name",
            score=score, evidence=evidence,
            work={"source": source, "source_key": str(i), "title": title, "year": 2021 + i,
                  "venue": "SOSP" if i == 0 else None, "found_by": source,
                  "authors": authors + [{"name": "Rong Chen"}, {"name": "Haibo Chen"}]},
        ))  # fmt: skip
    db.commit()
    return wei


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_queue_has_no_violation_in_either_scheme_and_width(
    demo, db, page, axe_source, scheme  # noqa: F811
) -> None:  # fmt: skip
    _queue(db)
    sign_in(page, "admin")
    page.emulate_media(color_scheme=scheme)
    response = page.goto("/directory/people/xingda-wei/edit#found")
    assert response.status == 200
    assert page.locator("#found li.claim").count() == 3
    shots = os.environ.get("DIRECTORY_SHOTS")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        violations = _all_violations(page, axe_source)
        assert not violations, f"{scheme}, {width}px:\n{json.dumps(violations, indent=1)}"
        if shots:
            page.locator("#found").screenshot(path=f"{shots}/queue-{scheme}-{width}.png")


def test_accepting_and_rejecting_work_without_javascript(demo, db, browser_context) -> None:
    wei = _queue(db)
    page = browser_context.new_page()
    page.context.route("**/*.js", lambda route: route.abort())
    sign_in(page, "admin")
    page.goto("/directory/people/xingda-wei/edit#found")
    accept = "Mine: Disaggregated Key-Value Stores over RDMA, Revisited at Datacenter Scale"
    page.get_by_role("button", name=accept, exact=True).click()
    assert "Added to the profile" in page.content()
    reject = "Not mine: Soil Chemistry of Alpine Meadows"
    page.get_by_role("button", name=reject, exact=True).click()
    assert "will not be suggested again" in page.content()
    db.expire_all()
    states = dict(db.execute(select(m.ClaimCandidate.title, m.ClaimCandidate.state).where(
        m.ClaimCandidate.person_id == wei.id)).all())  # fmt: skip
    assert states["Soil Chemistry of Alpine Meadows"] == "rejected"
    assert states["Disaggregated Key-Value Stores over RDMA, Revisited at Datacenter Scale"] == (
        "accepted"
    )
