"""Every editing route, walked as anonymous, member, owner, delegate, another student and
admin: exactly who may do what. Refusals are 403 and change nothing."""

from __future__ import annotations

from base64 import b64encode
from typing import Any

import pytest
from sqlalchemy import func, select

from directory import models as m
from directory.models import ChangeRecord, Delegation, Invitation, PendingChange
from tests.conftest import login
from tests.support.editing import post

ROLES = ("anonymous", "member", "owner", "delegate", "student", "admin")
KEYS = {"anonymous": None, "member": "mia", "owner": "ada", "delegate": "dan",
        "student": "sam", "admin": "admin"}  # fmt: skip
EDITORS = {"owner", "delegate", "admin"}
SIGNED_IN = set(ROLES) - {"anonymous"}
OWNER_OR_ADMIN = {"owner", "admin"}
ADMIN = {"admin"}

P = "/directory/people/ada-lovelace"
#: A file of one person for the admin's onboarding.
ONBOARDING_CSV = b"name,email,role\nNew Person,new@x.org,faculty\n"
NEWS = {"year": "2026", "body": "Matrix news", "visibility": "public"}


@pytest.fixture
def world(db, make_person) -> dict[str, Any]:
    ada = make_person(user_key="ada")
    mia = make_person("Mia Member", user_key="mia")
    dan = make_person("Dan Delegate", role="staff", user_key="dan")
    sam = make_person("Sam Student", role="phd_student", user_key="sam")
    db.add(Delegation(person_id=ada.id, delegate_id=dan.id))
    item = m.NewsItem(owner_id=ada.id, year=2025, body="Existing news", position=1)
    db.add(m.NewsItem(owner_id=ada.id, year=2026, body="Newer news", position=0))
    area = m.ResearchArea(slug="systems", name="Systems")
    pub = m.Publication(title="A Paper", year=2024, created_by_id=ada.id)
    pub.authorships.append(m.Authorship(position=0, name="Ada Lovelace", person=ada))
    relation = m.AdvisingRelation(
        owner_id=mia.id, advisor_id=mia.id, student_id=ada.id, student_confirmed=False
    )
    # Imported by Mia: "A. Lovelace" may be Ada, who is asked (not linked).
    asked = m.Publication(title="A Paper Mia Imported", year=2023, created_by_id=mia.id)
    asked.authorships.append(m.Authorship(position=0, name="Mia Member", person=mia))
    asked.authorships.append(
        m.Authorship(position=1, name="A. Lovelace", suggested_person_id=ada.id)
    )
    db.add_all([item, area, pub, relation, asked])
    db.flush()
    db.add(m.ProfilePublication(person_id=ada.id, publication_id=pub.id))
    db.add(m.ProfilePublication(person_id=mia.id, publication_id=asked.id))
    record = ChangeRecord(
        actor_key="ada", person_id=ada.id, entity_kind="news", entity_id=item.id,
        action="update", entity_version=1, before={"body": "Older news"},
        after={"body": "Existing news"},
    )  # fmt: skip
    pending = PendingChange(
        author_key="sam", person_id=sam.id, entity_kind="news", action="create",
        proposed={"year": 2026, "body": "Sam's news", "visibility": "public", "position": 0},
    )  # fmt: skip
    db.add_all([record, pending])
    # Ada's claim queue: a harvested work her ORCID record lists, and Mia's paper naming her.
    found = m.ClaimCandidate(
        person_id=ada.id, work_key="doi:10.1234/found", keys=["doi:10.1234/found"],
        title="A Work Found For Ada", year=2024, source="orcid", found_by="orcid",
        work={"source": "orcid", "source_key": "1", "title": "A Work Found For Ada",
              "year": 2024, "authors": [{"name": "Ada Lovelace"}], "found_by": "orcid"},
        evidence=[{"code": "identifier", "weight": 60, "detail": "orcid"}], score=60,
    )  # fmt: skip
    coauthored = m.ClaimCandidate(
        person_id=ada.id, work_key="title:a paper mia imported|2023", keys=[],
        publication_id=asked.id, title=asked.title, year=2023, source="coauthor",
        found_by="name", work={}, evidence=[], score=20,
    )  # fmt: skip
    db.add_all([found, coauthored])
    db.commit()
    delegation = db.scalar(select(Delegation))
    return {
        "news": item.id, "pub": pub.id, "record": record.id, "pending": pending.id,
        "area": area.id, "relation": relation.id, "delegation": delegation.id,
        "mia": mia.id, "sam": sam.id, "suggested": asked.authorships[1].id,
        "found": found.id, "coauthored": coauthored.id,
    }  # fmt: skip


