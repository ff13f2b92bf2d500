"""One answer per question, wherever it is asked: every output showing listed people, open
notices, the people of an area or the department's publications (and whoever decides waiting
changes) gives exactly what the read rule of :mod:`directory.services.access` answers, for
every kind of viewer.

One department holds the edge cases (an inactive alumnus's public notice, notices expired,
expiring today and tomorrow, members-only and private notices and profiles, a person only in
a sub-area, hidden papers, a paper only on a private profile...). :data:`EXPECTED` writes
down what each rule decides, so a changed decision is seen here first; :data:`OUTPUTS` lists
every output of each question, one line each. A new output is one more line there.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from flask import render_template_string
from flask import session as flask_session
from sqlalchemy import select

from directory import models as m
from directory.services import access
from directory.services.identity import ANONYMOUS, Viewer, current_viewer
from tests.conftest import TEST_USER_KEY, login
from tests.support.pages import ATOM, SITEMAP, card_slugs

PREFIX = "/directory"
#: A word every edge case carries in its searchable text, so one search finds them all.
COMMON = "qzcommon"
#: Who asks: the identity key each viewer signs in with.
VIEWERS = {"anonymous": None, "member": "a-member", "admin": "admin", "owner": "olive-key",
           "unlisted owner": "uma-key"}  # fmt: skip


def notices_in(text: str) -> set[str]:
    return set(re.findall(r"QzNotice[A-Za-z]+", text))


def papers_in(text: str) -> set[str]:
    return set(re.findall(r"QzPaper[A-Za-z]+", text))


# ----------------------------------------------------------------------------- the department


@pytest.fixture
def world(db, make_person, make_publication) -> dict[str, m.Person]:
    systems = m.ResearchArea(slug="systems", name="Systems")
    os_area = m.ResearchArea(slug="operating-systems", name="Operating systems", parent=systems)
    theory = m.ResearchArea(slug="theory", name="Theory")
    db.add_all([systems, os_area, theory])
    db.commit()
    people = {
        key: make_person(name, interests=f"{COMMON} research", **values)
        for key, name, values in [
            ("olive", "Olive Owner", {"user_key": "olive-key", "areas": [systems]}),
            ("sam", "Sam Subarea", {"role": "phd_student", "areas": [os_area]}),
            ("theo", "Theo Theory", {"areas": [theory]}),
            ("mel", "Mel Members", {"visibility": "members", "areas": [systems]}),
            ("pia", "Pia Private", {"visibility": "private", "areas": [systems]}),
            # Deactivated by an admin: inactive and listed among the alumni.
            ("alma", "Alma Alumna", {"role": "alumni", "active": False, "areas": [systems]}),
            # An alumnus imported as such (the demo's alumni): still active.
            ("alex", "Alex Alumnus", {"role": "alumni", "areas": [systems]}),
            ("gus", "Gus Gone", {"active": False, "areas": [systems]}),
            # Added by an admin and not published yet: seen by herself and admins only.
            (
                "uma",
                "Uma Unlisted",
                {"user_key": "uma-key", "published": False, "areas": [systems]},
            ),
        ]
    }

    def notice(owner: str, token: str, **values: Any) -> None:
        db.add(
            m.RecruitingNotice(
                owner_id=people[owner].id,
                level="phd",
                title=token,
                description=f"{COMMON} position",
                areas=[systems],
                **values,
            )
        )

    # Intakes: rolling unless given (a rolling notice is open to every term).
    fall, spring = {"term_season": "fall", "term_year": 2026}, {"term": "Spring 2027"}
    # Today as each test starts (not as the module was imported: a suite run may cross
    # midnight, and the pages ask for the date of their request).
    today = date.today()
    notice("olive", "QzNoticeOpen", **fall)
    notice("olive", "QzNoticeExpiresToday", expires_on=today, **fall)
    notice("olive", "QzNoticeExpired", expires_on=today - timedelta(days=1))
    notice("olive", "QzNoticeExpiresTomorrow", expires_on=today + timedelta(days=1), **spring)
    notice("olive", "QzNoticeMembers", visibility="members", **spring)
    notice("olive", "QzNoticePrivate", visibility="private", **fall)
    # Old free text naming no term: listed, but matching no term filter.
    notice("olive", "QzNoticeUnreadableTerm", term="when funding allows")
    notice("sam", "QzNoticeSubarea")
    notice("mel", "QzNoticeOnMembersProfile", **fall)
    notice("pia", "QzNoticeOnPrivateProfile")
    notice("alma", "QzNoticeAlumna")
    notice("alex", "QzNoticeAlumnus")
    notice("gus", "QzNoticeInactive")
    notice("uma", "QzNoticeOnUnlistedProfile")
    db.commit()

    def paper(token: str, *holders: str, hidden: tuple[str, ...] = (), **values: Any) -> None:
        pub = make_publication(
            token, authors=tuple(people[h] for h in holders) or ("Some One",), **values
        )
        for holder in hidden:
            db.get(m.ProfilePublication, (people[holder].id, pub.id)).hidden = True
        db.commit()

    venue = {"venue": f"{COMMON} venue"}
    olive_id = people["olive"].id
    paper("QzPaperPublic", "olive", created_by_id=olive_id, **venue)
    paper("QzPaperMembers", "olive", visibility="members", **venue)
    paper("QzPaperPrivate", "olive", visibility="private", created_by_id=olive_id, **venue)
    paper("QzPaperHidden", "olive", hidden=("olive",), **venue)
    paper("QzPaperShared", "olive", "sam", hidden=("olive",), **venue)
    paper("QzPaperOnPrivateProfile", "pia", **venue)
    paper("QzPaperOnMembersProfile", "mel", **venue)
    paper("QzPaperOnUnlistedProfile", "uma", **venue)
    paper("QzPaperAlumna", "alma", **venue)
    # Created private by a co-author and linked to the owner's list too: the creator's.
    created = {"created_by_id": people["sam"].id}
    paper("QzPaperCoauthorPrivate", "sam", "olive", visibility="private", **created, **venue)
    paper("QzPaperOnNoProfile", **venue)

    # Olive advises Sam (confirmed by both) and Theo (Theo has not confirmed); each of them
    # and Mel has a change waiting for approval.
    olive = people["olive"]
    for student, confirmed in (("sam", True), ("theo", False)):
        relation = m.AdvisingRelation(
            owner_id=olive.id, advisor_id=olive.id, student_id=people[student].id
        )
        relation.student_confirmed = confirmed
        db.add(relation)

    # Graduations: one public, members-only and private ones, under advisors with a members-
    # only and a private profile, and one with no department advisor (no alumnus of ours).
    def graduate(advisor: str | None, token: str, year: int, **values: Any) -> None:
        owner = people[advisor or "olive"]
        db.add(
            m.AdvisingRelation(
                owner_id=owner.id,
                advisor_id=owner.id if advisor else None,
                advisor_name=None if advisor else "Prof. Elsewhere",
                student_name=token,
                status="graduated",
                end_year=year,
                **values,
            )
        )

    graduate("olive", "QzGradPublic", 2024)
    graduate("olive", "QzGradMembers", 2023, visibility="members")
    graduate("olive", "QzGradPrivate", 2023, visibility="private")
    graduate("olive", "QzGradUnconfirmed", 2023, student_confirmed=False)
    graduate("mel", "QzGradOfMembersProfile", 2022)
    graduate("pia", "QzGradOfPrivateProfile", 2022)
    graduate(None, "QzGradOutside", 2022)
    for key in ("sam", "theo", "mel"):
        db.add(
            m.PendingChange(
                person_id=people[key].id,
                entity_kind="news",
                action="create",
                summary=f"news of {people[key].slug}",
                proposed={"year": 2026, "body": "news"},
            )
        )
    db.commit()
    return people


# ----------------------------------------------------------------------------- the rules


@dataclass(frozen=True)
class Question:
    """A read rule, asked directly: what it answers for a viewer, as names (slugs, tokens)."""

    rule: Callable[[Any, Viewer], set[str]]


def _alumni(db, viewer: Viewer) -> dict[str, int | None]:
    """The alumni the rules list, with their year: graduations under a department advisor
    (:func:`access.listed_graduations`, :func:`access.department_graduation`), and the people
    listed as alumni without one (:func:`access.listed_alumni_people`)."""
    graduations = db.execute(
        select(m.AdvisingRelation.student_name, m.AdvisingRelation.end_year).where(
            access.listed_graduations(viewer), access.department_graduation()
        )
    ).all()
    people = db.scalars(select(m.Person.full_name).where(access.listed_alumni_people(viewer)))
    return {**dict.fromkeys(people), **dict(graduations)}


def _alumni_counts(db, viewer: Viewer) -> set[str]:
    """What the alumni summary counts: every listed alumnus, and those of each year."""
    years = [year for year in _alumni(db, viewer).values() if year]
    return {f"total {len(_alumni(db, viewer))}"} | {f"{y}: {years.count(y)}" for y in years}


QUESTIONS: dict[str, Question] = {
    "listed alumni": Question(lambda db, viewer: set(_alumni(db, viewer))),
    "alumni counted": Question(_alumni_counts),
    "listed people": Question(
        lambda db, viewer: set(
            db.scalars(select(m.Person.slug).where(access.listed_people(viewer)))
        )
    ),
    "listed notices": Question(
        lambda db, viewer: set(
            db.scalars(
                select(m.RecruitingNotice.title).where(access.listed_notices(viewer, date.today()))
            )
        )
    ),
    "listed notices for Fall 2026": Question(
        lambda db, viewer: set(
            db.scalars(
                select(m.RecruitingNotice.title).where(
                    access.listed_notices(viewer, date.today()),
                    access.notice_for_term(m.Term("fall", 2026)),
                )
            )
        )
    ),
    "people in Systems": Question(
        lambda db, viewer: set(
            db.scalars(select(m.Person.slug).where(access.people_in_area(viewer, "systems")))
        )
    ),
    "listed publications": Question(
        lambda db, viewer: set(
            db.scalars(select(m.Publication.title).where(access.listed_publications(viewer)))
        )
    ),
    "people whose waiting changes one may approve": Question(
        lambda db, viewer: set(
            db.scalars(
                select(m.Person.slug).where(
                    access.approvable(viewer), m.Person.id.in_(select(m.PendingChange.person_id))
                )
            )
        )
    ),
}

_PEOPLE = {"olive-owner", "sam-subarea", "theo-theory"}
_NOTICES = {
    "QzNoticeOpen",
    "QzNoticeExpiresTomorrow",
    "QzNoticeSubarea",
    "QzNoticeUnreadableTerm",
}
_MEMBERS_NOTICES = {"QzNoticeMembers", "QzNoticeOnMembersProfile"}
_PAPERS = {"QzPaperPublic", "QzPaperShared", "QzPaperAlumna"}
_MEMBERS_PAPERS = {"QzPaperMembers", "QzPaperOnMembersProfile"}

_ALUMNI = {"QzGradPublic", "Alma Alumna", "Alex Alumnus"}
_MEMBERS_ALUMNI = {"QzGradMembers", "QzGradOfMembersProfile"}

#: What each rule decides, for each viewer. Never listed, for anyone: alumni (active or not),
#: inactive and unpublished people, their notices, expired notices (a notice expiring today is
#: gone today), hidden papers and papers on no profile. A paper only on an unpublished profile
#: is listed to its owner and admins, who see that profile.
EXPECTED: dict[str, dict[str, set[str]]] = {
    "listed people": {
        "anonymous": _PEOPLE,
        "member": _PEOPLE | {"mel-members"},
        "admin": _PEOPLE | {"mel-members", "pia-private"},
        "owner": _PEOPLE | {"mel-members"},
        "unlisted owner": _PEOPLE | {"mel-members"},
    },
    "listed notices": {
        "anonymous": _NOTICES,
        "member": _NOTICES | _MEMBERS_NOTICES,
        "admin": _NOTICES | _MEMBERS_NOTICES | {"QzNoticePrivate", "QzNoticeOnPrivateProfile"},
        "owner": _NOTICES | _MEMBERS_NOTICES | {"QzNoticePrivate"},
        "unlisted owner": _NOTICES | _MEMBERS_NOTICES,
    },
    # Fall 2026's notices and the rolling ones (Sam's); not Spring 2027's, not unreadable text.
    "listed notices for Fall 2026": {
        "anonymous": {"QzNoticeOpen", "QzNoticeSubarea"},
        "member": {"QzNoticeOpen", "QzNoticeSubarea", "QzNoticeOnMembersProfile"},
        "admin": {
            "QzNoticeOpen",
            "QzNoticeSubarea",
            "QzNoticeOnMembersProfile",
            "QzNoticePrivate",
            "QzNoticeOnPrivateProfile",
        },
        "owner": {"QzNoticeOpen", "QzNoticeSubarea", "QzNoticeOnMembersProfile", "QzNoticePrivate"},
        "unlisted owner": {"QzNoticeOpen", "QzNoticeSubarea", "QzNoticeOnMembersProfile"},
    },
    # Sub-areas included: Sam works in Operating systems only.
    "people in Systems": {
        "anonymous": {"olive-owner", "sam-subarea"},
        "member": {"olive-owner", "sam-subarea", "mel-members"},
        "admin": {"olive-owner", "sam-subarea", "mel-members", "pia-private"},
        "owner": {"olive-owner", "sam-subarea", "mel-members"},
        "unlisted owner": {"olive-owner", "sam-subarea", "mel-members"},
    },
    "listed publications": {
        "anonymous": _PAPERS,
        "member": _PAPERS | _MEMBERS_PAPERS,
        "admin": _PAPERS
        | _MEMBERS_PAPERS
        | {
            "QzPaperPrivate",
            "QzPaperOnPrivateProfile",
            "QzPaperCoauthorPrivate",
            "QzPaperOnUnlistedProfile",
        },
        "owner": _PAPERS | _MEMBERS_PAPERS | {"QzPaperPrivate"},
        "unlisted owner": _PAPERS | _MEMBERS_PAPERS | {"QzPaperOnUnlistedProfile"},
    },
    # Confirmed graduations under a department advisor whose profile one may see, visible
    # themselves (the owner sees their own private one); and people listed as alumni.
    "listed alumni": {
        "anonymous": _ALUMNI,
        "member": _ALUMNI | _MEMBERS_ALUMNI,
        "admin": _ALUMNI | _MEMBERS_ALUMNI | {"QzGradPrivate", "QzGradOfPrivateProfile"},
        "owner": _ALUMNI | _MEMBERS_ALUMNI | {"QzGradPrivate"},
        "unlisted owner": _ALUMNI | _MEMBERS_ALUMNI,
    },
    "alumni counted": {
        "anonymous": {"total 3", "2024: 1"},
        "member": {"total 5", "2024: 1", "2023: 1", "2022: 1"},
        "admin": {"total 7", "2024: 1", "2023: 2", "2022: 2"},
        "owner": {"total 6", "2024: 1", "2023: 2", "2022: 1"},
        "unlisted owner": {"total 5", "2024: 1", "2023: 1", "2022: 1"},
    },
    # A confirmed advisor (Olive, of Sam only: Theo has not confirmed), or an admin.
    "people whose waiting changes one may approve": {
        "anonymous": set(),
        "member": set(),
        "admin": {"sam-subarea", "theo-theory", "mel-members"},
        "owner": {"sam-subarea"},
        "unlisted owner": set(),
    },
}


# ----------------------------------------------------------------------------- the outputs


@dataclass
class Reader:
    """Reads outputs as one viewer: pages and feeds through the test client, fragments
    rendered in a request as a host page would."""

    app: Any
    client: Any
    key: str | None
    viewer: Viewer
    people: dict[str, m.Person]

    def text(self, url: str) -> str:
        response = self.client.get(PREFIX + url)
        assert response.status_code == 200, url
        return response.get_data(as_text=True)

    def json(self, url: str) -> Any:
        return json.loads(self.text(url))

    def fragment(self, template: str) -> str:
        with self.app.test_request_context("/host-page"):
            if self.key is not None:
                flask_session[TEST_USER_KEY] = self.key
            return render_template_string(template)

    def profiles(self, suffix: str = "") -> str:
        """Every profile (or profile export) of the department the viewer may open."""
        bodies = []
        for person in self.people.values():
            response = self.client.get(f"{PREFIX}/people/{person.slug}{suffix}")
            assert response.status_code in (200, 404), person.slug
            if response.status_code == 200:
                bodies.append(response.get_data(as_text=True))
        return "\n".join(bodies)


def _approval_queue(reader: Reader) -> set[str]:
    response = reader.client.get(f"{PREFIX}/approvals")
    with reader.app.app_context():
        assert access.is_approver(reader.viewer) == (response.status_code == 200)
    if response.status_code != 200:  # not an approver: refused, or asked to sign in
        return set()
    return set(re.findall(r"news of ([a-z-]+)", response.get_data(as_text=True)))


def _feed_titles(reader: Reader, url: str) -> str:
    feed = ET.fromstring(reader.text(url))  # noqa: S314 - our own output
    return "\n".join(entry.findtext(f"{ATOM}title") or "" for entry in feed.iter(f"{ATOM}entry"))


def _sitemap_people(reader: Reader) -> set[str]:
    root = ET.fromstring(reader.text("/sitemap.xml"))  # noqa: S314 - our own output
    locs = [url.findtext(f"{SITEMAP}loc") or "" for url in root.iter(f"{SITEMAP}url")]
    return {loc.rsplit("/people/", 1)[1] for loc in locs if "/people/" in loc}


def _api_items(reader: Reader, url: str) -> list[dict]:
    body = reader.json(url + ("&" if "?" in url else "?") + "per_page=100")
    assert body["pages"] == 1, url
    return body["items"]


def _search_hits(reader: Reader, kind: str) -> str:
    html = reader.text(f"/search?q={COMMON}&kind={kind}")
    return "\n".join(
        re.findall(rf'<li class="search-hit search-hit--{kind}">(.*?)</li>', html, re.S)
    )


def _alumni_page(reader: Reader) -> set[str]:
    html = reader.text("/alumni")
    names = re.findall(r'<th scope="row" data-label="Name">(?:<a [^>]*>)?([^<]+)', html)
    assert f"{len(names)} alumn" in html  # one page holds them all
    return set(names)


def _alumni_csv(reader: Reader) -> set[str]:
    rows = csv.DictReader(io.StringIO(reader.text("/alumni.csv").lstrip("\ufeff")))
    return {row["Name"] for row in rows}


def _summary_counts(reader: Reader) -> set[str]:
    html = reader.text("/alumni/summary")
    total = re.search(r"(\d+) alumn(?:us|i)\.", html).group(1)
    table = html.split("Alumni per year as a table", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<th scope="row"><a [^>]*>(\d+)</a></th>.*?<td>(\d+)</td></tr>', table)
    return {f"total {total}"} | {f"{year}: {count}" for year, count in rows}


def _chart_counts(reader: Reader) -> set[str]:
    html = reader.text("/alumni/summary")
    desc = re.search(r'<desc id="alumni-chart-desc">(.*?)</desc>', html, re.S).group(1)
    total = re.search(r"(\d+) alumn(?:us|i)\.", html).group(1)
    return {f"total {total}"} | set(re.findall(r"\d{4}: \d+", desc))


def _api_summary_counts(reader: Reader) -> set[str]:
    body = reader.json("/api/v1/alumni/summary")
    years = {f"{y['year']}: {y['count']}" for y in body["years"] if y["count"]}
    return {f"total {body['total']}"} | years


@dataclass(frozen=True)
class Output:
    question: str
    name: str
    read: Callable[[Reader], set[str]]
    #: A public document (feed, sitemap): the anonymous answer, whoever asks.
    public: bool = False


#: Every output of every question. Add a page, feed, export, fragment or API list here.
OUTPUTS: list[Output] = [
    # listed people
    Output("listed people", "listing", lambda r: set(card_slugs(r.text("/")))),
    Output(
        "listed people",
        "API people",
        lambda r: {p["slug"] for p in _api_items(r, "/api/v1/people")},
    ),
    Output("listed people", "sitemap", _sitemap_people, public=True),
    Output(
        "listed people",
        "search, people",
        lambda r: set(re.findall(r'href="/directory/people/([^"#]+)"', _search_hits(r, "person"))),
    ),
    # listed notices
    Output("listed notices", "recruiting page", lambda r: notices_in(r.text("/recruiting"))),
    Output(
        "listed notices",
        "recruiting feed",
        lambda r: notices_in(_feed_titles(r, "/recruiting.atom")),
        public=True,
    ),
    Output(
        "listed notices",
        "API positions",
        lambda r: {n["title"].split(" · ")[0] for n in _api_items(r, "/api/v1/positions")},
    ),
    Output(
        "listed notices",
        "recruiting fragment",
        lambda r: notices_in(r.fragment("{{ directory_recruiting_now(None) }}")),
    ),
    Output("listed notices", "search, notices", lambda r: notices_in(_search_hits(r, "notice"))),
    Output("listed notices", "profiles", lambda r: notices_in(r.profiles())),
    Output(
        "listed notices",
        "API profiles",
        lambda r: {
            n["title"].split(" · ")[0]
            for p in _api_items(r, "/api/v1/people")
            for n in r.json(f"/api/v1/people/{p['slug']}")["positions"]
        },
    ),
    # listed notices open to an intake
    Output(
        "listed notices for Fall 2026",
        "recruiting page",
        lambda r: notices_in(r.text("/recruiting?term=Fall+2026")),
    ),
    Output(
        "listed notices for Fall 2026",
        "recruiting feed",
        lambda r: notices_in(_feed_titles(r, "/recruiting.atom?term=fall+2026")),
        public=True,
    ),
    Output(
        "listed notices for Fall 2026",
        "API positions",
        lambda r: {
            n["title"].split(" · ")[0] for n in _api_items(r, "/api/v1/positions?term=Fall+2026")
        },
    ),
    Output(
        "listed notices for Fall 2026",
        "recruiting fragment",
        lambda r: notices_in(r.fragment('{{ directory_recruiting_now(None, term="Fall 2026") }}')),
    ),
    # people in an area
    Output("people in Systems", "area page", lambda r: set(card_slugs(r.text("/areas/systems")))),
    Output(
        "people in Systems",
        "area fragment",
        lambda r: set(card_slugs(r.fragment('{{ directory_people_in_area("systems") }}'))),
    ),
    Output(
        "people in Systems",
        "API people by area",
        lambda r: {p["slug"] for p in _api_items(r, "/api/v1/people?area=systems")},
    ),
    Output(
        "people in Systems",
        "listing by area",
        lambda r: set(card_slugs(r.text("/?area=systems"))),
    ),
    # listed publications
    Output(
        "listed publications", "publications page", lambda r: papers_in(r.text("/publications"))
    ),
    Output(
        "listed publications",
        "publications BibTeX",
        lambda r: papers_in(r.text("/publications.bib")),
    ),
    Output(
        "listed publications",
        "publications CSL JSON",
        lambda r: {item["title"] for item in r.json("/publications.csl.json")},
    ),
    Output(
        "listed publications",
        "API publications",
        lambda r: {p["title"] for p in _api_items(r, "/api/v1/publications")},
    ),
    Output("listed publications", "profiles", lambda r: papers_in(r.profiles())),
    Output(
        "listed publications",
        "profiles' complete lists of papers",
        lambda r: papers_in(r.profiles("/publications")),
    ),
    Output(
        "listed publications",
        "profiles' BibTeX",
        lambda r: papers_in(r.profiles("/publications.bib")),
    ),
    Output(
        "listed publications",
        "search, publications",
        lambda r: papers_in(_search_hits(r, "publication")),
    ),
    # alumni
    Output("listed alumni", "alumni page", _alumni_page),
    Output("listed alumni", "alumni CSV", _alumni_csv),
    Output(
        "listed alumni",
        "API alumni",
        lambda r: {a["name"] for a in _api_items(r, "/api/v1/alumni")},
    ),
    Output("alumni counted", "alumni summary's table", _summary_counts),
    Output("alumni counted", "alumni summary's chart", _chart_counts),
    Output("alumni counted", "API alumni summary", _api_summary_counts),
    # who may approve
    Output("people whose waiting changes one may approve", "approval queue", _approval_queue),
    Output(
        "people whose waiting changes one may approve",
        "approve and reject buttons (can_approve)",
        lambda r: {
            p.slug
            for p in r.people.values()
            if p.slug in {"sam-subarea", "theo-theory", "mel-members"}
            and access.can_approve(r.viewer, p)
        },
    ),
]


def test_every_question_has_outputs_and_every_output_a_question() -> None:
    assert {output.question for output in OUTPUTS} == set(QUESTIONS) == set(EXPECTED)
    assert len({(output.question, output.name) for output in OUTPUTS}) == len(OUTPUTS)


def _viewer(app, key: str | None) -> Viewer:
    """The viewer the plugin sees for ``key``, as in a request."""
    with app.test_request_context("/"):
        if key is not None:
            flask_session[TEST_USER_KEY] = key
        return current_viewer()


@pytest.mark.parametrize("who", VIEWERS)
@pytest.mark.parametrize("question", QUESTIONS)
def test_every_output_gives_the_rule_s_answer(app, client, db, world, question, who) -> None:
    viewer = _viewer(app, VIEWERS[who])
    assert viewer.is_admin == (who == "admin")
    assert (viewer.person_id == world["olive"].id) == (who == "owner")
    answer = QUESTIONS[question].rule(db, viewer)
    assert answer == EXPECTED[question][who], f"the rule's decision for {who} changed"
    public = QUESTIONS[question].rule(db, ANONYMOUS)

    login(client, VIEWERS[who])
    reader = Reader(app, client, VIEWERS[who], viewer, world)
    disagreements = []
    for output in (o for o in OUTPUTS if o.question == question):
        expected = public if output.public else answer
        got = output.read(reader)
        if got != expected:
            disagreements.append(
                f"{output.name}: missing {sorted(expected - got)}, extra {sorted(got - expected)}"
            )
    assert disagreements == [], f"{question} for {who}:\n" + "\n".join(disagreements)


@pytest.mark.parametrize("who", VIEWERS)
def test_area_counts_are_what_the_area_pages_list(app, client, db, world, who) -> None:
    """The research areas page and the API count, for each area, the people and the open
    positions its page and filters list (sub-areas included)."""
    viewer = _viewer(app, VIEWERS[who])
    login(client, VIEWERS[who])
    api = {a["slug"]: a["people"] for a in client.get(f"{PREFIX}/api/v1/areas").get_json()["items"]}
    page = client.get(f"{PREFIX}/areas/").get_data(as_text=True)
    for slug in ("systems", "operating-systems", "theory"):
        people = db.scalars(select(m.Person.id).where(access.people_in_area(viewer, slug))).all()
        notices = db.scalars(
            select(m.RecruitingNotice.id).where(
                access.listed_notices(viewer, date.today()), access.notice_in_area(slug)
            )
        ).all()
        assert api.get(slug, 0) == len(people), slug
        link = rf'href="/directory/areas/{slug}">[^<]*</a>\s*'
        shown = re.search(link + r'<span class="area-list__counts">(.*?)</span>', page)
        if not (people or notices):  # an area with nothing to show is left out
            assert shown is None, slug
            continue
        counts = re.sub(r"<[^>]+>", "", shown.group(1))
        assert counts.startswith(f"{len(people)} pe"), (slug, counts)
        assert (f"{len(notices)} open position" in counts) == bool(notices), (slug, counts)
