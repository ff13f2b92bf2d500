"""An advising relation whose linked person has since been made private (or members-only).

The rule (:func:`directory.services.access.advising_visible`): a relation linking a profile the
viewer may not see is left out whole, on every output; it does not fall back to a typed name,
because a linked side has none (the form keeps only the link), so the only name it could show
is the hidden profile's. A side typed in by the owner (an outside advisor) stays. The owner's
own editing page still lists the entry, so it can be changed or deleted, without the hidden
person's name."""

from __future__ import annotations

import pytest

from directory import models as m
from tests.conftest import login

P = "/directory"


@pytest.fixture
def advising(db, make_person):
    olive = make_person("Olive Advisor", user_key="olive")
    sam = make_person("Sam Zyxstudent", role="phd_student", user_key="sam")
    gus = make_person("Gus Graduate", role="alumni", user_key="gus")
    db.add_all(
        [
            m.AdvisingRelation(owner_id=olive.id, advisor_id=olive.id, student_id=sam.id,
                               thesis="Qzthesis of Sam", placement="Qzplacement of Sam"),
            # Gus graduated under Olive and an outside co-advisor, typed in by Olive.
            m.AdvisingRelation(owner_id=olive.id, advisor_id=olive.id, student_id=gus.id,
                               status="graduated", end_year=2024, thesis="Gus thesis"),
            m.AdvisingRelation(owner_id=olive.id, advisor_name="Prof. Outside Typed",
                               student_id=gus.id, role="co_advisor", status="graduated",
                               end_year=2024),
        ]
    )  # fmt: skip
    db.commit()
    return olive, sam, gus


def outputs(client, slug: str = "olive-advisor") -> dict[str, str]:
    """Every output that shows an advising relation of ``slug`` (and the search for Sam, with
    the query it repeats cut out)."""
    urls = {
        "profile": f"{P}/people/{slug}",
        "CV": f"{P}/people/{slug}/cv",
        "API profile": f"{P}/api/v1/people/{slug}",
        "alumni": f"{P}/alumni",
        "search": f"{P}/search?q=Zyxstudent",
        "API search": f"{P}/api/v1/people?q=Zyxstudent",
    }
    bodies = {}
    for name, url in urls.items():
        response = client.get(url)
        assert response.status_code == 200, (name, response.status_code)
        bodies[name] = response.text.replace("Zyxstudent", "") if "q=" in url else response.text
    return bodies


def shown(bodies: dict[str, str], *words: str) -> set[str]:
    return {name for name, body in bodies.items() if any(w.lower() in body.lower() for w in words)}


HIDDEN = ("Zyxstudent", "sam-zyxstudent", "Qzthesis", "Qzplacement")


def test_a_student_made_private_leaves_every_output_but_their_own_and_the_admins(
    client, db, advising
) -> None:
    olive, sam, _ = advising
    # While public: the profile, CV and API show Sam with the relation's details.
    assert {"profile", "CV", "API profile"} <= shown(outputs(client), *HIDDEN)
    sam.visibility = "private"
    db.commit()
    for viewer in (None, "olive", "gus"):  # anonymous, the advisor herself, another member
        login(client, viewer)
        assert shown(outputs(client), *HIDDEN) == set(), viewer
    for viewer in ("sam", "admin"):  # the student, an admin
        login(client, viewer)
        assert {"profile", "CV", "API profile"} <= shown(outputs(client), *HIDDEN), viewer


def test_an_advisor_made_members_only_leaves_the_students_outputs_for_anonymous_visitors(
    client, db, advising
) -> None:
    olive, _, _ = advising
    olive.visibility = "members"
    db.commit()
    gus_outputs = outputs(client, "gus-graduate")
    assert shown(gus_outputs, "Olive Advisor", "olive-advisor", "Gus thesis") == set()
    # The outside co-advisor, typed in by the owner, is the owner's own public text.
    assert "Prof. Outside Typed" in gus_outputs["profile"]
    login(client, "gus")
    assert {"profile", "API profile", "alumni"} <= shown(
        outputs(client, "gus-graduate"), "Olive Advisor"
    )


def test_the_owners_editor_lists_the_entry_without_the_hidden_name(client, db, advising) -> None:
    _, sam, _ = advising
    login(client, "olive")
    assert "Student: Sam Zyxstudent" in client.get(f"{P}/me").text
    sam.visibility = "private"
    db.commit()
    editor = client.get(f"{P}/me").text
    assert "Student: a profile you cannot see" in editor
    assert "Zyxstudent" not in editor
    login(client, "admin")
    assert "Student: Sam Zyxstudent" in client.get(f"{P}/people/olive-advisor/edit").text
