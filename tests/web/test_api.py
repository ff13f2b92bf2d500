"""The JSON API v1: its OpenAPI document is valid and describes the real responses; filters,
paging, errors, email policy and caching."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from sqlalchemy import select

from directory import models as m
from tests.conftest import login

# Every test of this module sees the demo department, loaded once (see shared_demo.py).
from tests.support.shared_demo import connection, demo_connection  # noqa: F401

API = "/directory/api/v1"
DOC_URI = "urn:directory-api"


def get(client, path: str, status: int = 200, **params):
    response = client.get(f"{API}{path}", query_string=params)
    assert response.status_code == status, response.get_data(as_text=True)
    return response.get_json()


@pytest.fixture
def openapi(client) -> dict:
    return get(client, "/openapi.json")


def schema_validator(document: dict, pointer: str) -> Draft202012Validator:
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    registry = Registry().with_resource(DOC_URI, resource)
    return Draft202012Validator(
        {"$ref": f"{DOC_URI}#{pointer}"}, registry=registry, format_checker=FormatChecker()
    )


def escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def check(document: dict, path: str, status: int, body: object, media="application/json"):
    """Validate ``body`` against the document's schema for ``path`` answering ``status``."""
    response = document["paths"][path]["get"]["responses"][str(status)]
    pointer = f"/paths/{escape(path)}/get/responses/{status}"
    if "$ref" in response:
        pointer = response["$ref"][1:]
        response = document["components"]["responses"][str(status)]
    schema_pointer = f"{pointer}/content/{escape(media)}/schema"
    errors = sorted(schema_validator(document, schema_pointer).iter_errors(body), key=str)
    assert not errors, f"{path} {status}: " + "; ".join(
        f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]
    )


def test_the_document_is_valid_openapi_3_1(openapi) -> None:
    validate(openapi)
    assert openapi["openapi"] == "3.1.0"
    assert openapi["servers"] == [{"url": "http://directory.test/directory/api/v1"}]


def test_every_api_route_is_documented(app, openapi) -> None:
    routes = {
        rule.rule.removeprefix(API).replace("<slug>", "{slug}") or "/"
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith(API) and "<path:" not in rule.rule
    }
    assert routes == set(openapi["paths"])


def _path_urls(client, path: str) -> list[str]:
    if path == "/people/{slug}":
        slugs = [p["slug"] for p in get(client, "/people", per_page=100)["items"]]
        return [f"/people/{slug}" for slug in slugs]
    return [path]


@pytest.mark.parametrize("who", [None, "member"])
def test_every_endpoint_answers_as_documented(client, openapi, who) -> None:
    login(client, who)
    checked = 0
    for path in openapi["paths"]:
        for url in _path_urls(client, path):
            body = get(client, url)
            check(openapi, path, 200, body)
            checked += 1
    assert checked >= 6 + 19  # the endpoints, and every listed person (the alumni are not)


def _sample(parameter: dict, document: dict) -> tuple[str, str]:
    if "$ref" in parameter:
        parameter = document["components"]["parameters"][parameter["$ref"].rsplit("/", 1)[1]]
    schema = parameter["schema"]["anyOf"][0]  # the other choice: empty, as if not given
    if "enum" in schema:
        return parameter["name"], str(schema["enum"][0])
    if parameter["name"] in ("year", "year_from", "year_to", "page", "per_page", "advisors"):
        return parameter["name"], "2024" if parameter["name"].startswith("year") else "1"
    samples = {"area": "storage-systems", "person": "xingda-wei", "q": "rdma", "unit": "x",
               "advisor": "danyang-zhuo"}  # fmt: skip
    return parameter["name"], samples.get(parameter["name"], "Fall 2026")


def test_every_documented_parameter_is_accepted(client, openapi) -> None:
    for path, item in openapi["paths"].items():
        for parameter in item["get"]["parameters"]:
            if parameter.get("in") == "path":
                continue
            name, value = _sample(parameter, openapi)
            body = get(client, path, **{name: value})
            check(openapi, path, 200, body)


