"""Every route that saves on top of a version the user loaded answers a stale save the same
way, through the one conflict handler (directory/web/conflicts.py): nothing is written, and
the user sees the page again with what they typed kept (a form) or a message saying the
record changed (a one-button action). The routes are found by introspection: a view that
reads a form's ``base_version()`` must declare its answer with ``@on_conflict`` and have a
stale scenario below, so the next such view is covered the day it is added."""

from __future__ import annotations

import inspect
import io
from typing import Any

import pytest
from PIL import Image
from sqlalchemy import func, select

from directory import models as m
from directory.models import ChangeRecord
from directory.services.photos import photo_from_bytes
from directory.web.conflicts import conflict_answer
from tests.conftest import login
from tests.invariants.test_access_matrix import world  # noqa: F401 - the matrix's world fixture
from tests.support.editing import post

P = "/directory/people/ada-lovelace"
#: A version no record has: the form was loaded from something older than what is stored.
STALE = "987654"


def _with_photo(db, w) -> None:
    out = io.BytesIO()
    Image.new("RGB", (40, 40), (200, 30, 30)).save(out, "PNG")
    person = db.scalar(select(m.Person).where(m.Person.slug == "ada-lovelace"))
    person.photo = photo_from_bytes(out.getvalue(), "Ada")
    db.commit()


def _second_paper(db, w) -> None:
    ada = db.scalar(select(m.Person.id).where(m.Person.slug == "ada-lovelace"))
    other = m.Publication(title="Another Paper", year=2024, created_by_id=ada)
    db.add(other)
    db.flush()
    db.add(m.ProfilePublication(person_id=ada, publication_id=other.id, position=1))
    db.commit()


def _nothing(db, w) -> None:
    pass


#: endpoint -> (who posts, arrange, url, data, what the answer shows): ("form", a typed value
#: the 409 page keeps) or ("message", part of the message on the page the answer redirects to).
STALE_POSTS: dict[str, tuple[str, Any, str, Any, tuple[str, str]]] = {
    "directory.edit_entry": (
        "ada", _nothing, P + "/edit/news/{news}",
        {"year": "2026", "body": "Typed while someone else saved", "visibility": "public"},
        ("form", "Typed while someone else saved"),
    ),
    "directory.delete_entry": (
        "ada", _nothing, P + "/edit/news/{news}/delete", {},
        ("message", "look at it again before deleting"),
    ),
    "directory.move_entry": (
        "ada", _nothing, P + "/edit/news/{news}/move", {"direction": "up"},
        ("message", "This list changed since you loaded the page"),
    ),
    "directory.edit_profile": (
        "ada", _nothing, P + "/edit/profile",
        {"full_name": "Ada Lovelace", "visibility": "public", "title": "Typed Title 42"},
        ("form", "Typed Title 42"),
    ),
    "directory.edit_papers_and_cv": (
        "ada", _nothing, P + "/edit/papers-and-cv",
        {"repeat_selected": "y", "cv_publications": "1"},
        ("form", 'checked id="repeat_selected"'),
    ),
    "directory.edit_photo_focus": (
        "ada", _with_photo, P + "/edit/photo/focus", {"focus_x": "20", "focus_y": "35"},
        ("message", "here is its photo as it is now"),
    ),
    "directory.edit_publication": (
        "ada", _nothing, P + "/edit/publications/{pub}",
        {"title": "A Typed Title", "authors": "Ada Lovelace", "type": "conference",
         "status": "published", "visibility": "public"},
        ("form", "A Typed Title"),
    ),
    "directory.remove_publication": (
        "ada", _nothing, P + "/edit/publications/{pub}/remove", {},
        ("message", "This publication changed since you loaded the page"),
    ),
    "directory.move_publication": (
        "ada", _second_paper, P + "/edit/publications/{pub}/move", {"direction": "down"},
        ("message", "This list changed since you loaded the page"),
    ),
    "directory.admin_person": (
        "admin", _nothing, "/directory/admin/people/ada-lovelace",
        {"full_name": "Ada Typed Lovelace", "role": "faculty", "visibility": "public",
         "active": "y"},
        ("form", "Ada Typed Lovelace"),
    ),
    "directory.admin_areas": (
        "admin", _nothing, "/directory/admin/areas/{area}",
        {"name": "Typed Systems", "slug": "systems"},
        ("form", "Typed Systems"),
    ),
}  # fmt: skip


def _reads_a_version(view: Any) -> bool:
    return ".base_version()" in inspect.getsource(inspect.unwrap(view))


def versioned_endpoints(app) -> set[str]:
    """The directory's views that save on top of a version the form carries."""
    return {
        endpoint
        for endpoint, view in app.view_functions.items()
        if endpoint.startswith("directory.") and _reads_a_version(view)
    }


def test_every_view_that_saves_a_version_declares_its_conflict_answer(app) -> None:
    with app.test_request_context():
        undeclared = {e for e in versioned_endpoints(app) if conflict_answer(e) is None}
    assert undeclared == set(), "declare how these answer a conflict: @on_conflict(...)"


def test_every_view_that_saves_a_version_has_a_stale_scenario(app) -> None:
    assert versioned_endpoints(app) == set(STALE_POSTS)


def _history(db) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(ChangeRecord))


@pytest.mark.parametrize("endpoint", sorted(STALE_POSTS))
def test_a_stale_save_writes_nothing_and_keeps_what_the_user_sent(
    endpoint,
    client,
    db,
    world,  # noqa: F811 - the matrix's world fixture
    make_person,
) -> None:
    make_person("Admin", role="staff", user_key="admin")
    who, arrange, url, data, (shows, expected) = STALE_POSTS[endpoint]
    arrange(db, world)
    before = _history(db)
    login(client, who)
    response = post(client, url.format(**world), {**data, "version": STALE})
    if shows == "form":
        assert response.status_code == 409
        page = response.get_data(as_text=True)
        assert expected in page
    else:
        assert response.status_code == 302
        page = client.get(response.headers["Location"]).get_data(as_text=True)
        assert expected in page.replace("&#39;", "'")
    assert _history(db) == before


def test_a_stale_move_asked_for_by_the_script_is_a_409_with_no_versions(
    client,
    db,
    world,  # noqa: F811 - the matrix's world fixture
) -> None:
    login(client, "ada")
    response = post(
        client, f"{P}/edit/news/{world['news']}/move", {"direction": "up", "version": STALE},
        headers={"Accept": "application/json"},
    )  # fmt: skip
    assert response.status_code == 409
    assert response.get_json() == {"outcome": "conflict", "versions": {}}
