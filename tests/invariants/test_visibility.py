"""Visibility everywhere: an entry that is not public is absent, for anonymous visitors, from
every page, feed, export and listing; signed-in members see members-only entries.

The test builds a department in which every kind of thing exists three times, public,
members-only and private, each carrying a distinctive token in its text, plus things that must
never show (an unconfirmed advising claim, an expired notice, the public entries of a hidden
profile). It then fetches every output in :data:`OUTPUTS` and looks for the tokens.

Every page, feed, export, search and JSON API endpoint (lists and details) is in
:data:`OUTPUTS`. To cover a new output, add an ``Output`` there: every test below then checks
it too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from directory import models as m
from directory.formats.names import make_slug, sort_name
from tests.conftest import login

LEVELS = ("public", "members", "private")
PREFIX = "/directory"


def token(level: str, what: str) -> str:
    """A distinctive word, e.g. ``QzPrivateNews``; none is a substring of another's level."""
    return f"Qz{level.capitalize()}{what}"


@dataclass
class World:
    """What the visibility tests built, and the tokens each kind of viewer may or may not see."""

    owner_slug: str
    area_slug: str
    hidden_person_slugs: dict[str, str]
    tokens: dict[str, list[str]] = field(default_factory=dict)
    #: Tokens nobody but their owner or an admin may see, whatever the level.
    never: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Output:
    """One output of the plugin: a name for messages and a URL built from the world."""

    name: str
    url: Callable[[World], str]


#: Every output an anonymous visitor can fetch. Add new pages, feeds, exports and API
#: endpoints here.
OUTPUTS: list[Output] = [
    Output("listing", lambda w: f"{PREFIX}/"),
    Output("listing, recruiting filter", lambda w: f"{PREFIX}/?recruiting=1"),
    Output("listing, searching hidden names", lambda w: f"{PREFIX}/?q=Hidden"),
    Output("research areas", lambda w: f"{PREFIX}/areas/"),
    Output("research area page", lambda w: f"{PREFIX}/areas/{w.area_slug}"),
    Output("recruiting", lambda w: f"{PREFIX}/recruiting"),
    Output(
        "recruiting, hidden person's notices",
        lambda w: f"{PREFIX}/recruiting?person={w.hidden_person_slugs['private']}",
    ),
    Output("recruiting feed", lambda w: f"{PREFIX}/recruiting.atom"),
    Output("recruiting feed, by area", lambda w: f"{PREFIX}/recruiting.atom?area={w.area_slug}"),
    Output("alumni", lambda w: f"{PREFIX}/alumni"),
    Output("publications", lambda w: f"{PREFIX}/publications"),
    Output(
        "publications, hidden person's papers",
        lambda w: f"{PREFIX}/publications?person={w.hidden_person_slugs['private']}",
    ),
    Output("publications BibTeX", lambda w: f"{PREFIX}/publications.bib"),
    Output("news", lambda w: f"{PREFIX}/news"),
    Output("news feed", lambda w: f"{PREFIX}/news.atom"),
    Output("sitemap", lambda w: f"{PREFIX}/sitemap.xml"),
    Output("owner's profile", lambda w: f"{PREFIX}/people/{w.owner_slug}"),
    Output("owner's CV", lambda w: f"{PREFIX}/people/{w.owner_slug}/cv"),
    Output(
        "hidden person's profile",
        lambda w: f"{PREFIX}/people/{w.hidden_person_slugs['private']}",
    ),
    Output(
        "hidden person's photo",
        lambda w: f"{PREFIX}/people/{w.hidden_person_slugs['private']}/photo",
    ),
    Output("publications CSL JSON", lambda w: f"{PREFIX}/publications.csl.json"),
    Output("owner's BibTeX", lambda w: f"{PREFIX}/people/{w.owner_slug}/publications.bib"),
    Output("owner's CSL JSON", lambda w: f"{PREFIX}/people/{w.owner_slug}/publications.csl.json"),
    Output("hidden person's BibTeX", lambda w: f"{PREFIX}/people/{_hidden(w)}/publications.bib"),
    Output("search, the owner's name", lambda w: f"{PREFIX}/search?q=Olive"),
    Output("search, hidden names", lambda w: f"{PREFIX}/search?q=Hidden"),
    Output("search, hidden names' papers", lambda w: f"{PREFIX}/search?q=Hidden&kind=publication"),
    Output("API index", lambda w: f"{PREFIX}/api/v1/"),
    Output("API people", lambda w: f"{PREFIX}/api/v1/people?per_page=100"),
    Output("API people, searching hidden names", lambda w: f"{PREFIX}/api/v1/people?q=Hidden"),
    Output("API people, by area", lambda w: f"{PREFIX}/api/v1/people?area={w.area_slug}"),
    Output("API owner's profile", lambda w: f"{PREFIX}/api/v1/people/{w.owner_slug}"),
    Output("API hidden person's profile", lambda w: f"{PREFIX}/api/v1/people/{_hidden(w)}"),
    Output("API positions", lambda w: f"{PREFIX}/api/v1/positions?per_page=100"),
    Output("API positions, by area", lambda w: f"{PREFIX}/api/v1/positions?area={w.area_slug}"),
    Output("API publications", lambda w: f"{PREFIX}/api/v1/publications?per_page=100"),
    Output(
        "API publications, searching hidden names",
        lambda w: f"{PREFIX}/api/v1/publications?q=Hidden",
    ),
    Output("API areas", lambda w: f"{PREFIX}/api/v1/areas?per_page=100"),
]