@pytest.mark.parametrize(
    ("path", "params", "parameter"),
    [
        ("/people", {"role": "wizard"}, "role"),
        ("/people", {"area": "no-such-area"}, "area"),
        ("/people", {"recruiting": "maybe"}, "recruiting"),
        ("/people", {"page": "0"}, "page"),
        ("/people", {"per_page": "101"}, "per_page"),
        ("/people", {"per_page": "ten"}, "per_page"),
        ("/people", {"q": "x" * 201}, "q"),
        ("/people", {"unit": "a\x00b"}, "unit"),
        ("/positions", {"level": "emperor"}, "level"),
        ("/positions", {"person": "nobody"}, "person"),
        ("/positions", {"funded": "2"}, "funded"),
        ("/publications", {"year": "20x4"}, "year"),
        ("/publications", {"year": "-5"}, "year"),
        ("/publications", {"year": "２０２４"}, "year"),
        ("/publications", {"type": "novel"}, "type"),
        ("/areas", {"page": "-1"}, "page"),
        ("/alumni", {"kind": "astronaut"}, "kind"),
        ("/alumni", {"advisor": "nobody"}, "advisor"),
        ("/alumni", {"year_from": "2024", "year_to": "2023"}, "year_to"),
        ("/alumni/summary", {"degree": "knighthood"}, "degree"),
        ("/alumni/summary", {"year_to": "2201"}, "year_to"),
    ],
)
def test_bad_filter_values_are_a_400_problem(client, openapi, path, params, parameter) -> None:
    response = client.get(f"{API}{path}", query_string=params)
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    check(openapi, path, 400, body, "application/problem+json")
    assert body["parameter"] == parameter and parameter in body["detail"]


def test_unknown_things_are_a_404_problem(client, openapi, make_person) -> None:
    make_person("Hidden Person", visibility="private")
    for url in ("/people/nobody", "/people/hidden-person"):
        response = client.get(f"{API}{url}")
        assert response.status_code == 404
        assert response.mimetype == "application/problem+json"
        check(openapi, "/people/{slug}", 404, response.get_json(), "application/problem+json")
    # Hidden and missing profiles are indistinguishable.
    assert client.get(f"{API}/people/hidden-person").get_json()["detail"].replace(
        "hidden-person", ""
    ) == client.get(f"{API}/people/nobody").get_json()["detail"].replace("nobody", "")
    response = client.get(f"{API}/no/such/endpoint")
    assert response.status_code == 404 and response.get_json()["status"] == 404
    login(client, "admin")
    assert get(client, "/people/hidden-person")["name"] == "Hidden Person"


# ----------------------------------------------------------------------------- filters


def slugs(body: dict) -> list[str]:
    return [item["slug"] for item in body["items"]]


def test_people_filters(client) -> None:
    everyone = get(client, "/people", per_page=100)
    # The demo's 23 people but its 4 alumni: the API lists whom the listing lists.
    assert everyone["total"] == 19 and len(everyone["items"]) == 19
    assert "samantha-miller" not in slugs(everyone)
    assert slugs(get(client, "/people", role="faculty")) == ["xingda-wei", "danyang-zhuo"]
    assert set(slugs(get(client, "/people", recruiting="true"))) == {"danyang-zhuo", "xingda-wei"}
    assert get(client, "/people", recruiting="no")["total"] == 17
    storage = get(client, "/people", area="storage-systems", per_page=100)
    assert "xingda-wei" in slugs(storage) and "danyang-zhuo" not in slugs(storage)
    assert all(
        any(a["slug"] == "storage-systems" for a in item["areas"]) for item in storage["items"]
    )
    unit = "Institute of Parallel and Distributed Systems (IPADS), School of Computer Science"
    assert get(client, "/people", unit=unit)["total"] == storage["total"]
    assert slugs(get(client, "/people", q="xing")) == ["xingda-wei"]
    assert slugs(get(client, "/people", q="!!!")) == []
    assert slugs(get(client, "/people", role="faculty", area="storage-systems")) == ["xingda-wei"]


def test_person_detail_holds_the_whole_profile(client) -> None:
    xingda = get(client, "/people/xingda-wei")
    assert xingda["name"] == "Xingda Wei" and xingda["recruiting"] is True
    assert {p["level"] for p in xingda["positions"]} == {"phd", "intern"}
    assert len(xingda["publications"]) == 25
    assert all(p["url"].endswith(f"#pub-{p['uid']}") for p in xingda["publications"])
    assert xingda["students"] and xingda["education"] and xingda["service"]
    assert "<p>" in xingda["bio_html"]
    danyang = get(client, "/people/danyang-zhuo")
    assert [a["name"] for a in danyang["advisors"]] == [
        "Tom Anderson",
        "Arvind Krishnamurthy",
        "Ion Stoica",
    ]


