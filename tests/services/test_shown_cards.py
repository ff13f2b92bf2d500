"""The department's person cards (the people listing, a research area's people, a host's
fragments) are read as plain values (:mod:`directory.services.shown_cards`), not ORM objects:
every person must read the same either way. For each person of a fixture with links, areas,
photos, a recruiting notice, members-only, private and unlisted profiles, and for each kind of
viewer: the same card (with and without a recruiting badge), the same JSON-LD, the same
answer of the access check; and the listing, the area page and the fragment list the people
the access rules list, as the objects do."""

from __future__ import annotations

from dataclasses import fields
from datetime import date

import pytest
from flask import render_template_string
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from directory import models as m
from directory.services import shown_cards as shown
from directory.services.access import listed_people, people_in_area, person_visible
from directory.services.department.areas import area_page, people_in_area_cards
from directory.services.department.people import ListingFilters, listing
from directory.services.identity import ANONYMOUS, Viewer
from directory.services.shown_cards import card_by_slug
from directory.web.structured import person_data

CARD = (
    '{% import "directory/_macros.html" as ui %}'
    "{{ ui.person_card(person, recruiting, level=level) }}"
)


@pytest.fixture
def people(db, make_person) -> dict[str, m.Person]:
    systems = m.ResearchArea(slug="systems", name="Systems")
    theory = m.ResearchArea(slug="theory", name="Theory", parent=systems)
    ai = m.ResearchArea(slug="ai", name="Artificial Intelligence")
    db.add_all([systems, theory, ai])
    ada = make_person(
        "Ada Lovelace", user_key="ada", rank="professor", title="Professor of Computing",
        native_name="エイダ", unit="Analytical Engines", areas=[theory, ai, systems],
    )  # fmt: skip
    ada.links = [
        m.PersonLink(kind="website", url="https://example.org/ada", position=1),
        m.PersonLink(kind="github", url="https://github.com/ada", label="Code", position=0),
    ]
    ada.photo = m.PersonPhoto(data=b"x", mime_type="image/png", width=400, height=300,
                              etag="e1", alt_text="Ada", focus_x=20, focus_y=70)  # fmt: skip
    members = make_person(
        "Barbara Liskov", visibility="members", institution="MIT", areas=[systems]
    )
    members.photo = m.PersonPhoto(data=b"y", mime_type="image/png", width=300, height=500,
                                  etag="e2", focus_x=50, focus_y=10)  # fmt: skip
    members.links = [m.PersonLink(kind="orcid", url="https://orcid.org/0000", position=0)]
    hidden = make_person("Hidden Person", visibility="private", user_key="hidden", areas=[ai])
    unlisted = make_person("Unlisted Person", published=False, role="postdoc", areas=[systems])
    manager = make_person("Lab Manager", role="staff", user_key="manager")
    db.add(m.Delegation(person_id=unlisted.id, delegate_id=manager.id))
    student = make_person("Stu Dent", role="phd_student")
    make_person("Old Alumna", role="alumni", areas=[systems])
    make_person("Gone Person", active=False, areas=[systems])
    db.add(m.RecruitingNotice(owner_id=ada.id, level="phd", description="Join", term="Fall 2027"))
    db.commit()
    return {"ada": ada, "members": members, "hidden": hidden, "unlisted": unlisted,
            "manager": manager, "student": student}  # fmt: skip


def viewers(people: dict[str, m.Person]) -> list[Viewer]:
    return [
        ANONYMOUS,
        Viewer(key="someone"),  # signed in, no profile: sees members-only profiles
        Viewer(key="ada", person_id=people["ada"].id),
        Viewer(key="hidden", person_id=people["hidden"].id),  # their own private profile
        Viewer(key="manager", person_id=people["manager"].id),  # opens the unlisted profile
        Viewer(key="admin", is_admin=True),
    ]


