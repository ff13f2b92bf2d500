"""Fragments a host puts on its own pages: a person card, the people of an area, who is
recruiting now. Each shows only what the viewer may see, and nothing when there is nothing."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from flask import render_template_string, request

from directory import models as m
from tests.conftest import login, make_app


@pytest.fixture
def host(test_engine, join_test_transaction):
    """A host page rendering whatever template ``?t=`` holds (host code, not user input)."""
    app = make_app(DIRECTORY_ENGINE=test_engine)

    @app.route("/host-page")
    def host_page() -> str:
        return render_template_string(f"<main>{request.args['t']}</main>")

    return join_test_transaction(app)


@pytest.fixture
def client(host):
    return host.test_client()


def render(client, template: str) -> str:
    response = client.get("/host-page", query_string={"t": template})
    assert response.status_code == 200
    return response.get_data(as_text=True).removeprefix("<main>").removesuffix("</main>")


@pytest.fixture
def areas(db):
    systems = m.ResearchArea(slug="systems", name="Systems")
    storage = m.ResearchArea(slug="storage", name="Storage", parent=systems)
    theory = m.ResearchArea(slug="theory", name="Theory")
    db.add_all([systems, storage, theory])
    db.commit()
    return {"systems": systems, "storage": storage, "theory": theory}


def test_person_card_links_to_the_profile(client, make_person) -> None:
    make_person(title="Professor of Computing")
    html = render(client, '{{ directory_person_card("ada-lovelace") }}')
    assert 'class="directory directory-fragment"' in html
    assert '<a href="/directory/people/ada-lovelace">Ada Lovelace</a>' in html
    assert "Professor of Computing" in html


def test_person_card_of_a_hidden_or_unknown_person_is_empty(client, make_person) -> None:
    make_person(visibility="members")
    template = '[{{ directory_person_card("ada-lovelace") }}|{{ directory_person_card("nobody") }}]'
    assert render(client, template) == "[|]"
    login(client, "someone")
    assert "Ada Lovelace" in render(client, template)


def test_people_in_area_include_subareas_and_leave_out_alumni_and_hidden(
    client, db, make_person, areas
) -> None:
    for name, area, values in [
        ("Ada Lovelace", "systems", {}),
        ("Barbara Liskov", "storage", {}),
        ("Alan Turing", "theory", {}),
        ("Old Alumna", "systems", {"role": "alumni"}),
        ("Private Person", "systems", {"visibility": "private"}),
        ("Gone Person", "systems", {"active": False}),
    ]:
        make_person(name, areas=[areas[area]], **values)

    html = render(client, '{{ directory_people_in_area("systems") }}')
    assert "Ada Lovelace" in html and "Barbara Liskov" in html
    for absent in ("Alan Turing", "Old Alumna", "Private Person", "Gone Person"):
        assert absent not in html
    assert 'aria-label="People in Systems"' in html

    only_storage = render(client, '{{ directory_people_in_area("storage") }}')
    assert "Barbara Liskov" in only_storage and "Ada Lovelace" not in only_storage


def test_people_in_an_empty_or_unknown_area_is_empty_so_hosts_can_skip_the_section(
    client, areas
) -> None:
    template = (
        '{% set cards = directory_people_in_area("theory") %}'
        "{% if cards %}<h2>Theory</h2>{{ cards }}{% else %}none{% endif %}"
        '|{{ directory_people_in_area("no-such-area") }}'
    )
    assert render(client, template) == "none|"


def notice(db, owner, **values) -> m.RecruitingNotice:
    values.setdefault("level", "phd")
    values.setdefault("description", "Join us.")
    row = m.RecruitingNotice(owner_id=owner.id, **values)
    db.add(row)
    db.commit()
    return row


def test_recruiting_now_lists_open_notices_soonest_deadline_first(client, db, make_person) -> None:
    today = date.today()
    ada = make_person("Ada Lovelace")
    alan = make_person("Alan Turing")
    grace = make_person("Grace Hopper")
    notice(db, ada, term="Fall 2027", deadline=today + timedelta(days=60))
    notice(db, alan, level="postdoc", deadline=today + timedelta(days=10))
    notice(db, grace, title="Compilers", expires_on=today)  # expired today: gone
    notice(db, grace, level="intern")  # rolling, no deadline: last

    html = render(client, "{{ directory_recruiting_now() }}")
    assert "Grace Hopper</a> is recruiting <strong>Research interns</strong>" in html
    assert "Compilers" not in html
    order = [html.index(name) for name in ("Alan Turing", "Ada Lovelace", "Grace Hopper")]
    assert order == sorted(order)
    assert 'href="/directory/people/ada-lovelace#recruiting"' in html
    assert "for Fall 2027" in html

    two = render(client, "{{ directory_recruiting_now(2) }}")
    assert "Grace Hopper" not in two and "Ada Lovelace" in two


def test_recruiting_now_respects_visibility_of_notice_and_owner(client, db, make_person) -> None:
    ada = make_person("Ada Lovelace")
    hidden = make_person("Hidden Owner", visibility="private")
    notice(db, ada, title="Members only", visibility="members")
    notice(db, hidden, title="From a private profile")

    assert render(client, "{{ directory_recruiting_now() }}") == ""
    login(client, "someone")
    html = render(client, "{{ directory_recruiting_now() }}")
    assert "Members only" in html
    assert "From a private profile" not in html


def test_a_host_can_restyle_fragments_with_the_scoped_stylesheet(client) -> None:
    html = render(client, "{{ directory_assets() }}")
    assert html == '<link rel="stylesheet" href="/directory/assets/directory.css">'
    with client.get("/directory/assets/directory.css") as response:
        assert ".directory .card {" in response.get_data(as_text=True)
