"""The owner keeps their identifiers on the profile editor: checked (an ORCID iD's check
digit), one person each, kept in the history, carried by the interchange document, and the
ORCID iD shown on the profile as ORCID asks (the iD icon and the full https link)."""

from __future__ import annotations

from directory import models as m
from directory.services.interchange import export_person, validate_document
from tests.conftest import login
from tests.support.editing import post

URL = "/directory/people/ada-lovelace/edit/profile"


def _profile_form(person, **identifiers) -> dict:
    return {"full_name": person.full_name, "visibility": "public",
            "version": str(person.version), **identifiers}  # fmt: skip


def test_the_owner_sets_identifiers_and_the_profile_shows_the_orcid_id(
    client, db, make_person
) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    response = post(client, URL, _profile_form(
        ada, orcid="https://orcid.org/0000-0002-1825-0097", dblp="https://dblp.org/pid/12/3456.html",
        openalex="a5023888391", semantic_scholar="1741101",
    ))  # fmt: skip
    assert response.status_code == 302
    db.expire_all()
    ada = db.get(m.Person, ada.id)
    assert (ada.orcid, ada.dblp_pid, ada.openalex_id, ada.semantic_scholar_id) == (
        "0000-0002-1825-0097",
        "12/3456",
        "A5023888391",
        "1741101",
    )
    page = client.get("/directory/people/ada-lovelace").get_data(as_text=True)
    assert '<a href="https://orcid.org/0000-0002-1825-0097" rel="me">' in page
    assert 'aria-label="ORCID iD"' in page and "> https://orcid.org/0000-0002-1825-0097</a>" in page
    history = db.query(m.ChangeRecord).filter_by(person_id=ada.id).one()
    assert history.after["orcid"] == "0000-0002-1825-0097"


def test_a_wrong_check_digit_is_refused_next_to_the_field_and_nothing_is_written(
    client, db, make_person
) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    response = post(client, URL, _profile_form(ada, orcid="0000-0002-1825-0098"))
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "check digit is wrong" in page and 'value="0000-0002-1825-0098"' in page
    db.expire_all()
    assert db.get(m.Person, ada.id).orcid is None


def test_an_identifier_another_person_holds_says_whose_it_is(client, db, make_person) -> None:
    make_person("Bob Builder", orcid="0000-0002-1825-0097")
    ada = make_person(user_key="ada")
    login(client, "ada")
    page = post(client, URL, _profile_form(ada, orcid="0000-0002-1825-0097")).get_data(as_text=True)
    assert "Bob Builder already has this identifier." in page
    db.expire_all()
    assert db.get(m.Person, ada.id).orcid is None


def test_the_document_carries_identifiers_and_refuses_a_bad_orcid(db, make_person) -> None:
    ada = make_person(orcid="0000-0002-1825-0097", dblp_pid="12/3456")
    doc = export_person(db, ada)
    assert doc["person"]["identifiers"] == {
        "orcid": "0000-0002-1825-0097", "dblp": "12/3456", "openalex": None,
        "semantic_scholar": None,
    }  # fmt: skip
    assert validate_document(doc, "ada.json") == []
    doc["person"]["identifiers"]["orcid"] = "0000-0002-1825-0098"
    problems = validate_document(doc, "ada.json")
    assert [p.path for p in problems] == ["$.person.identifiers.orcid"]
    assert "check digit" in problems[0].message


def test_an_admin_sets_identifiers_on_the_person_form(client, db, make_person) -> None:
    ada = make_person(user_key="ada")
    login(client, "admin")
    url = "/directory/admin/people/ada-lovelace"
    form = {"full_name": "Ada Lovelace", "slug": "ada-lovelace", "role": "faculty",
            "active": "y", "visibility": "public", "version": str(ada.version)}  # fmt: skip
    bad = post(client, url, {**form, "orcid": "0000-0002-1825-0098"})
    assert bad.status_code == 400 and "check digit is wrong" in bad.get_data(as_text=True)
    assert post(client, url, {**form, "orcid": "0000-0002-1825-0097",
                              "dblp": "12/3456"}).status_code == 302  # fmt: skip
    db.expire_all()
    assert (db.get(m.Person, ada.id).orcid, db.get(m.Person, ada.id).dblp_pid) == (
        "0000-0002-1825-0097",
        "12/3456",
    )
    assert 'value="0000-0002-1825-0097"' in client.get(url).get_data(as_text=True)
