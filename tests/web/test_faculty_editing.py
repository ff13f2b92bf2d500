"""The faculty member's editor: no nameless advising relation, the publication tools one click
from /me, a news date on one row, a one-line field for research interests."""

from __future__ import annotations

import re

from sqlalchemy import select

from directory import models as m
from tests.conftest import login
from tests.support.editing import post
from tests.support.pages import get

BASE = "/directory/people/ada-lovelace/edit"


def _errors(html: str) -> dict[str, list[str]]:
    return {
        field: re.findall(r"<li>(.*?)</li>", block)
        for field, block in re.findall(
            r'<ul class="field__errors" id="([a-z_]+)-errors">(.*?)</ul>', html, re.S
        )
    }


def test_an_empty_advising_form_saves_nothing_and_says_what_is_missing(
    client, db, make_person
) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    for data in ({}, {"other_name": "   "}, {"side": "advisor", "other_id": ""}):
        response = post(client, f"{BASE}/advising/new", data)
        assert response.status_code == 400
        assert _errors(response.text) == {
            "other_name": ["Choose a department member or type a name."]
        }
    assert db.scalars(select(m.AdvisingRelation)).all() == []
    # The profile's Students list has no blank bullet.
    assert "Students" not in get(client, "/directory/people/ada-lovelace")

    # A name, or a department member, is enough.
    bob = make_person("Bob Builder")
    post(client, f"{BASE}/advising/new", {"other_name": "Carol Former"})
    post(client, f"{BASE}/advising/new", {"other_id": str(bob.id)})
    relations = db.scalars(select(m.AdvisingRelation).order_by(m.AdvisingRelation.id)).all()
    assert [(r.advisor_id, r.student_display) for r in relations] == [
        (ada.id, "Carol Former"),
        (ada.id, "Bob Builder"),
    ]


def test_me_links_to_importing_and_managing_publications(client, make_person) -> None:
    make_person(user_key="ada")
    login(client, "ada")
    page = get(client, "/directory/me")
    section = page[page.index('id="publications"') :].split("</section>")[0]
    assert 'href="/directory/people/ada-lovelace/publications/import"' in section
    assert 'href="/directory/people/ada-lovelace/publications/manage"' in section
    # Both open for the owner.
    get(client, "/directory/people/ada-lovelace/publications/import")
    get(client, "/directory/people/ada-lovelace/publications/manage")


def test_a_news_date_is_one_row_and_checked_as_a_date(client, db, make_person) -> None:
    make_person(user_key="ada")
    login(client, "ada")
    form = get(client, f"{BASE}/news/new")
    group = re.search(r'<fieldset class="field-group">(.*?)</fieldset>', form, re.S).group(1)
    assert "<legend>Date (a year, or a month, or a day)</legend>" in group
    assert [name for name in re.findall(r'name="([a-z]+)"', group)] == ["year", "month", "day"]
    assert '<option value="7">July</option>' in group  # months by name, not a number field

    def add(**date: str):
        return post(client, f"{BASE}/news/new", {"body": "OSDI", **date})

    assert _errors(add(year="2026", day="30").text) == {
        "day": ["Choose the month of this day, or leave the day empty."]
    }
    assert _errors(add(year="2026", month="2", day="30").text) == {
        "day": ["February 2026 has no day 30."]
    }
    assert _errors(add(year="2026", month="13").text) == {"month": ["Not a valid choice."]}
    assert db.scalars(select(m.NewsItem)).all() == []
    assert add(year="2026", month="7").status_code == 302
    assert add(year="2025").status_code == 302
    assert add(year="2024", month="2", day="29").status_code == 302
    items = db.scalars(select(m.NewsItem).order_by(m.NewsItem.year)).all()
    assert [(n.year, n.month, n.day) for n in items] == [
        (2024, 2, 29),
        (2025, None, None),
        (2026, 7, None),
    ]
    # Editing shows the stored month selected.
    july = items[2]
    assert '<option selected value="7">July</option>' in get(client, f"{BASE}/news/{july.id}")


def test_research_interests_is_a_one_line_field(client, db, make_person) -> None:
    make_person(user_key="ada")
    login(client, "ada")
    form = get(client, f"{BASE}/profile")
    field = re.search(r"<[a-z]+[^>]*\bname=\"interests\"[^>]*>", form).group(0)
    assert field.startswith("<input") and 'type="text"' in field
    assert "Research interests</label>" in form and "(one line)" not in form