def _routes() -> list[tuple[str, str, str, Any, set[str]]]:
    """(name, method, url, form data, roles allowed)."""
    routes = [
        ("me", "GET", "/directory/me", None, SIGNED_IN),
        ("editor", "GET", f"{P}/edit", None, EDITORS),
        ("profile form", "GET", f"{P}/edit/profile", None, EDITORS),
        ("profile save", "POST", f"{P}/edit/profile",
         lambda w: {"full_name": "Ada Lovelace", "visibility": "public", "title": "Changed"},
         EDITORS),
        ("photo form", "GET", f"{P}/edit/photo", None, EDITORS),
        ("paper list and cv form", "GET", f"{P}/edit/papers-and-cv", None, EDITORS),
        ("paper list and cv save", "POST", f"{P}/edit/papers-and-cv",
         lambda w: {"repeat_selected": "y", "cv_publications": "1", "version": "1"}, EDITORS),
        ("photo remove", "POST", f"{P}/edit/photo/remove", lambda w: {}, EDITORS),
        ("confirm current", "POST", f"{P}/edit/confirm", lambda w: {}, EDITORS),
        ("confirm advising", "POST", f"{P}/edit/advising/{{relation}}/confirm",
         lambda w: {}, EDITORS),
        ("confirm authorship", "POST", f"{P}/edit/authorships/{{suggested}}/confirm",
         lambda w: {}, EDITORS),
        ("decline authorship", "POST", f"{P}/edit/authorships/{{suggested}}/decline",
         lambda w: {}, EDITORS),
        ("accept candidate", "POST", f"{P}/edit/found/{{found}}/accept", lambda w: {}, EDITORS),
        ("reject candidate", "POST", f"{P}/edit/found/{{coauthored}}/reject",
         lambda w: {}, EDITORS),
        ("accept all found by ORCID", "POST", f"{P}/edit/found/orcid/accept-all",
         lambda w: {}, EDITORS),
        ("check now", "POST", f"{P}/edit/found/check-now", lambda w: {}, EDITORS),
        ("entry edit form", "GET", f"{P}/edit/news/{{news}}", None, EDITORS),
        ("entry save", "POST", f"{P}/edit/news/{{news}}",
         lambda w: {**NEWS, "version": "1"}, EDITORS),
        ("entry move", "POST", f"{P}/edit/news/{{news}}/move",
         lambda w: {"direction": "up", "version": "1"}, EDITORS),
        ("entry delete", "POST", f"{P}/edit/news/{{news}}/delete",
         lambda w: {"version": "1"}, EDITORS),
        ("publication new form", "GET", f"{P}/edit/publications/new", None, EDITORS),
        ("publication edit", "POST", f"{P}/edit/publications/{{pub}}",
         lambda w: {"title": "Renamed", "authors": "Ada Lovelace", "type": "conference",
                    "status": "published", "visibility": "public", "version": "1"}, EDITORS),
        ("publication remove", "POST", f"{P}/edit/publications/{{pub}}/remove",
         lambda w: {"version": "1"}, EDITORS),
        ("history", "GET", f"{P}/history", None, EDITORS),
        ("revert", "POST", f"{P}/history/{{record}}/revert", lambda w: {}, EDITORS),
        ("delegates", "GET", f"{P}/edit/delegates", None, OWNER_OR_ADMIN),
        ("delegate add", "POST", f"{P}/edit/delegates",
         lambda w: {"delegate_id": str(w["mia"])}, OWNER_OR_ADMIN),
        ("delegate remove", "POST", f"{P}/edit/delegates/{{delegation}}/remove",
         lambda w: {}, OWNER_OR_ADMIN),
        ("approvals", "GET", "/directory/approvals", None, ADMIN),
        ("approve", "POST", "/directory/approvals/{pending}/approve", lambda w: {}, ADMIN),
        ("reject", "POST", "/directory/approvals/{pending}/reject",
         lambda w: {"reason": "No"}, ADMIN),
        ("admin home", "GET", "/directory/admin/", None, ADMIN),
        ("harvest status", "GET", "/directory/admin/harvest", None, ADMIN),
        ("admin people", "GET", "/directory/admin/people", None, ADMIN),
        ("admin person", "GET", "/directory/admin/people/ada-lovelace", None, ADMIN),
        ("admin new person", "POST", "/directory/admin/people/new",
         lambda w: {"full_name": "New Person", "role": "faculty", "visibility": "public",
                    "active": "y"}, ADMIN),
        ("admin deactivate", "POST", "/directory/admin/people/ada-lovelace/deactivate",
         lambda w: {}, ADMIN),
        ("admin invite", "POST", "/directory/admin/people/ada-lovelace/invite",
         lambda w: {}, ADMIN),
        ("admin merge form", "GET", "/directory/admin/merge", None, ADMIN),
        ("admin merge", "POST", "/directory/admin/merge",
         lambda w: {"keep_id": str(w["mia"]), "merge_id": str(w["sam"])}, ADMIN),
        ("admin areas", "GET", "/directory/admin/areas", None, ADMIN),
        ("admin area save", "POST", "/directory/admin/areas/{area}",
         lambda w: {"name": "Systems!", "version": "1"}, ADMIN),
        ("admin area delete", "POST", "/directory/admin/areas/{area}/delete",
         lambda w: {}, ADMIN),
        ("admin stale", "GET", "/directory/admin/stale", None, ADMIN),
        ("admin onboard form", "GET", "/directory/admin/people/import", None, ADMIN),
        ("admin onboard", "POST", "/directory/admin/people/import/confirm",
         lambda w: {"source": b64encode(ONBOARDING_CSV).decode(), "lines": "2"},
         ADMIN),
        ("publish", "POST", f"{P}/publish", lambda w: {"listed": "0"}, OWNER_OR_ADMIN),
    ]  # fmt: skip
    for kind in m.ENTRY_MODELS:
        routes.append((f"new {kind} form", "GET", f"{P}/edit/{kind}/new", None, EDITORS))
    return routes


