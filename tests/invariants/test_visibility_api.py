"""No entry that is not public appears in any anonymous JSON API answer or search result;
signed-in members see members-only entries (and still no private ones).

Every private or members-only thing carries a marker word of its own. An admin must find every
marker somewhere, which proves that the outputs scanned do show such things when allowed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import pytest

from directory import models as m
from directory.services import search as index
from directory.services.identity import ANONYMOUS, Viewer
from tests.conftest import login

API = "/directory/api/v1"
COMMON = "lanternfish"  # in everything searchable, so one search finds them all


def entry_values(kind: str, text: str, owner: m.Person) -> dict:
    """Required fields of each entry kind, the text put where the API shows it."""
    return {
        "news": {"year": 2026, "body": text},
        "education": {"degree": text, "institution": text},
        "experience": {"title": text, "organisation": text},
        "projects": {"title": text, "summary": text},
        "teaching": {"title": text},
        "service": {"kind": "reviewer", "venue": text},
        "awards": {"title": text},
        "funding": {"funder": text},
        "custom_sections": {"title": text, "body": text},
        "advising": {"advisor_id": owner.id, "student_name": text},
        "recruiting": {"level": "phd", "title": text, "description": f"{COMMON} {text}"},
    }[kind]


@dataclass
class World:
    private: list[str] = field(default_factory=list)
    members: list[str] = field(default_factory=list)
    hidden_slugs: list[str] = field(default_factory=list)


@pytest.fixture
def world(db, make_person, make_publication) -> World:
    w = World()
    owner = make_person(
        "Vera Owner", slug="vera-owner", email="zqowneremail@example.edu", bio=COMMON
    )
    w.members.append("zqowneremail")  # email: signed-in members only
    for kind, model in m.ENTRY_MODELS.items():
        for level in ("members", "private"):
            marker = f"zq{kind.replace('_', '')}{level}"
            db.add(model(owner_id=owner.id, visibility=level, **entry_values(kind, marker, owner)))
            getattr(w, level).append(marker)

    for level in ("members", "private"):
        person = make_person(
            f"Pia Zqperson{level}",
            slug=f"pia-{level}",
            visibility=level,
            bio=f"{COMMON} zqbio{level}",
            interests=f"zqinterests{level}",
            email=f"zqemail{level}@example.edu",
        )
        getattr(w, level).extend([f"zqperson{level}", f"zqbio{level}", f"zqinterests{level}"])
        w.hidden_slugs.append(person.slug)
        # A public notice on a hidden profile is as hidden as the profile.
        db.add(
            m.RecruitingNotice(
                owner_id=person.id, level="postdoc", description=f"{COMMON} zqnoticeof{level}"
            )
        )
        getattr(w, level).append(f"zqnoticeof{level}")
        # Public relations must not reveal the hidden person, as student or as advisor.
        db.add(m.AdvisingRelation(owner_id=owner.id, advisor_id=owner.id, student_id=person.id))
        db.add(m.AdvisingRelation(owner_id=owner.id, advisor_id=person.id, student_id=owner.id))

        paper = make_publication(
            f"Zqpaper{level} {COMMON}", authors=(owner,), visibility=level, abstract=COMMON
        )
        paper.created_by_id = owner.id
        getattr(w, level).extend([f"zqpaper{level}", paper.uid])
        # Public things pointing at the hidden paper must not give it away.
        public = make_publication(f"Public paper citing {level}", authors=(owner,))
        public.relations.append(m.PublicationRelation(kind="follow_up_of", target=paper))
        db.add(m.Award(owner_id=owner.id, title=f"Award for {level}", publication=paper))
        project = m.ResearchProject(owner_id=owner.id, title=f"Project {level}")
        project.publications.append(paper)
        db.add(project)
    db.commit()
    return w


def api_outputs(client, world: World) -> dict[str, str]:
    """Every API answer a caller can get about this world, by URL."""
    outputs: dict[str, str] = {}

    def fetch(url: str, items_only: bool = False) -> dict:
        response = client.get(url)
        body = response.get_json()
        # The query string is echoed in paging links; judge the items of filtered lists.
        outputs[url] = json.dumps(body["items"] if items_only else body)
        return body

    fetch(f"{API}/")
    people = fetch(f"{API}/people?per_page=100")
    for item in people["items"]:
        fetch(f"{API}/people/{item['slug']}")
    for slug in world.hidden_slugs:
        fetch(f"{API}/people/{slug}")
    fetch(f"{API}/positions?per_page=100")
    fetch(f"{API}/positions?person=vera-owner")
    fetch(f"{API}/publications?per_page=100")
    fetch(f"{API}/publications?person=vera-owner&per_page=100")
    fetch(f"{API}/areas")
    fetch(f"{API}/people?recruiting=true")
    # The common word is in every searchable thing (the search page is also tried with each
    # marker below).
    fetch(f"{API}/people?q={COMMON}", items_only=True)
    fetch(f"{API}/publications?q={COMMON}", items_only=True)
    return outputs


def search_outputs(app, client, db, viewer: Viewer, world: World) -> dict[str, str]:
    """The search page's results (not the echoed query) and the search function's hits."""
    outputs: dict[str, str] = {}
    queries = [{"q": COMMON, "kind": kind} for kind in index.KINDS]
    queries += [{"q": word} for word in (COMMON, *world.private, *world.members)]
    for query in queries:
        html = client.get("/directory/search", query_string=query).get_data(as_text=True)
        results = re.findall(r'<li class="search-hit.*?</li>', html, re.S)
        outputs[f"search page {query}"] = " ".join(results)
    with app.test_request_context():
        hits = index.search(db, COMMON, viewer, limit=1000).hits
    outputs["search()"] = " ".join(f"{h.title} {h.summary} {h.snippet} {h.url}" for h in hits)
    return outputs


def found_markers(outputs: dict[str, str], markers: list[str]) -> dict[str, list[str]]:
    return {
        marker: [where for where, text in outputs.items() if marker.lower() in text.lower()]
        for marker in markers
        if any(marker.lower() in text.lower() for text in outputs.values())
    }


def test_the_world_covers_every_entry_kind(world) -> None:
    for kind in m.ENTRY_MODELS:
        assert f"zq{kind.replace('_', '')}private" in world.private


def test_anonymous_callers_see_nothing_hidden(app, client, db, world) -> None:
    outputs = api_outputs(client, world) | search_outputs(app, client, db, ANONYMOUS, world)
    assert found_markers(outputs, world.private + world.members) == {}
    for slug in world.hidden_slugs:
        assert client.get(f"{API}/people/{slug}").status_code == 404


def test_members_see_members_entries_but_nothing_private(app, client, db, world) -> None:
    login(client, "member")
    member = Viewer(key="member")
    outputs = api_outputs(client, world) | search_outputs(app, client, db, member, world)
    assert found_markers(outputs, world.private) == {}
    assert set(found_markers(outputs, world.members)) == set(world.members)


def test_admins_see_everything_so_the_scan_is_meaningful(app, client, db, world) -> None:
    login(client, "admin")
    admin = Viewer(key="admin", is_admin=True)
    outputs = api_outputs(client, world) | search_outputs(app, client, db, admin, world)
    assert set(found_markers(outputs, world.private + world.members)) == set(
        world.private + world.members
    )
