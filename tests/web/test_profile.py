"""The public profile page: every section, safe rendering, visibility, 404s."""

from __future__ import annotations

import json
import re

from directory import models as m
from tests.conftest import login


def page(client, slug: str) -> str:
    response = client.get(f"/directory/people/{slug}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_unknown_slug_is_a_proper_404_page(client) -> None:
    response = client.get("/directory/people/no-such-person")
    assert response.status_code == 404
    assert "Page not found" in response.get_data(as_text=True)


def test_markdown_bio_is_rendered_and_sanitised(client, make_person) -> None:
    make_person(
        bio="Hello **world** <script>alert(1)</script> [x](javascript:alert(1)) [ok](https://ok.example)"
    )
    html = page(client, "ada-lovelace")
    assert "<strong>world</strong>" in html
    assert "<script>alert(1)" not in html
    assert 'href="javascript:' not in html
    assert 'href="https://ok.example"' in html


def test_email_is_readable_but_not_harvestable(client, make_person) -> None:
    make_person(email="ada@math.example.edu")
    html = page(client, "ada-lovelace")
    assert "ada@math.example.edu" not in html
    assert "mailto:" not in html
    text = re.sub(r"<[^>]+>", "", html)
    assert "ada at math dot example dot edu" in text


def test_json_ld_describes_the_person_without_the_email(client, make_person, db) -> None:
    person = make_person(email="ada@example.edu", title="Professor")
    person.links.append(m.PersonLink(kind="orcid", url="https://orcid.org/0000-0001", position=0))
    db.commit()
    html = page(client, "ada-lovelace")
    raw = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S).group(1)
    data = json.loads(raw)
    assert data["@type"] == "ProfilePage"
    assert data["mainEntity"]["name"] == "Ada Lovelace"
    assert data["mainEntity"]["sameAs"] == ["https://orcid.org/0000-0001"]
    assert "ada@example.edu" not in raw


def test_private_and_member_entries_are_hidden_from_anonymous_visitors(
    client, make_person, db
) -> None:
    person = make_person()
    for visibility in ("public", "members", "private"):
        db.add(
            m.NewsItem(
                owner_id=person.id, year=2026, body=f"{visibility} news", visibility=visibility
            )
        )
    db.commit()
    html = page(client, "ada-lovelace")
    assert "public news" in html
    assert "members news" not in html
    assert "private news" not in html

    login(client, "someone")
    html = page(client, "ada-lovelace")
    assert "members news" in html
    assert "private news" not in html


def test_a_private_profile_is_a_404_for_anonymous_visitors(client, make_person) -> None:
    make_person(visibility="private")
    assert client.get("/directory/people/ada-lovelace").status_code == 404
    login(client, "admin")
    assert client.get("/directory/people/ada-lovelace").status_code == 200


def test_authors_in_order_with_members_linked_and_marks_explained(
    client, make_person, make_publication, db
) -> None:
    ada = make_person()
    bob = make_person("Bob Builder", role="phd_student")
    pub = make_publication(
        "Analytical Engines", authors=(bob, ada, "Charles Babbage"), venue_short="OSDI'26"
    )
    pub.authorships[0].co_first = True
    pub.authorships[1].corresponding = True
    db.commit()
    # The page's body (the head's JSON-LD names the authors too).
    html = page(client, "ada-lovelace").split("</head>", 1)[1]
    assert (
        html.index("Bob Builder")
        < html.index("<strong>Ada Lovelace")
        < html.index("Charles Babbage")
    )
    assert 'href="/directory/people/bob-builder"' in html
    assert "OSDI&#39;26" in html or "OSDI'26" in html
    assert "co-first author" in html and "corresponding author" in html


def test_area_tags_link_to_their_research_area_pages(client, make_person, db) -> None:
    area = m.ResearchArea(slug="quantum-computing", name="Quantum Computing")
    make_person(areas=[area])
    db.commit()
    html = page(client, "ada-lovelace")
    assert 'href="/directory/areas/quantum-computing">Quantum Computing</a>' in html
    assert client.get("/directory/areas/quantum-computing").status_code == 200
