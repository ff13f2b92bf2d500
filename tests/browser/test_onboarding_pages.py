"""The onboarding and keeping-current pages in a browser: a CSV file chosen in the file field
and previewed with its problems, the stale report with its selection, and the page of a
reminder's "still current" link, each without serious axe violation at 1280 and 390 pixels
wide. With SCREENSHOTS set to a folder, each page is also kept there as a PNG at both widths
(for looking at them; the test does not need them)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from directory import models as m
from tests.browser.conftest import sign_in
from tests.browser.test_a11y import axe_source, run_axe  # noqa: F401 - the module's axe fixture
from tests.support.mail import links_in, mail_settings, smtp_server, text_of

pytestmark = pytest.mark.browser

LONG_AGO = datetime.now(UTC) - timedelta(days=900)
CSV = (
    "name,email,role,unit,areas,advisor\n"
    "王小明,xiaoming@cs.example.edu,PhD student,IPADS,Distributed Systems; Networking,"
    "xingda.wei@example.edu\n"
    "Priya Raman,priya@cs.example.edu,Postdoctoral researcher,,Distributed Sytems,\n"
    "Jonas Berg,jonas@cs.example.edu,professor,,,\n"
    "Ana Lima,priya@cs.example.edu,Master's student,,,Nobody Known\n"
    "María José Fernández-Castillo,mjfc@cs.example.edu,faculty,Distributed Systems Group,,\n"
)


def check(page, axe: str, name: str) -> None:
    """No serious violation at either width; kept as PNGs when SCREENSHOTS names a folder."""
    folder = os.environ.get("SCREENSHOTS")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        violations = run_axe(page, axe)
        assert not violations, f"{name} at {width}px:\n{json.dumps(violations, indent=1)}"
        if folder:
            page.screenshot(path=str(Path(folder) / f"{name}-{width}.png"), full_page=True)


@pytest.fixture
def stale(demo, db):
    """Two demo people whose profiles nobody touched for years, one with an address."""
    people = {p.slug: p for p in db.scalars(select(m.Person))}
    people["xingda-wei"].email = "xingda.wei@example.edu"
    for slug in ("yang-liu", "zhuo-chen"):
        people[slug].created_at = LONG_AGO
        people[slug].email = f"{slug}@example.edu" if slug == "yang-liu" else None
        for record in db.scalars(
            select(m.ChangeRecord).where(m.ChangeRecord.person_id == people[slug].id)
        ):
            record.created_at = LONG_AGO
    db.commit()
    return people


def test_the_csv_preview_shows_each_row_s_problems(page, stale, axe_source) -> None:  # noqa: F811
    sign_in(page, "admin")
    page.goto("/directory/admin/people/import")
    check(page, axe_source, "onboarding-upload")
    page.set_input_files(
        "#people_file",
        files=[{"name": "new-people.csv", "mimeType": "text/csv", "buffer": CSV.encode()}],
    )
    page.get_by_role("button", name="Preview").click()
    assert page.locator("h1").inner_text() == "Preview: 5 people from new-people.csv"
    assert page.locator("#line-3").get_by_text("Did you mean “Distributed Systems”?").is_visible()
    assert page.locator("#line-5").get_by_text("The same e-mail address as line 3.").count() == 1
    check(page, axe_source, "onboarding-preview")
    page.get_by_role("button", name="Create 2 people and their invitations").click()
    assert page.locator("h1").inner_text() == "Onboarded 2 people"
    check(page, axe_source, "onboarding-done")


def test_a_reminder_chosen_on_the_stale_report_is_e_mailed_and_its_link_followed(
    page,
    db,
    stale,
    axe_source,  # noqa: F811 - the fixture
    browser_app,
    monkeypatch,
) -> None:
    with smtp_server() as (inbox, port):
        for key, value in mail_settings(port).items():
            monkeypatch.setitem(browser_app.config, key, value)
        sign_in(page, "admin")
        page.goto("/directory/admin/stale")
        assert page.get_by_role("link", name="Yang Liu", exact=True).count() == 1
        assert page.get_by_label("Remind Zhuo Chen").count() == 0  # no address
        check(page, axe_source, "stale-report")
        page.get_by_label("Remind Yang Liu").check()
        page.get_by_role("button", name="Send a reminder to the people chosen").click()
        # After a click, the count waits for the page the form's answer is (count() would not).
        expect(page.get_by_text("Reminder sent to 1 person: Yang Liu.")).to_have_count(1)
        check(page, axe_source, "stale-report-sent")
        [message] = inbox.messages
    [link] = [link for link in links_in(text_of(message)) if "/current/" in link]
    page.goto("/_test/sign-out")
    page.goto(link)
    check(page, axe_source, "still-current")
    page.get_by_role("button", name="Yes, my profile is still current").click()
    expect(page.get_by_text("is marked as current")).to_have_count(1)
    page.goto(link)
    assert page.get_by_text("has been used already").count() == 1
    check(page, axe_source, "still-current-used")
    db.expire_all()
    assert db.get(m.Person, stale["yang-liu"].id).last_confirmed is not None