def test_positions_filters(client, db) -> None:
    everything = get(client, "/positions")
    assert everything["total"] == 3
    assert [p["person"]["slug"] for p in get(client, "/positions", level="intern")["items"]] == [
        "xingda-wei"
    ]
    # Fall 2026: Danyang Zhuo's notice for it, and Xingda Wei's rolling ones (any time).
    fall = get(client, "/positions", term="Fall 2026")["items"]
    assert sorted((p["person"]["slug"], p["term"], p["rolling"]) for p in fall) == [
        ("danyang-zhuo", "Fall 2026", False),
        ("xingda-wei", None, True),
        ("xingda-wei", None, True),
    ]
    # The API reads a term as written, in its one spelling; the pages read "2026 fall" too.
    for loose in ("FALL 2026", "2026 fall"):
        response = client.get("/directory/api/v1/positions", query_string={"term": loose})
        assert response.status_code == 400 and response.get_json()["parameter"] == "term"
    assert get(client, "/positions", term="rolling")["total"] == 2
    assert get(client, "/positions", person="xingda-wei")["total"] == 2
    assert get(client, "/positions", funded="true")["total"] == 0

    notice = db.scalars(
        select(m.RecruitingNotice).where(m.RecruitingNotice.term_year == 2026)
    ).one()
    notice.funded = True
    notice.deadline = date.today() + timedelta(days=30)
    notice.areas = [db.scalars(select(m.ResearchArea).filter_by(slug="networking")).one()]
    db.commit()
    assert [p["id"] for p in get(client, "/positions", funded="yes")["items"]] == [notice.id]
    assert [p["id"] for p in get(client, "/positions", area="networking")["items"]] == [notice.id]
    # Soonest deadline first, notices without one after.
    assert get(client, "/positions")["items"][0]["id"] == notice.id

    notice.expires_on = date.today()
    db.commit()
    assert get(client, "/positions")["total"] == 2
    assert get(client, "/people/danyang-zhuo")["positions"] == []


def test_publications_filters(client) -> None:
    everything = get(client, "/publications", per_page=100)
    assert everything["total"] == 55
    years = [p["year"] or 0 for p in everything["items"]]
    assert years == sorted(years, reverse=True)
    assert get(client, "/publications", person="danyang-zhuo")["total"] == 16
    for item in get(client, "/publications", year=2026)["items"]:
        assert item["year"] == 2026
    osdi = get(client, "/publications", venue="osdi", per_page=100)["items"]
    assert osdi and all(
        "osdi" in (p["venue"] or "").lower() + (p["venue_short"] or "").lower() for p in osdi
    )
    assert get(client, "/publications", q="rdma")["total"] == 10
    storage = get(client, "/publications", area="storage-systems")["total"]
    assert 0 < storage < 55
    for item in get(client, "/publications", type="journal", per_page=100)["items"]:
        assert item["type"] == "journal"


def test_areas_count_visible_people(client, db) -> None:
    areas = {a["slug"]: a for a in get(client, "/areas")["items"]}
    assert (
        areas["storage-systems"]["people"]
        == get(client, "/people", area="storage-systems")["total"]
    )
    person = db.scalars(select(m.Person).filter_by(slug="xingda-wei")).one()
    person.visibility = "members"
    db.commit()
    after = {a["slug"]: a for a in get(client, "/areas")["items"]}
    assert after["storage-systems"]["people"] == areas["storage-systems"]["people"] - 1


# ------------------------------------------------------------------- paging, email, caching


def test_pages_and_their_links(client) -> None:
    first = get(client, "/publications", per_page=20, year=2024)
    total = first["total"]
    assert first["pages"] == -(-total // 20) and first["links"]["prev"] is None
    seen = []
    body = get(client, "/publications", per_page=5)
    while True:
        seen.extend(p["uid"] for p in body["items"])
        if body["links"]["next"] is None:
            break
        body = client.get(body["links"]["next"]).get_json()
    assert len(seen) == len(set(seen)) == 55
    assert "per_page=5" in body["links"]["self"] and "page=11" in body["links"]["self"]
    beyond = get(client, "/publications", per_page=5, page=99)
    assert beyond["items"] == [] and beyond["links"]["prev"].endswith("page=11")
    filtered = get(client, "/people", role="phd_student", per_page=2)
    assert "role=phd_student" in filtered["links"]["next"]


def test_email_only_for_signed_in_members(client) -> None:
    def emails() -> set:
        listed = {p["email"] for p in get(client, "/people", per_page=100)["items"]}
        return listed | {get(client, "/people/xingda-wei")["email"]}

    assert emails() == {None}
    login(client, "someone")
    assert "wxdwfc@sjtu.edu.cn" in emails()


def test_etag_and_cache_headers(app, client, make_person) -> None:
    make_person()
    first = client.get(f"{API}/people")
    assert first.headers["ETag"]
    assert "public" in first.headers["Cache-Control"] and "Cookie" in first.headers["Vary"]
    again = client.get(f"{API}/people", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and not again.data
    app.config["DIRECTORY_CACHE_SECONDS"] = 60
    try:
        assert "max-age=60" in client.get(f"{API}/people").headers["Cache-Control"]
    finally:
        app.config["DIRECTORY_CACHE_SECONDS"] = 0
    login(client, "someone")
    private = client.get(f"{API}/people")
    assert "private" in private.headers["Cache-Control"]
    assert "public" not in private.headers["Cache-Control"]