def _hidden(world: World) -> str:
    """The slug of the private profile."""
    return world.hidden_person_slugs["private"]


#: For each entry kind (the keys of models.ENTRY_MODELS), the fields of an entry whose text
#: carries ``t``. Advising relations graduate a student of the owner, so they reach the alumni
#: page; notices carry the area so that they reach the area page too.
ENTRY_FIELDS: dict[str, Callable[[str], dict[str, Any]]] = {
    "news": lambda t: {"year": 2026, "month": 3, "body": f"{t} news"},
    "education": lambda t: {"degree": "PhD", "institution": f"{t} University"},
    "experience": lambda t: {"title": "Researcher", "organisation": f"{t} Labs"},
    "projects": lambda t: {"title": f"{t} project"},
    "teaching": lambda t: {"title": f"{t} course", "year": 2025},
    "service": lambda t: {"kind": "program_committee", "venue": f"{t} conference", "year": 2025},
    "awards": lambda t: {"title": f"{t} prize", "year": 2025},
    "funding": lambda t: {"funder": f"{t} Foundation"},
    "custom_sections": lambda t: {"title": f"{t} section", "body": f"{t} body"},
    "advising": lambda t: {
        "student_name": f"{t} Student",
        "degree": "phd",
        "status": "graduated",
        "end_year": 2024,
        "thesis": f"{t} thesis",
        "placement": f"{t} Inc",
    },
    "recruiting": lambda t: {"level": "phd", "description": f"{t} notice", "term": "Fall 2027"},
}


def _person(db, full_name: str, **values: Any) -> m.Person:
    person = m.Person(
        full_name=full_name,
        slug=make_slug(full_name),
        sort_name=sort_name(full_name),
        **{"role": "faculty", **values},
    )
    db.add(person)
    db.flush()
    return person


def _paper(db, title: str, author: m.Person, visibility: str = "public") -> m.Publication:
    pub = m.Publication(
        title=title,
        year=2025,
        venue=f"{title} venue",
        visibility=visibility,
        authorships=[m.Authorship(position=0, name=author.full_name, person=author)],
        awards=[m.PublicationAward(name=f"{title} award")],
    )
    db.add(pub)
    db.flush()
    db.add(m.ProfilePublication(person_id=author.id, publication_id=pub.id))
    return pub


