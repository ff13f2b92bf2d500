"""The advising and delegate pickers list only people the viewer may see elsewhere: a private
profile's name never appears in them for a member (an admin, who sees it, still finds it)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from directory import models as m
from tests.conftest import login
from tests.support.editing import post

PICKERS = {
    "advising": "/directory/people/ada-lovelace/edit/advising/new",
    "delegates": "/directory/people/ada-lovelace/edit/delegates",
}


@pytest.fixture
def department(make_person):
    make_person("Ada Lovelace", user_key="ada")
    make_person("Grace Hopper", visibility="members")
    make_person("Hidden Person", visibility="private")


@pytest.mark.parametrize("picker", PICKERS)
def test_a_member_is_not_offered_a_private_profile(client, department, picker) -> None:
    login(client, "ada")
    page = client.get(PICKERS[picker]).get_data(as_text=True)
    assert "Grace Hopper" in page
    assert "Hidden Person" not in page


@pytest.mark.parametrize("picker", PICKERS)
def test_an_admin_is_offered_every_profile(client, department, picker) -> None:
    login(client, "admin")
    page = client.get(PICKERS[picker]).get_data(as_text=True)
    assert "Grace Hopper" in page and "Hidden Person" in page


def test_a_hidden_person_cannot_be_chosen_by_posting_their_id(client, db, department) -> None:
    hidden = db.scalar(select(m.Person.id).where(m.Person.full_name == "Hidden Person"))
    login(client, "ada")
    response = post(client, PICKERS["delegates"], {"delegate_id": str(hidden)})
    assert response.status_code == 400
    assert db.scalars(select(m.Delegation)).all() == []
