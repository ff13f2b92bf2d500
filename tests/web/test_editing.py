"""Self-service editing through the generic entry views: add, edit, delete, reorder,
visibility, validation, Markdown preview, conflicts, CSRF, and the history."""

from __future__ import annotations

import html as htmllib
import re
from datetime import date

from sqlalchemy import select

from directory import models as m
from directory.models import ChangeRecord
from tests.conftest import login
from tests.support.editing import post

BASE = "/directory/people/ada-lovelace/edit"


def public_page(client, slug: str = "ada-lovelace") -> str:
    response = client.get(f"/directory/people/{slug}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def news(db, person) -> list[m.NewsItem]:
    db.expire_all()
    return list(
        db.scalars(
            select(m.NewsItem)
            .where(m.NewsItem.owner_id == person.id)
            .order_by(m.NewsItem.position, m.NewsItem.id)
        )
    )


def test_me_shows_the_editor_of_the_signed_in_owner(client, make_person) -> None:
    make_person(user_key="ada")
    login(client, "ada")
    page = client.get("/directory/me").get_data(as_text=True)
    assert "My profile" in page
    for title in ("News", "Education", "Students and advisors", "Recruiting notices"):
        assert title in page
    assert 'name="csrf_token"' in page


def test_the_editors_one_button_forms_carry_a_token_that_is_accepted(
    client, make_person, db
) -> None:
    """The editor's one-button forms share one form object, whose token field is rendered once
    (DirectoryForm.token_field): every form carries it, and a button posted with it works."""
    person = make_person(user_key="ada")
    for i in range(3):
        db.add(m.NewsItem(owner_id=person.id, body=f"News {i}", year=2024, position=i))
    db.commit()
    login(client, "ada")
    page = client.get("/directory/me").get_data(as_text=True)
    forms = re.findall(
        r'<form method="post" action="([^"]+)" class="inline-form".*?</form>', page, re.S
    )
    tokens = re.findall(
        r'<form method="post" action="[^"]+" class="inline-form".*?'
        r'name="csrf_token" type="hidden" value="([^"]+)".*?</form>',
        page,
        re.S,
    )
    assert len(forms) >= 9 and len(tokens) == len(forms)  # move up, down, delete for each
    assert len(set(tokens)) == 1
    confirm = next(action for action in forms if action.endswith("/edit/confirm"))
    response = client.post(htmllib.unescape(confirm), data={"csrf_token": tokens[0]})
    assert response.status_code == 302
    db.expire_all()
    assert db.get(m.Person, person.id).last_confirmed == date.today()


def test_me_without_a_profile_explains_how_to_get_one(client) -> None:
    login(client, "newcomer")
    response = client.get("/directory/me")
    assert response.status_code == 200
    assert "no profile" in response.get_data(as_text=True)


def test_owner_adds_news_and_the_public_page_shows_it(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    response = post(
        client,
        f"{BASE}/news/new",
        {"year": "2026", "month": "3", "body": "Paper **accepted** at OSDI"},
    )
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/directory/me#news")
    [item] = news(db, ada)
    assert item.body == "Paper **accepted** at OSDI"
    login(client, None)
    assert "Paper <strong>accepted</strong> at OSDI" in public_page(client)


def test_invalid_input_is_refused_next_to_the_field_and_kept(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    response = post(
        client,
        f"{BASE}/news/new",
        {"year": "twenty", "body": "My typed text", "url": "javascript:alert(1)"},
    )
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "Nothing was saved" in page
    assert "My typed text" in page
    assert "Not a valid integer value" in page
    assert "starting with https://" in page
    assert news(db, ada) == []


def test_markdown_preview_renders_without_saving(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    response = post(
        client,
        f"{BASE}/news/new",
        {"year": "2026", "body": "Hello *there* <script>x()</script>", "preview": "1"},
    )
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "<em>there</em>" in page
    assert "<script>x()" not in page
    assert news(db, ada) == []


def test_edit_delete_and_visibility(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    item = m.NewsItem(owner_id=ada.id, year=2025, body="Old news")
    db.add(item)
    db.commit()
    login(client, "ada")
    form = client.get(f"{BASE}/news/{item.id}").get_data(as_text=True)
    assert "Old news" in form and 'name="version" type="hidden" value="1"' in form
    response = post(
        client,
        f"{BASE}/news/{item.id}",
        {"year": "2025", "body": "Hidden news", "visibility": "private", "version": "1"},
    )
    assert response.status_code == 302
    login(client, None)
    assert "Hidden news" not in public_page(client)
    login(client, "ada")
    assert "Hidden news" in public_page(client)
    response = post(client, f"{BASE}/news/{item.id}/delete", {"version": "2"})
    assert response.status_code == 302
    assert news(db, ada) == []


def test_reorder_with_up_and_down_buttons(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    for i, body in enumerate(["first", "second", "third"]):
        db.add(m.NewsItem(owner_id=ada.id, year=2026, body=body, position=i))
    db.commit()
    third = news(db, ada)[2]
    login(client, "ada")
    response = post(
        client, f"{BASE}/news/{third.id}/move", {"direction": "up", "version": third.version}
    )
    assert response.status_code == 302
    assert [n.body for n in news(db, ada)] == ["first", "third", "second"]
    first = news(db, ada)[0]
    post(client, f"{BASE}/news/{first.id}/move", {"direction": "down", "version": first.version})
    assert [n.body for n in news(db, ada)] == ["third", "first", "second"]
    page = public_page(client)
    assert page.index("third") < page.index("first") < page.index("second")
    record = db.scalars(select(ChangeRecord).where(ChangeRecord.action == "reorder")).first()
    assert record is not None


def test_a_stale_save_is_refused_showing_what_changed_and_keeping_the_input(
    client, make_person, db
) -> None:
    ada = make_person(user_key="ada")
    item = m.NewsItem(owner_id=ada.id, year=2025, body="Original")
    db.add(item)
    db.commit()
    login(client, "ada")
    # Tab one saves first...
    post(client, f"{BASE}/news/{item.id}", {"year": "2025", "body": "Tab one", "version": "1"})
    # ...tab two was loaded at version 1 too.
    response = post(
        client, f"{BASE}/news/{item.id}", {"year": "2025", "body": "Tab two", "version": "1"}
    )
    assert response.status_code == 409
    page = htmllib.unescape(response.get_data(as_text=True))
    assert "someone else changed this" in page
    assert "Tab two" in page  # the user's input is kept
    assert "Original" in page and "Tab one" in page  # what changed meanwhile
    assert news(db, ada)[0].body == "Tab one"
    # Saving again after seeing the conflict is a deliberate overwrite.
    response = post(
        client, f"{BASE}/news/{item.id}", {"year": "2025", "body": "Tab two", "version": "2"}
    )
    assert response.status_code == 302
    assert news(db, ada)[0].body == "Tab two"


def test_a_save_of_an_entry_deleted_meanwhile_keeps_the_input(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    item = m.NewsItem(owner_id=ada.id, year=2025, body="Original")
    db.add(item)
    db.commit()
    item_id = item.id
    login(client, "ada")
    post(client, f"{BASE}/news/{item_id}/delete", {"version": "1"})
    response = post(
        client, f"{BASE}/news/{item_id}", {"year": "2025", "body": "My edit", "version": "1"}
    )
    assert response.status_code == 409
    page = response.get_data(as_text=True)
    assert "deleted while you were editing" in page and "My edit" in page


def test_a_post_without_csrf_token_changes_nothing(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    response = client.post(f"{BASE}/news/new", data={"year": "2026", "body": "Forged"})
    assert response.status_code == 400
    assert "expired or came from elsewhere" in response.get_data(as_text=True)
    assert news(db, ada) == []
    item = m.NewsItem(owner_id=ada.id, year=2025, body="Keep me")
    db.add(item)
    db.commit()
    response = client.post(f"{BASE}/news/{item.id}/delete", data={"version": "1"})
    assert response.status_code == 400
    assert len(news(db, ada)) == 1


def test_profile_fields_links_and_areas(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    area = m.ResearchArea(slug="systems", name="Systems")
    db.add(area)
    db.commit()
    login(client, "ada")
    response = post(
        client,
        f"{BASE}/profile",
        {
            "full_name": "Ada Lovelace",
            "title": "Professor of Engines",
            "bio": "I write **programs**.",
            "links": "https://scholar.google.com/citations?user=x\nLab | https://lab.example.edu",
            "areas": str(area.id),
            "visibility": "public",
            "version": str(ada.version),
        },
    )
    assert response.status_code == 302
    db.expire_all()
    person = db.get(m.Person, ada.id)
    assert person.title == "Professor of Engines"
    assert [(k.kind, k.label) for k in person.links] == [("scholar", None), ("other", "Lab")]
    assert [a.name for a in person.areas] == ["Systems"]
    page = public_page(client)
    assert "I write <strong>programs</strong>." in page and "Systems" in page


def test_every_kind_can_be_added_through_the_one_generic_view(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    make_person("Bob Builder", role="phd_student", user_key="bob")
    login(client, "ada")
    samples = {
        "education": {"degree": "Ph.D.", "institution": "Cambridge", "start_year": "1990"},
        "experience": {"kind": "job", "title": "Analyst", "organisation": "Engines Ltd"},
        "projects": {"title": "Difference Engine", "status": "current"},
        "teaching": {"title": "Operating Systems", "role": "instructor", "year": "2025"},
        "service": {"kind": "program_committee", "venue": "OSDI", "year": "2026"},
        "awards": {"title": "Best Paper Award", "year": "2024"},
        "funding": {"funder": "NSF"},
        "custom_sections": {"title": "Hobbies", "body": "Chess"},
        "recruiting": {"level": "phd", "description": "Join my lab", "term": "Fall 2027"},
        "news": {"year": "2026", "body": "Hello"},
        "advising": {"side": "student", "other_name": "Carol Former", "role": "advisor",
                     "degree": "phd", "status": "graduated", "end_year": "2020"},
    }  # fmt: skip
    for kind, data in samples.items():
        response = post(client, f"{BASE}/{kind}/new", {"visibility": "public", **data})
        assert response.status_code == 302, (kind, response.get_data(as_text=True)[:3000])
    for kind, model in m.ENTRY_MODELS.items():
        assert db.scalar(select(model).where(model.owner_id == ada.id)) is not None, kind
    page = public_page(client)
    for text in ("Difference Engine", "Join my lab", "Hobbies", "Carol Former", "NSF"):
        assert text in page


def test_advisor_adds_a_department_student_who_must_confirm(client, make_person, db) -> None:
    make_person(user_key="ada")
    bob = make_person("Bob Builder", role="phd_student", user_key="bob")
    login(client, "ada")
    post(
        client,
        f"{BASE}/advising/new",
        {"side": "student", "other_id": str(bob.id), "role": "advisor", "degree": "phd",
         "status": "current", "visibility": "public"},
    )  # fmt: skip
    rel = db.scalar(select(m.AdvisingRelation))
    assert rel.student_id == bob.id and not rel.student_confirmed
    login(client, None)
    assert "Bob Builder" not in public_page(client)
    login(client, "bob")
    page = client.get("/directory/me").get_data(as_text=True)
    assert "Please confirm" in page and "Ada Lovelace lists you" in page
    response = post(client, f"/directory/people/bob-builder/edit/advising/{rel.id}/confirm")
    assert response.status_code == 302
    login(client, None)
    assert "Bob Builder" in public_page(client)
    assert "Ada Lovelace" in public_page(client, "bob-builder")


def test_history_records_who_what_before_and_after(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    post(client, f"{BASE}/news/new", {"year": "2026", "body": "First words"})
    item = news(db, ada)[0]
    post(client, f"{BASE}/news/{item.id}", {"year": "2026", "body": "Second words", "version": "1"})
    records = list(db.scalars(select(ChangeRecord).order_by(ChangeRecord.id)))
    assert [r.action for r in records] == ["create", "update"]
    assert records[1].actor_key == "ada" and records[1].actor_person_id == ada.id
    assert records[1].before["body"] == "First words"
    assert records[1].after["body"] == "Second words"
    page = client.get("/directory/people/ada-lovelace/history").get_data(as_text=True)
    assert "Second words" in page and "First words" in page and "Ada Lovelace" in page


def test_revert_is_itself_a_change_and_deleted_entries_can_be_restored(
    client, make_person, db
) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    post(client, f"{BASE}/news/new", {"year": "2026", "body": "Good text"})
    item = news(db, ada)[0]
    post(client, f"{BASE}/news/{item.id}", {"year": "2026", "body": "Bad text", "version": "1"})
    update = db.scalar(select(ChangeRecord).where(ChangeRecord.action == "update"))
    response = post(client, f"/directory/people/ada-lovelace/history/{update.id}/revert")
    assert response.status_code == 302
    assert news(db, ada)[0].body == "Good text"
    revert = db.scalar(select(ChangeRecord).where(ChangeRecord.action == "revert"))
    assert revert.source_id == update.id and revert.after["body"] == "Good text"

    post(client, f"{BASE}/news/{item.id}/delete", {"version": news(db, ada)[0].version})
    assert news(db, ada) == []
    deletion = db.scalar(select(ChangeRecord).where(ChangeRecord.action == "delete"))
    post(client, f"/directory/people/ada-lovelace/history/{deletion.id}/revert")
    [restored] = news(db, ada)
    assert restored.body == "Good text"
    login(client, None)
    assert "Good text" in public_page(client)


def test_publication_added_by_hand_with_marks_links_and_coauthors(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    bob = make_person("Bob Builder", role="phd_student", name_variants=["B. Builder"])
    login(client, "ada")
    response = post(
        client,
        f"{BASE}/publications/new",
        {
            "title": "Analytical Engines at Scale",
            "authors": "B. Builder*\nAda Lovelace* †\nCharles Babbage",
            "venue": "OSDI 2026", "venue_short": "OSDI'26", "year": "2026",
            "type": "conference", "status": "accepted", "visibility": "public",
            "links": "https://papers.example/engines.pdf\nCode | https://github.com/ada/engines",
            "awards": "Best Paper Award", "badges": "USENIX | Artifacts Available",
        },
    )  # fmt: skip
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    pub = db.scalar(select(m.Publication))
    assert [(a.name, a.person_id, a.co_first, a.corresponding) for a in pub.authorships] == [
        ("B. Builder", bob.id, True, False),
        ("Ada Lovelace", ada.id, True, True),
        ("Charles Babbage", None, False, False),
    ]
    assert [(k.kind, k.label) for k in pub.links] == [("paper", None), ("code", None)]
    page = public_page(client)
    assert "Analytical Engines at Scale" in page and "Best Paper Award" in page
    # Bob's name links, but the paper is his once he accepts it (a name is no proof).
    assert "Analytical Engines at Scale" not in public_page(client, "bob-builder")
    asked = db.scalar(select(m.ClaimCandidate).where(m.ClaimCandidate.person_id == bob.id))
    assert (asked.publication_id, asked.found_by) == (pub.id, "name")


def test_profile_page_offers_edit_link_only_to_editors(client, make_person) -> None:
    make_person(user_key="ada")
    assert "Edit profile" not in public_page(client)
    login(client, "someone")
    assert "Edit profile" not in public_page(client)
    login(client, "ada")
    assert "Edit profile" in public_page(client)
    login(client, "admin")
    assert "Edit profile" in public_page(client)


def test_reverting_an_old_change_keeps_later_edits_to_other_fields(client, make_person, db) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    post(client, f"{BASE}/news/new", {"year": "2026", "body": "Text"})
    item = news(db, ada)[0]
    post(client, f"{BASE}/news/{item.id}", {"year": "2025", "body": "Text", "version": "1"})
    post(client, f"{BASE}/news/{item.id}", {"year": "2025", "body": "Better", "version": "2"})
    year_change = db.scalars(select(ChangeRecord).where(ChangeRecord.action == "update")).first()
    post(client, f"/directory/people/ada-lovelace/history/{year_change.id}/revert")
    [reverted] = news(db, ada)
    assert (reverted.year, reverted.body) == (2026, "Better")