def _entry(db, kind: str, owner: m.Person, text: str, visibility: str, area: m.ResearchArea):
    model = m.ENTRY_MODELS[kind]
    entry = model(owner_id=owner.id, visibility=visibility, **ENTRY_FIELDS[kind](text))
    if kind == "advising":
        entry.advisor_id = owner.id
    if kind == "recruiting":
        entry.areas = [area]
    db.add(entry)
    return entry


@pytest.fixture
def world(db) -> World:
    area = m.ResearchArea(slug="visible-systems", name="Visible Systems")
    db.add(area)
    owner = _person(db, "Olive Owner", rank="professor", title="Professor", areas=[area])
    result = World(owner_slug=owner.slug, area_slug=area.slug, hidden_person_slugs={})
    # A public paper related to (e.g. an extended version of) a paper of every level: the
    # relation must not show a paper the viewer may not see.
    relating = _paper(db, "Relating paper", owner)
    for level in LEVELS:
        tokens = result.tokens.setdefault(level, [])
        # One entry of every kind on the public owner's profile.
        for kind in m.ENTRY_MODELS:
            tokens.append(token(level, kind.replace("_", "").capitalize()))
            _entry(db, kind, owner, tokens[-1], level, area)
        # A publication.
        tokens.append(token(level, "Paper"))
        paper = _paper(db, tokens[-1], owner, visibility=level)
        relating.relations.append(m.PublicationRelation(kind="extended_version_of", target=paper))
        # A profile with this visibility, whose own entries are all public: a hidden profile
        # must take its notices, news, papers, photo, links and areas with it.
        name = token(level, "Person")
        person_area = m.ResearchArea(slug=make_slug(name + "Area"), name=name + "Area")
        person = _person(
            db,
            f"Hidden {name}",
            role="phd_student",
            visibility=level,
            interests=f"{name}Interests",
            areas=[area, person_area],
            links=[m.PersonLink(kind="homepage", url=f"https://example.org/{name}Link")],
        )
        person.photo = m.PersonPhoto(
            data=b"\x89PNG fake", mime_type="image/png", width=1, height=1, etag="e" + name
        )
        result.hidden_person_slugs[level] = person.slug
        tokens.append(name)
        for kind in ("news", "recruiting"):
            _entry(db, kind, person, f"{name}{kind.capitalize()}", "public", area)
        _paper(db, f"{name}Paper", person)
        # ...and as a graduated student of the owner (the relation itself public).
        db.add(
            m.AdvisingRelation(
                owner_id=owner.id,
                advisor_id=owner.id,
                student_id=person.id,
                status="graduated",
                end_year=2023,
                thesis=f"{name}Thesis",
            )
        )
        # ...as the owner's own advisor ("Advised by" on the owner's profile), and as
        # co-advisor of the owner's public student ("with ..." in the owner's students).
        db.add(m.AdvisingRelation(owner_id=owner.id, advisor_id=person.id, student_id=owner.id))
        if level == "public":
            public_student = person
        else:
            db.add(
                m.AdvisingRelation(
                    owner_id=owner.id,
                    advisor_id=person.id,
                    student_id=public_student.id,
                    role="co_advisor",
                    status="graduated",
                    end_year=2023,
                )
            )
    # Things no anonymous visitor or member may see at all.
    never = [token("never", "Unconfirmed"), token("never", "Expired")]
    _entry(db, "advising", owner, never[0], "public", area).student_confirmed = False
    expired = _entry(db, "recruiting", owner, never[1], "public", area)
    expired.expires_on = date.today()
    open_token = token("public", "OpenUntilTomorrow")
    still_open = _entry(db, "recruiting", owner, open_token, "public", area)
    still_open.expires_on = date.today() + timedelta(days=1)
    result.tokens["public"].append(open_token)
    result.never = never
    db.commit()
    return result


