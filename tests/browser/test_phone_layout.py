"""On a phone (390×844): the recruiting page's first position shows in the first screen (its
filters fold into a summary that opens them, without JavaScript), and no page of the site is
wider than the screen. On a wide screen the filters are open as before."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from directory import models as m
from tests.browser.conftest import sign_in
from tests.browser.test_a11y import A11Y_PAGES

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
#: The prospective student's question, and the page with no filter.
RECRUITING = [
    "/directory/recruiting?level=phd&term=Fall+2026&area=machine-learning-systems",
    "/directory/recruiting",
]


def first_notice_top(page) -> float:
    return page.evaluate(
        "() => document.querySelector('article.notice').getBoundingClientRect().top"
    )


@pytest.mark.parametrize("path", RECRUITING)
def test_the_first_position_is_in_the_first_screen_of_a_phone(demo, page, path) -> None:
    page.set_viewport_size(PHONE)
    page.goto(path)
    assert page.evaluate("() => scrollY") == 0
    top = first_notice_top(page)
    print(f"{path}: first position at {top:.0f} px of {PHONE['height']}")
    # Its name and what it is for (the first ~120 px of the card) are on the screen.
    assert top + 120 < PHONE["height"], top
    # The filters are folded, one tap away; opening them needs no script.
    level = page.locator("#filter-level")
    assert not level.is_visible()
    page.locator("summary.filter-panel__summary").click()
    assert level.is_visible()
    page.select_option("#filter-level", "postdoc")
    page.locator(".filters button[type=submit]").click()
    page.wait_for_url("**level=postdoc**")
    assert "No open position matches these filters." in page.content()


@pytest.mark.parametrize("path", ["/directory/", "/directory/?recruiting=1"])
def test_the_first_person_is_in_the_first_screen_of_a_phone(demo, page, path) -> None:
    page.set_viewport_size(PHONE)
    page.goto(path)
    top = page.evaluate("() => document.querySelector('article.card').getBoundingClientRect().top")
    assert top + 120 < PHONE["height"], top
    assert not page.locator("#filter-role").is_visible()


def test_on_a_wide_screen_the_filters_are_open(demo, page) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(RECRUITING[0])
    assert page.locator("#filter-level").is_visible()
    assert not page.locator("summary.filter-panel__summary").is_visible()
    assert first_notice_top(page) < 900


def _main_pages(db) -> list[tuple[str | None, str]]:
    """(who is signed in, path): the accessibility audit's pages, every research area's page,
    a paper page and a CV."""
    pages = [(who, path) for _kind, who, path, status in A11Y_PAGES if status == 200]
    pages += [
        (None, f"/directory/areas/{slug}") for slug in db.scalars(select(m.ResearchArea.slug))
    ]
    uid = db.scalar(select(m.Publication.uid).order_by(m.Publication.id))
    pages += [
        (None, f"/directory/publications/{uid}"),
        (None, "/directory/people/danyang-zhuo/cv"),
        (None, RECRUITING[0]),
    ]
    return pages


def test_no_page_is_wider_than_a_phone(demo, db, page) -> None:
    page.set_viewport_size(PHONE)
    too_wide = {}
    signed_in = None
    for who, path in _main_pages(db):
        if who != signed_in:
            if who:
                sign_in(page, who)
            else:
                page.goto("/_test/sign-out")
            signed_in = who
        response = page.goto(path)
        assert response.status == 200, path
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            widest = page.evaluate(
                """() => [...document.querySelectorAll('body *')]
                    .filter(e => e.getBoundingClientRect().right > innerWidth + 1)
                    .slice(0, 3).map(e => e.tagName + '.' + e.className)"""
            )
            too_wide[path] = (width, widest)
    assert too_wide == {}