ROUTES = _routes()


def _state(db) -> tuple:
    """A fingerprint of everything the routes could change."""
    db.expire_all()
    counts = tuple(
        db.scalar(select(func.count()).select_from(model))
        for model in (*m.ENTRY_MODELS.values(), m.Person, m.Publication, m.ProfilePublication,
                      m.ResearchArea, ChangeRecord, PendingChange, Delegation, Invitation,
                      m.HarvestRequest, m.ClaimRejection)
    )  # fmt: skip
    versions = tuple(
        db.scalars(select(m.Person.version).order_by(m.Person.id)).all()
        + db.scalars(select(m.NewsItem.version).order_by(m.NewsItem.id)).all()
        + db.scalars(select(m.AdvisingRelation.version)).all()
        + db.scalars(select(m.Publication.version)).all()
        + db.scalars(select(PendingChange.status)).all()
        + db.scalars(select(m.ResearchArea.name)).all()
        + db.scalars(select(m.ClaimCandidate.state).order_by(m.ClaimCandidate.id)).all()
    )
    return counts + versions


@pytest.mark.parametrize(("name", "method", "url", "data", "allowed"), ROUTES,
                         ids=[r[0] for r in ROUTES])  # fmt: skip
def test_who_may_do_what(client, db, connection, world, name, method, url, data, allowed) -> None:
    target = url.format(**world)
    before = _state(db)  # the same for every role: each role's changes are rolled back
    for role in ROLES:
        # Each role starts from the same world: its changes are rolled back after it.
        savepoint = connection.begin_nested()
        try:
            login(client, KEYS[role])
            response = client.get(target) if method == "GET" else post(client, target, data(world))
            if role in allowed:
                # Invitation links are shown once, on the answer to the POST.
                redirects = method == "POST" and name not in ("admin invite", "admin onboard")
                expected = 302 if redirects or (name == "editor" and role == "owner") else 200
                assert response.status_code == expected, (role, response.get_data(as_text=True))
                if method == "POST" and name != "photo remove":
                    assert _state(db) != before, f"an allowed POST by {role} changed nothing"
            else:
                assert response.status_code == 403, role
                if method == "POST":
                    assert _state(db) == before, role
        finally:
            savepoint.rollback()
            db.expire_all()


def test_the_refusal_tells_nothing_about_a_private_profile(client, make_person) -> None:
    make_person(user_key="ada", visibility="private")
    make_person("Mia Member", user_key="mia")
    login(client, "mia")
    assert client.get(f"{P}/edit").status_code == 404
    assert client.get("/directory/people/no-such-person/edit").status_code == 404
    assert post(client, f"{P}/edit/news/new", NEWS).status_code == 404


def test_a_refused_post_leaks_no_private_entry(client, db, world) -> None:
    db.get(m.NewsItem, world["news"]).visibility = "private"
    db.commit()
    login(client, "mia")
    response = client.get(f"{P}/edit/news/{world['news']}")
    assert response.status_code == 403
    assert "Existing news" not in response.get_data(as_text=True)


def test_an_entry_of_someone_else_cannot_be_reached_through_ones_own_profile(
    client, db, world
) -> None:
    """The server checks the entry belongs to the profile in the URL, whatever a form says."""
    login(client, "mia")
    url = f"/directory/people/mia-member/edit/news/{world['news']}"
    assert client.get(url).status_code == 404
    assert post(client, url, {**NEWS, "version": "1"}).status_code == 409
    assert post(client, f"{url}/delete", {"version": "1"}).status_code == 404
    assert db.get(m.NewsItem, world["news"]).body == "Existing news"