def fetch(client, world: World) -> dict[str, str]:
    """Every output's body (any status but a server error), by output name. The values of the
    URL's own query parameters, and a hidden person's slug in its path, are cut out: a page
    repeating what it was asked (a filter chip, a feed link, "there is no person ...")
    discloses nothing."""
    bodies = {}
    for output in OUTPUTS:
        url = output.url(world)
        response = client.get(url)
        assert response.status_code < 500, f"{output.name}: {url} failed"
        body = response.get_data().decode("utf-8", "replace")
        asked = [value for _, value in parse_qsl(urlsplit(url).query)]
        asked += [s for s in world.hidden_person_slugs.values() if s in urlsplit(url).path]
        for value in asked:
            body = re.sub(re.escape(value), "", body, flags=re.IGNORECASE)
        bodies[output.name] = body
    return bodies


def leaks(bodies: dict[str, str], tokens: list[str]) -> list[str]:
    """``token in output`` for every token found, case-insensitively (slugs are lower case)."""
    return [
        f"{tok} in {name}"
        for tok in tokens
        for name, body in bodies.items()
        if tok.lower() in body.lower()
    ]


def missing(bodies: dict[str, str], tokens: list[str]) -> list[str]:
    every = "\n".join(bodies.values()).lower()
    return [tok for tok in tokens if tok.lower() not in every]


def test_the_world_has_an_entry_of_every_kind(world) -> None:
    kinds = {kind.replace("_", "").capitalize() for kind in m.ENTRY_MODELS}
    for level in LEVELS:
        assert {token(level, kind) for kind in kinds} <= set(world.tokens[level])
    # A new entry kind needs a row in ENTRY_FIELDS, or this test module can't cover it.
    assert set(ENTRY_FIELDS) == set(m.ENTRY_MODELS)


def test_anonymous_outputs_hold_no_members_or_private_entry(client, world) -> None:
    bodies = fetch(client, world)
    hidden = world.tokens["members"] + world.tokens["private"] + world.never
    hidden += ["QzMembersPersonArea", "QzPrivatePersonArea"]
    assert leaks(bodies, hidden) == [], "\n".join(leaks(bodies, hidden))
    # The same outputs do show the public twin of every entry, so the absence above means
    # something.
    assert missing(bodies, world.tokens["public"]) == []


def test_members_see_members_entries_and_still_no_private_one(client, world) -> None:
    login(client, "a-member")
    bodies = fetch(client, world)
    assert leaks(bodies, world.tokens["private"] + world.never) == []
    assert missing(bodies, world.tokens["members"] + world.tokens["public"]) == []


def test_feeds_and_sitemap_are_public_whoever_asks(client, world) -> None:
    """Feed readers and crawlers share what they fetch: members-only entries stay out."""
    login(client, "a-member")
    bodies = fetch(client, world)
    public_documents = {
        name: body for name, body in bodies.items() if "feed" in name or name in ("sitemap",)
    }
    assert len(public_documents) == 4
    assert leaks(public_documents, world.tokens["members"]) == []


def test_photo_and_profile_of_a_hidden_person_are_not_found(client, world) -> None:
    for level, status in (("private", 404), ("members", 404), ("public", 200)):
        slug = world.hidden_person_slugs[level]
        assert client.get(f"{PREFIX}/people/{slug}").status_code == status
        assert client.get(f"{PREFIX}/people/{slug}/photo").status_code == status
    login(client, "a-member")
    slug = world.hidden_person_slugs["members"]
    assert client.get(f"{PREFIX}/people/{slug}/photo").status_code == 200


def test_admins_see_everything_on_department_pages(client, world) -> None:
    login(client, "admin")
    bodies = fetch(client, world)
    page_bodies = {k: v for k, v in bodies.items() if "feed" not in k and k != "sitemap"}
    assert missing(page_bodies, world.tokens["private"]) == []
