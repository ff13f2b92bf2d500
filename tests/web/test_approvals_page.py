"""The approval queue as an advisor reads it: field labels and people's names, never a paper's
uid, who created a record or a person's id; the "changed since" warning only when the entry
really changed after the proposal; and a rejection that names the field to its author."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from directory import models as m
from directory.models import PendingChange
from tests.conftest import login
from tests.support.editing import post
from tests.support.pages import get

STUDENT = "/directory/people/bob-builder/edit"


@pytest.fixture
def advised(app, db, make_person):
    """Ada advises Bob, a PhD student whose changes wait for approval."""
    app.config["DIRECTORY_APPROVAL_ROLES"] = ["phd_student"]
    ada = make_person(user_key="ada")
    bob = make_person("Bob Builder", role="phd_student", user_key="bob", title="Student")
    db.add(m.AdvisingRelation(owner_id=ada.id, advisor_id=ada.id, student_id=bob.id))
    db.commit()
    yield ada, bob
    app.config["DIRECTORY_APPROVAL_ROLES"] = []


def _profile_form(client, **changes: str) -> dict[str, str]:
    """The profile form as it is shown, with ``changes``."""
    html = get(client, f"{STUDENT}/profile")
    data = dict(re.findall(r'<input[^>]*name="([a-z_]+)"[^>]*value="([^"]*)"', html))
    data.update(
        {name: value for name, value in re.findall(
            r'<input[^>]*value="([^"]*)"[^>]*name="([a-z_]+)"', html)[::-1]}
    )  # fmt: skip
    data.pop("csrf_token", None)
    data.setdefault("visibility", "public")
    data.update(changes)
    return data


def test_a_proposal_shows_labels_and_names_and_no_internals(client, db, advised) -> None:
    ada, bob = advised
    login(client, "bob")
    response = post(
        client,
        f"{STUDENT}/publications/new",
        {"title": "Engines", "authors": "Bob Builder\nAda Lovelace", "year": "2026",
         "type": "conference", "status": "published", "visibility": "public"},
    )  # fmt: skip
    assert response.status_code == 302
    post(client, f"{STUDENT}/advising/new", {"side": "advisor", "other_id": str(ada.id)})
    login(client, "ada")
    queue = get(client, "/directory/approvals")
    for internal in ("Uid", "Created by", "person_id", "Advisor id", "Student id", f">{ada.id}<"):
        assert internal not in queue, internal
    assert "<li>Bob Builder</li><li>Ada Lovelace</li>" in queue  # the authors, by name
    assert '<th scope="row">Kind</th><td class="diff__new">Conference paper</td>' in queue
    assert '<th scope="row">Advisor</th><td class="diff__new">Ada Lovelace</td>' in queue
    assert "changed since" not in queue


def test_changed_since_is_said_only_when_someone_changed_the_entry(
    client, db, advised, make_publication
) -> None:
    _ada, bob = advised
    item = m.NewsItem(owner_id=bob.id, year=2026, body="Old words")
    db.add(item)
    db.commit()
    paper = make_publication("Engines", authors=(bob,))
    login(client, "bob")
    post(client, f"{STUDENT}/news/{item.id}", {"year": "2026", "body": "New words", "version": "1"})
    post(client, f"{STUDENT}/profile", _profile_form(client, interests="compilers"))
    # Only how his profile lists the paper: the paper's own version does not move.
    post(
        client,
        f"{STUDENT}/publications/{paper.id}",
        {"title": "Engines", "authors": "Bob Builder", "year": "2024", "type": "conference",
         "status": "published", "visibility": "public", "selected": "y",
         "version": str(paper.version)},
    )  # fmt: skip
    assert len(db.scalars(select(PendingChange)).all()) == 3
    login(client, "ada")
    queue = get(client, "/directory/approvals")
    assert "changed since" not in queue  # the first change, nobody else's in between
    assert '<th scope="row">Research interests</th>' in queue
    assert '<th scope="row">On this profile</th>' in queue
    assert "shown, selected" in queue

    # Someone changes the news item meanwhile: now the warning names what changed.
    login(client, "admin")
    post(client, f"/directory/people/bob-builder/edit/news/{item.id}",
         {"year": "2025", "body": "Old words", "version": "1"})  # fmt: skip
    db.expire_all()
    assert db.get(m.NewsItem, item.id).year == 2025
    login(client, "ada")
    queue = get(client, "/directory/approvals")
    assert queue.count("The entry was changed since this was proposed (Year)") == 1


def test_a_rejection_names_the_field_to_its_author(client, db, advised) -> None:
    login(client, "bob")
    post(client, f"{STUDENT}/profile", _profile_form(client, title="Grand Vizier"))
    pending = db.scalar(select(PendingChange))
    login(client, "ada")
    response = post(
        client, f"/directory/approvals/{pending.id}/reject", {"reason": "Use your real title."}
    )
    assert response.status_code == 302
    login(client, "bob")
    editor = get(client, "/directory/me")
    rejected = editor[editor.index('id="rejected-h"') :].split("</section>")[0]
    assert "Changing the profile: Title was not approved. Reason: Use your real title." in rejected
    assert "Bob Builder" not in rejected
