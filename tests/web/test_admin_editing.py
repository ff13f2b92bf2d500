"""The admin area and the approval queue: invitations, re-binding, deactivation, merging
duplicates, the research-area taxonomy, the stale report, and approvals with reasons."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select

from directory import models as m
from directory.models import ChangeRecord, Invitation, PendingChange
from tests.conftest import login
from tests.support.editing import post


def invite(client, slug: str) -> str:
    login(client, "admin")
    response = post(client, f"/directory/admin/people/{slug}/invite")
    assert response.status_code == 200
    link = re.search(r"<code>(http[^<]+)</code>", response.get_data(as_text=True)).group(1)
    return link.replace("http://directory.test", "")


def test_admin_creates_a_person_who_claims_the_profile_by_invitation(client, db) -> None:
    login(client, "admin")
    response = post(
        client,
        "/directory/admin/people/new",
        {"full_name": "Grace Hopper", "role": "faculty", "visibility": "public", "active": "y"},
    )
    assert response.status_code == 302
    grace = db.scalar(select(m.Person).where(m.Person.full_name == "Grace Hopper"))
    assert grace.slug == "grace-hopper" and grace.user_key is None
    link = invite(client, "grace-hopper")
    token = link.rsplit("/", 1)[1]
    stored = db.scalar(select(Invitation))
    assert token not in stored.token_hash  # only a hash is kept

    login(client, None)
    assert "sign in first" in client.get(link).get_data(as_text=True).lower()
    login(client, "grace@host")
    assert "Claim this profile" in client.get(link).get_data(as_text=True)
    response = post(client, link)
    assert response.status_code == 302 and response.headers["Location"].endswith("/me")
    db.expire_all()
    assert db.get(m.Person, grace.id).user_key == "grace@host"
    assert "My profile" in client.get("/directory/me").get_data(as_text=True)
    # Single use.
    login(client, "someone-else")
    response = client.get(link)
    assert response.status_code == 410
    assert "already been used" in response.get_data(as_text=True)


def test_an_expired_or_unknown_invitation_is_refused(client, db, make_person) -> None:
    make_person(user_key=None)
    link = invite(client, "ada-lovelace")
    invitation = db.scalar(select(Invitation))
    invitation.expires_at = datetime.now(UTC) - timedelta(minutes=1)
    db.commit()
    login(client, "ada")
    assert "expired" in client.get(link).get_data(as_text=True)
    assert post(client, link).status_code == 410
    assert client.get("/directory/claim/not-a-token").status_code == 410
    db.expire_all()
    assert db.scalar(select(m.Person.user_key)) is None


def test_a_new_invitation_replaces_the_old_one_and_admins_can_rebind(
    client, db, make_person
) -> None:
    ada = make_person(user_key="old-key")
    first = invite(client, "ada-lovelace")
    second = invite(client, "ada-lovelace")
    login(client, "new-key")
    assert client.get(first).status_code == 410
    assert post(client, second).status_code == 302
    db.expire_all()
    assert db.get(m.Person, ada.id).user_key == "new-key"
    login(client, "admin")
    response = post(
        client,
        "/directory/admin/people/ada-lovelace",
        {"full_name": "Ada Lovelace", "role": "faculty", "visibility": "public", "active": "y",
         "user_key": "third-key", "version": str(db.get(m.Person, ada.id).version)},
    )  # fmt: skip
    assert response.status_code == 302
    db.expire_all()
    assert db.get(m.Person, ada.id).user_key == "third-key"


def test_deactivating_moves_a_person_to_the_alumni(client, db, make_person) -> None:
    ada = make_person()
    login(client, "admin")
    post(client, "/directory/admin/people/ada-lovelace/deactivate")
    db.expire_all()
    person = db.get(m.Person, ada.id)
    assert (person.active, person.role) == (False, "alumni")
    assert "/people/ada-lovelace" not in client.get("/directory/").get_data(as_text=True)


def test_merging_duplicates_keeps_every_entry(client, db, make_person, make_publication) -> None:
    ada = make_person(email=None)
    dup = make_person("A. Lovelace", slug="a-lovelace", email="ada@example.edu", user_key="ada")
    db.add_all([
        m.NewsItem(owner_id=ada.id, year=2025, body="Kept news"),
        m.NewsItem(owner_id=dup.id, year=2026, body="Duplicate news"),
        m.Award(owner_id=dup.id, title="Duplicate award"),
        m.AdvisingRelation(owner_id=dup.id, advisor_id=dup.id, student_name="Sam"),
    ])  # fmt: skip
    db.commit()
    make_publication("Shared paper", authors=(dup,))
    # A co-author import asked the duplicate about a printed name.
    asked = m.Publication(title="A paper that asks", year=2024)
    asked.authorships.append(m.Authorship(position=0, name="A. L.", suggested_person_id=dup.id))
    db.add(asked)
    db.commit()
    dup_id = dup.id
    login(client, "admin")
    response = post(
        client, "/directory/admin/merge", {"keep_id": str(ada.id), "merge_id": str(dup_id)}
    )
    assert response.status_code == 302
    db.expire_all()
    assert db.get(m.Person, dup_id) is None
    kept = db.get(m.Person, ada.id)
    assert kept.email == "ada@example.edu" and kept.user_key == "ada"
    assert "A. Lovelace" in kept.name_variants
    bodies = set(db.scalars(select(m.NewsItem.body).where(m.NewsItem.owner_id == ada.id)))
    assert bodies == {"Kept news", "Duplicate news"}
    assert db.scalar(select(m.Award.owner_id)) == ada.id
    assert db.scalar(select(m.AdvisingRelation.advisor_id)) == ada.id
    assert db.scalar(select(m.Authorship.person_id).where(m.Authorship.name != "A. L.")) == ada.id
    # The question goes to the kept profile.
    assert (
        db.scalar(select(m.Authorship.suggested_person_id).where(m.Authorship.name == "A. L."))
        == ada.id
    )
    page = client.get("/directory/people/ada-lovelace").get_data(as_text=True)
    assert "Shared paper" in page and "Duplicate award" in page and "Sam" in page
    actions = set(db.scalars(select(ChangeRecord.action).where(ChangeRecord.person_id == ada.id)))
    assert {"update", "delete"} <= actions


def test_research_areas_are_managed_by_admins(client, db) -> None:
    login(client, "admin")
    assert post(client, "/directory/admin/areas", {"name": "Operating Systems"}).status_code == 302
    area = db.scalar(select(m.ResearchArea))
    assert area.slug == "operating-systems"
    response = post(client, "/directory/admin/areas", {"name": "OS", "slug": "operating-systems"})
    assert response.status_code == 400
    assert "Another area has this slug" in response.get_data(as_text=True)
    post(client, f"/directory/admin/areas/{area.id}/delete")
    assert db.scalar(select(m.ResearchArea)) is None


def test_stale_report_and_one_click_confirmation(client, app, db, make_person) -> None:
    long_ago = datetime.now(UTC) - timedelta(days=900)
    make_person(user_key="ada", last_confirmed=date.today() - timedelta(days=800),
                created_at=long_ago)  # fmt: skip
    make_person("Fresh Person", last_confirmed=date.today())
    login(client, "admin")
    page = client.get("/directory/admin/stale").get_data(as_text=True)
    assert "Ada Lovelace" in page and "Fresh Person" not in page
    login(client, "ada")
    assert post(client, "/directory/people/ada-lovelace/edit/confirm").status_code == 302
    login(client, "admin")
    assert "Ada Lovelace" not in client.get("/directory/admin/stale").get_data(as_text=True)


# ----------------------------------------------------------------------------- approvals


@pytest.fixture
def approval_app(app):
    app.config["DIRECTORY_APPROVAL_ROLES"] = ["phd_student"]
    yield app
    app.config["DIRECTORY_APPROVAL_ROLES"] = []


def test_a_students_change_waits_for_approval_then_goes_public(
    client, db, make_person, approval_app
) -> None:
    advisor = make_person(user_key="ada")
    bob = make_person("Bob Builder", role="phd_student", user_key="bob")
    db.add(m.AdvisingRelation(owner_id=advisor.id, advisor_id=advisor.id, student_id=bob.id))
    db.commit()
    login(client, "bob")
    response = post(
        client, "/directory/people/bob-builder/edit/news/new", {"year": "2026", "body": "I passed"}
    )
    assert response.status_code == 302
    assert db.scalar(select(m.NewsItem)) is None
    assert "Waiting for approval" in client.get("/directory/me").get_data(as_text=True)
    login(client, None)
    assert "I passed" not in client.get("/directory/people/bob-builder").get_data(as_text=True)

    # The student cannot approve their own change; their advisor can.
    login(client, "bob")
    pending = db.scalar(select(PendingChange))
    assert post(client, f"/directory/approvals/{pending.id}/approve").status_code == 403
    login(client, "ada")
    queue = client.get("/directory/approvals").get_data(as_text=True)
    assert "I passed" in queue and "Bob Builder" in queue
    assert post(client, f"/directory/approvals/{pending.id}/approve").status_code == 302
    login(client, None)
    assert "I passed" in client.get("/directory/people/bob-builder").get_data(as_text=True)
    db.expire_all()
    assert db.get(PendingChange, pending.id).status == "approved"


def test_an_edit_waits_and_a_rejection_tells_the_student_why(
    client, db, make_person, approval_app
) -> None:
    bob = make_person("Bob Builder", role="phd_student", user_key="bob")
    item = m.NewsItem(owner_id=bob.id, year=2025, body="Original")
    db.add(item)
    db.commit()
    login(client, "bob")
    post(
        client,
        f"/directory/people/bob-builder/edit/news/{item.id}",
        {"year": "2025", "body": "Exaggerated", "version": "1"},
    )
    db.expire_all()
    assert db.get(m.NewsItem, item.id).body == "Original"
    pending = db.scalar(select(PendingChange))
    login(client, "admin")
    queue = client.get("/directory/approvals").get_data(as_text=True)
    assert "Original" in queue and "Exaggerated" in queue  # shown as a diff
    assert (
        post(client, f"/directory/approvals/{pending.id}/reject", {"reason": ""}).status_code == 302
    )
    db.expire_all()
    assert db.get(PendingChange, pending.id).status == "pending"  # a reason is required
    post(client, f"/directory/approvals/{pending.id}/reject", {"reason": "Please tone it down"})
    login(client, "bob")
    assert "Please tone it down" in client.get("/directory/me").get_data(as_text=True)
    assert db.get(m.NewsItem, item.id).body == "Original"


def test_approving_applies_only_what_the_student_changed(
    client, db, make_person, approval_app
) -> None:
    bob = make_person("Bob Builder", role="phd_student", user_key="bob", title="Student")
    login(client, "bob")
    post(
        client,
        "/directory/people/bob-builder/edit/profile",
        {"full_name": "Bob Builder", "title": "Student", "bio": "New bio",
         "visibility": "public", "version": str(bob.version)},
    )  # fmt: skip
    pending = db.scalar(select(PendingChange))
    assert pending.entity_kind == "person"
    db.expire_all()
    person = db.get(m.Person, bob.id)
    person.title = "PhD candidate"  # an admin's edit meanwhile
    db.commit()
    login(client, "admin")
    assert post(client, f"/directory/approvals/{pending.id}/approve").status_code == 302
    db.expire_all()
    person = db.get(m.Person, bob.id)
    assert (person.bio, person.title) == ("New bio", "PhD candidate")
