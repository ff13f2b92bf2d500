"""What people do in the editor, in a real browser (Debian's Chromium through Playwright)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from directory import models as m
from tests.browser.conftest import sign_in

pytestmark = pytest.mark.browser


def test_a_new_member_claims_the_profile_and_builds_it(page, db, browser_app) -> None:
    # An admin creates the person and an invitation.
    sign_in(page, "admin")
    page.goto("/directory/admin/people/new")
    page.get_by_label("Full name").fill("Grace Hopper")
    page.get_by_label("Role").select_option("faculty")
    page.get_by_role("button", name="Create person").click()
    expect(page.get_by_text("Saved Grace Hopper.")).to_be_visible()
    page.get_by_role("button", name="Create an invitation link").click()
    link = page.locator(".invite-link code").inner_text()
    assert "/directory/claim/" in link

    # The new member signs in and follows it.
    sign_in(page, "grace")
    page.goto(link)
    page.get_by_role("button", name="Claim this profile").click()
    expect(page.get_by_role("heading", name="My profile", exact=True)).to_be_visible()

    # Bio in Markdown, with a preview first.
    page.get_by_role("link", name="Edit profile details").click()
    page.get_by_label("Biography").fill("I build **compilers** and teach.")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator(".md-preview strong")).to_have_text("compilers")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Profile Saved.")).to_be_visible()

    # A publication by hand.
    page.get_by_role("link", name="Add a publication").click()
    page.get_by_label("Title").fill("A Compiler for Everyone")
    page.get_by_label("Authors").fill("Grace Hopper* †\nAda Lovelace")
    page.get_by_label("Year").fill("2026")
    page.get_by_label("Short venue").fill("PLDI'26")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#publications")).to_contain_text("A Compiler for Everyone")

    # A student (outside the department) and a recruiting notice.
    page.get_by_role("link", name="Add advising relation").click()
    page.get_by_label("Or a name outside the department").fill("Sam Scholar")
    page.get_by_label("Start year").fill("2024")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#advising")).to_contain_text("Sam Scholar")
    page.get_by_role("link", name="Add recruiting notice").click()
    page.get_by_label("Recruiting", exact=True).select_option("phd")
    page.get_by_label("Description").fill("Join us to build **compilers**.")
    page.get_by_label("Season").select_option("fall")
    page.get_by_label("Year", exact=True).fill("2027")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#recruiting")).to_contain_text("Fall 2027")

    # Two news items, reordered with the arrows, one of them then hidden.
    for body in ("Older announcement", "Newest announcement"):
        page.get_by_role("link", name="Add news item").click()
        page.get_by_label("Year").fill("2026")
        page.get_by_label("News", exact=True).fill(body)
        page.get_by_role("button", name="Save").click()
    items = page.locator("#news .entry__summary")
    expect(items.nth(0)).to_contain_text("Newest announcement")
    page.get_by_role("button", name="Move down: [2026] Newest announcement").click()
    expect(items.nth(0)).to_contain_text("Older announcement")
    page.reload()  # the order was saved, not only moved on screen
    expect(items.nth(0)).to_contain_text("Older announcement")
    page.get_by_role("link", name="Edit [2026] Older announcement").click()
    page.get_by_label("Who sees this").select_option("private")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#news")).to_contain_text("Private")

    # A profile an admin created is not listed until its owner publishes it.
    page.goto("/directory/me")
    page.get_by_role("button", name="Publish my profile").click()
    expect(page.get_by_text("Your profile is not listed yet")).not_to_be_visible()

    # The public page, as a visitor sees it.
    page.goto("/_test/sign-out")
    page.goto("/directory/people/grace-hopper")
    expect(page.locator("#about strong")).to_have_text("compilers")
    expect(page.locator("#publications")).to_contain_text("A Compiler for Everyone")
    expect(page.locator("#students")).to_contain_text("Sam Scholar")
    expect(page.locator("#recruiting")).to_contain_text("Join us to build")
    expect(page.locator("#news")).to_contain_text("Newest announcement")
    expect(page.locator("#news")).not_to_contain_text("Older announcement")
    grace = db.scalar(select(m.Person).where(m.Person.full_name == "Grace Hopper"))
    assert grace.user_key == "grace"


def test_a_students_change_appears_once_an_admin_approves_it(
    page, db, make_person, browser_app
) -> None:
    browser_app.config["DIRECTORY_APPROVAL_ROLES"] = ["phd_student"]
    try:
        make_person("Bob Builder", role="phd_student", user_key="bob")
        sign_in(page, "bob")
        page.get_by_role("link", name="Add news item").click()
        page.get_by_label("Year").fill("2026")
        page.get_by_label("News", exact=True).fill("I passed my qualifying exam")
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_text("Saved for approval")).to_be_visible()
        expect(page.get_by_role("heading", name="Waiting for approval")).to_be_visible()
        page.goto("/directory/people/bob-builder")
        expect(page.locator("main")).not_to_contain_text("qualifying exam")

        sign_in(page, "admin")
        page.goto("/directory/approvals")
        expect(page.locator(".approval")).to_contain_text("I passed my qualifying exam")
        page.get_by_role("button", name=re.compile("^Approve")).click()
        expect(page.get_by_text("Approved: the change is now public.")).to_be_visible()
        page.goto("/_test/sign-out")
        page.goto("/directory/people/bob-builder")
        expect(page.locator("#news")).to_contain_text("I passed my qualifying exam")
    finally:
        browser_app.config["DIRECTORY_APPROVAL_ROLES"] = []


def test_two_tabs_edit_the_same_entry_and_the_second_save_keeps_its_input(
    page, browser_context, db, make_person
) -> None:
    ada = make_person(user_key="ada")
    db.add(m.NewsItem(owner_id=ada.id, year=2026, body="Original text"))
    db.commit()
    sign_in(page, "ada")
    second = browser_context.new_page()
    for tab in (page, second):
        tab.goto("/directory/me")
        tab.get_by_role("link", name="Edit [2026] Original text").click()
    page.get_by_label("News", exact=True).fill("First tab's text")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("News item Saved.")).to_be_visible()

    second.get_by_label("News", exact=True).fill("Second tab's text")
    second.get_by_role("button", name="Save").click()
    alert = second.locator("#conflict")
    expect(alert).to_contain_text("Not saved: someone else changed this")
    expect(alert).to_contain_text("First tab's text")
    expect(second.get_by_label("News", exact=True)).to_have_value("Second tab's text")
    db.expire_all()
    assert db.scalar(select(m.NewsItem.body)) == "First tab's text"