def objects(db) -> list[m.Person]:
    """Everyone as objects, read afresh (as a request reads them, not as the fixture made them)."""
    db.expunge_all()
    options = [selectinload(m.Person.links), selectinload(m.Person.areas)]
    return list(db.scalars(select(m.Person).options(*options, selectinload(m.Person.photo))))


def test_every_person_reads_the_same_as_a_card_as_an_object(app, db, people) -> None:
    everyone = objects(db)
    assert len(everyone) == 8
    for person in everyone:
        card = card_by_slug(db, person.slug)
        assert card is not None and card.id == person.id
        for name in shown.CARD_COLUMNS:
            assert getattr(card, name) == getattr(person, name), (person.slug, name)
        assert [(a.id, a.slug, a.name) for a in card.areas] == [
            (a.id, a.slug, a.name) for a in person.areas
        ]
        assert [(k.kind, k.url, k.label) for k in card.links] == [
            (k.kind, k.url, k.label) for k in person.links
        ]
        assert (card.photo is None) == (person.photo is None)
        if person.photo is not None:
            for name in shown.PHOTO_COLUMNS:
                assert getattr(card.photo, name) == getattr(person.photo, name)
        with app.test_request_context("/directory/"):
            assert person_data(card) == person_data(person)
            for recruiting in (None, True, "PhD students (Fall 2027)"):
                for level in (3, 4):
                    values = {"recruiting": recruiting, "level": level}
                    assert render_template_string(
                        CARD, person=card, **values
                    ) == render_template_string(CARD, person=person, **values), person.slug
            for viewer in viewers(people):
                assert person_visible(viewer, card) == person_visible(viewer, person), (
                    person.slug,
                    viewer.key,
                )
    assert card_by_slug(db, "nobody") is None
    ada = card_by_slug(db, "ada-lovelace")
    assert [a.name for a in ada.areas] == ["Artificial Intelligence", "Systems", "Theory"]
    assert [k.kind for k in ada.links] == ["github", "website"]


def test_each_plain_value_takes_its_columns_by_name() -> None:
    """The values are built from rows positionally: each class's fields start with the very
    columns its statement selects, in that order."""
    for kind, columns in (
        (shown.PersonCard, shown.CARD_COLUMNS),
        (shown.CardPhoto, shown.PHOTO_COLUMNS),
        (shown.CardArea, shown.AREA_COLUMNS),
        (shown.ShownLink, shown.LINK_COLUMNS),
    ):
        names = [f.name for f in fields(kind)]
        assert names[: len(columns)] == list(columns), kind.__name__


def test_the_pages_list_the_people_the_access_rules_list(app, db, people) -> None:
    """The listing, a research area's page and the area fragment show, for each viewer, the
    people ``listed_people`` and ``people_in_area`` select as objects, each card the same."""
    day = date.today()
    fresh = {person.id: person for person in objects(db)}
    for viewer in viewers(people):
        listed = db.scalars(select(m.Person.slug).where(listed_people(viewer))).all()
        in_area = db.scalars(select(m.Person.slug).where(people_in_area(viewer, "systems"))).all()
        with app.test_request_context("/directory/"):
            page = listing(db, viewer, day, ListingFilters(), 50)
            area = area_page(db, viewer, day, "systems", 50)
            fragment = people_in_area_cards(db, viewer, "systems")
        assert sorted(p.slug for p in page.people) == sorted(listed), viewer.key
        assert sorted(p.slug for p in area.people.items) == sorted(in_area), viewer.key
        assert sorted(p.slug for p in fragment) == sorted(in_area), viewer.key
        ada = {people["ada"].id} if "ada-lovelace" in listed else set()
        assert set(page.recruiting_ids) == ada
        with app.test_request_context("/directory/"):
            for card in [*page.people, *fragment]:
                person = fresh[card.id]
                assert render_template_string(
                    CARD, person=card, recruiting=None, level=3
                ) == render_template_string(CARD, person=person, recruiting=None, level=3)
    assert "hidden-person" in listed and "unlisted-person" not in listed  # the admin's
    assert "barbara-liskov" in in_area and "old-alumna" not in in_area
