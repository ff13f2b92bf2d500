"""The security suite: CSRF on every POST, a route × role matrix, XSS through every text field,
hostile search and filter input, uploads, imports, a forged REMOTE_USER header, and the
production cookie settings.

Routes are discovered from the app's URL map, so a new route must be added to ROUTE_MATRIX (and
gets its CSRF check) before the suite passes; sample values for URL arguments are in
URL_ARGUMENTS.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from flask import Flask
from PIL import Image
from sqlalchemy import func, inspect, select

from directory import models as m
from directory.models import Delegation
from directory.services import interchange
from directory.services.photos import PhotoRejected, photo_from_bytes
from tests.conftest import ADMINS, login, make_app
from tests.invariants.test_access_matrix import ROUTES as EDITING_ROUTES
from tests.invariants.test_access_matrix import _state as editing_state
from tests.invariants.test_access_matrix import world  # noqa: F401 - the editing matrix's fixture

# ----------------------------------------------------------------------------- the people

#: Each role's identity key. The subject of the matrix is a PhD student ("owner" signs in as
#: them); "another student" is a different student; "member" is any signed-in department member.
ROLES = ("anonymous", "member", "owner", "delegate", "another_student", "admin")
KEYS = {
    "anonymous": None,
    "member": "member",
    "owner": "owner",
    "delegate": "delegate",
    "another_student": "student2",
    "admin": ADMINS[0],
}


def grant_delegation(db, delegate: m.Person, subject: m.Person) -> None:
    """Make ``delegate`` a delegate of ``subject`` (may edit their profile)."""
    db.add(Delegation(person_id=subject.id, delegate_id=delegate.id))


@pytest.fixture
def cast(db, make_person) -> dict[str, m.Person]:
    people = {
        "subject_public": make_person("Sam Public", role="phd_student", user_key="owner"),
        "subject_members": make_person("Sam Members", role="phd_student", visibility="members"),
        "subject_private": make_person("Sam Private", role="phd_student", visibility="private"),
        "member": make_person("Mel Member", user_key="member"),
        "delegate": make_person("Dee Delegate", user_key="delegate"),
        "another_student": make_person("Ann Other", role="phd_student", user_key="student2"),
    }
    db.add(m.ResearchArea(slug="systems", name="Systems"))
    db.commit()
    for subject in ("subject_public", "subject_members", "subject_private"):
        grant_delegation(db, people["delegate"], people[subject])
    pub = m.Publication(title="A Paper", year=2024, created_by_id=people["subject_public"].id)
    pub.authorships.append(m.Authorship(position=0, name="Sam", person=people["subject_public"]))
    db.add(pub)
    db.flush()
    db.add(m.ProfilePublication(person_id=people["subject_public"].id, publication_id=pub.id))
    db.commit()
    URL_ARGUMENTS["uid"] = pub.uid
    return people


# ----------------------------------------------------------------------------- routes

#: Sample values for URL arguments, by argument name (``slug`` follows the case of the matrix).
URL_ARGUMENTS: dict[str, Any] = {"filename": "directory.css", "token": "no-such-token", "rest": "x"}


def _statuses(**by_role: int) -> dict[str, int]:
    return {role: by_role.get(role, by_role.get("others", 0)) for role in ROLES}


ALL = _statuses(others=200)
SIGNED_IN = _statuses(anonymous=404, others=200)
ADMIN_ONLY = _statuses(admin=200, others=404)
#: A person's profile and everything derived from it (API record, exports).
PROFILE_READ = {"public": ALL, "members": SIGNED_IN, "private": ADMIN_ONLY}
#: A page of the profile's editors: the owner, their delegate, an admin. As on the editing
#: pages, a private profile is a 404 even to its delegate, who cannot see it.
PROFILE_EDIT = {
    "public": _statuses(owner=200, delegate=200, admin=200, others=403),
    "members": _statuses(anonymous=404, delegate=200, admin=200, others=403),
    "private": ADMIN_ONLY,
}

#: endpoint → {case: {role: status}} for every GET route that
#: tests/invariants/test_access_matrix.py does
#: not walk. A case names the profile the URL points at (``public``, ``members``, ``private``);
#: hidden profiles answer 404, indistinguishable from missing ones.
ROUTE_MATRIX: dict[str, dict[str, dict[str, int]]] = {
    "directory.index": {"": ALL},
    "directory.areas": {"": ALL},
    "directory.area": {"area": ALL},
    "directory.recruiting": {"": ALL},
    "directory.recruiting_feed": {"": ALL},
    "directory.alumni": {"": ALL},
    "directory.alumni_summary": {"": ALL},
    "directory.alumni_csv": {"": ALL},
    "directory.news": {"": ALL},
    "directory.news_feed": {"": ALL},
    "directory.publications": {"": ALL},
    "directory.sitemap_xml": {"": ALL},
    "directory.static": {"": ALL},
    "directory.search": {"": ALL},
    "directory.profile": PROFILE_READ,
    "directory.photo": {"public": _statuses(others=404)},  # nobody has uploaded one
    "directory.person_publications_bibtex": PROFILE_READ,
    "directory.person_publications": PROFILE_READ,
    "directory.person_publications_csl": PROFILE_READ,
    "directory.department_publications_bibtex": {"": ALL},
    "directory.department_publications_csl": {"": ALL},
    "directory.publication_record": {"": _statuses(admin=200, others=403)},
    "directory.paper": {"": ALL},  # a public paper on a public profile
    "directory.cv": PROFILE_READ,
    "directory.cv_pdf": PROFILE_READ,
    "directory.publications_import": PROFILE_EDIT,
    "directory.publications_manage": PROFILE_EDIT,
    "directory.publications_preview": {  # an unknown preview token, once access is granted
        "public": _statuses(owner=404, delegate=404, admin=404, others=403),
        "members": _statuses(anonymous=404, delegate=404, admin=404, others=403),
        "private": _statuses(others=404),
    },
    "directory.my_publications_import": {"": _statuses(anonymous=403, admin=404, others=200)},
    "directory.claim_profile": {"": _statuses(others=410)},  # an unknown invitation
    "directory.still_current": {"": _statuses(others=410)},  # a link no reminder signed
    "directory.found_link": {"": _statuses(others=410)},  # a link no digest signed
    "directory.login": {"": _statuses(others=404)},  # the built-in login is off in this host
    "directory.logout": {"": _statuses(others=404)},
    "directory.api_index": {"": ALL},
    "directory.api_openapi": {"": ALL},
    "directory.api_areas": {"": ALL},
    "directory.api_alumni": {"": ALL},
    "directory.api_alumni_summary": {"": ALL},
    "directory.api_positions": {"": ALL},
    "directory.api_people": {"": ALL},
    "directory.api_publications": {"": ALL},
    "directory.api_person": PROFILE_READ,
    "directory.api_not_found": {"": _statuses(others=404)},
    # The activity reports: a person's for those who keep the profile, the department's for
    # admins (and the chair: tests/web/test_reports.py).
    "directory.person_report_page": PROFILE_EDIT,
    "directory.person_report_csv": PROFILE_EDIT,
    "directory.person_report_json": PROFILE_EDIT,
    "directory.person_report_pdf": PROFILE_EDIT,
    "directory.department_report_page": {"": _statuses(admin=200, others=403)},
    "directory.department_report_csv": {"": _statuses(admin=200, others=403)},
    "directory.department_report_pdf": {"": _statuses(admin=200, others=403)},
    "directory.department_network": {"": _statuses(admin=200, others=403)},
}


def _blueprint_rules(app: Flask, method: str) -> list:
    return sorted(
        (
            rule
            for rule in app.url_map.iter_rules()
            if rule.endpoint.startswith("directory.") and method in (rule.methods or ())
        ),
        key=lambda rule: rule.rule,
    )


_COLLECTION_APP = make_app()
GET_ENDPOINTS = sorted({rule.endpoint for rule in _blueprint_rules(_COLLECTION_APP, "GET")})
_EDITING_POST_ENDPOINTS = {
    _COLLECTION_APP.url_map.bind("directory.test").match(
        re.sub(r"\{\w+\}", "1", url), method="POST"
    )[0]
    for _, method, url, _, _ in EDITING_ROUTES
    if method == "POST"
}
POST_RULES = [
    rule.rule
    for rule in _blueprint_rules(_COLLECTION_APP, "POST")
    if rule.endpoint not in _EDITING_POST_ENDPOINTS
]


def _url(app: Flask, endpoint: str, case: str) -> str:
    rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
    values = {}
    for argument in rule.arguments:
        if argument == "slug" and case:
            values["slug"] = {
                "public": "sam-public",
                "members": "sam-members",
                "private": "sam-private",
                "area": "systems",
            }[case]
        else:
            assert argument in URL_ARGUMENTS, f"add a sample <{argument}> to URL_ARGUMENTS"
            values[argument] = URL_ARGUMENTS[argument]
    with app.test_request_context():
        from flask import url_for

        return url_for(endpoint, **values)


def _walked_by_the_editing_matrix() -> set[str]:
    """Endpoints that tests/invariants/test_access_matrix.py walks as every role."""
    adapter = _COLLECTION_APP.url_map.bind("directory.test")
    return {
        adapter.match(re.sub(r"\{\w+\}", "1", url), method=method)[0]
        for _, method, url, _, _ in EDITING_ROUTES
    }


def test_every_route_is_in_a_matrix() -> None:
    missing = set(GET_ENDPOINTS) - set(ROUTE_MATRIX) - _walked_by_the_editing_matrix()
    assert not missing, f"add these endpoints to ROUTE_MATRIX in {__file__}: {sorted(missing)}"


@pytest.mark.parametrize("endpoint", sorted(ROUTE_MATRIX))
def test_route_by_role_matrix(app, client, cast, endpoint: str) -> None:
    if endpoint not in GET_ENDPOINTS:
        pytest.fail(f"{endpoint} is in ROUTE_MATRIX but the app has no such route")
    for case, expected in ROUTE_MATRIX[endpoint].items():
        url = _url(app, endpoint, case)
        for role in ROLES:
            login(client, KEYS[role])
            with client.get(url) as response:
                status = response.status_code
            assert status == expected[role], f"{role} GET {url}: {status}, not {expected[role]}"


EDITING_POSTS = [route for route in EDITING_ROUTES if route[1] == "POST"]


@pytest.mark.parametrize("route", EDITING_POSTS, ids=[route[0] for route in EDITING_POSTS])
def test_every_editing_post_needs_a_csrf_token(client, db, world, route) -> None:  # noqa: F811
    """Even an admin's POST without the form's token is refused, and changes nothing."""
    name, _, url, data, _ = route
    login(client, ADMINS[0])
    before = editing_state(db)
    response = client.post(url.format(**world), data=data(world))
    assert response.status_code == 400, f"{name}: {response.status_code}"
    assert editing_state(db) == before, name


@pytest.mark.parametrize("rule", POST_RULES)
def test_every_other_post_is_refused_without_a_csrf_token(client, db, cast, rule) -> None:
    """The POST routes the editing matrix does not walk (sign-in, imports, publication
    records...): without a token, as an admin, never a success and nothing written."""
    url = rule
    arguments = {**URL_ARGUMENTS, "slug": "sam-public", "uid": URL_ARGUMENTS.get("uid", "x")}
    for argument, value in arguments.items():
        url = re.sub(rf"<(?:\w+:)?{argument}>", str(value), url)
    url = re.sub(r"<int:\w+>", "1", url)
    login(client, ADMINS[0])
    before = editing_state(db)
    response = client.post(url, data={"anything": "x"})
    assert response.status_code in (400, 403, 404, 410), f"POST {url}: {response.status_code}"
    assert editing_state(db) == before, url


# ----------------------------------------------------------------------------- XSS

PAYLOAD = '<script>alert("x{n}")</script><img src=x onerror=alert({n})>"\'&'
_SKIP_STRING_FIELDS = {"ref", "uid", "doi", "arxiv_id", "publication", "user_key", "email"}


def _hostile_entry(definition: dict, counter: list[int]) -> dict:
    """Every free-text property of a schema definition filled with a numbered payload; required
    non-text properties get a plain valid value."""
    entry: dict[str, Any] = {}
    for name, prop in definition.get("properties", {}).items():
        types = prop.get("type")
        types = types if isinstance(types, list) else [types]
        constrained = "pattern" in prop or "format" in prop or "enum" in prop
        if "string" in types and not constrained and name not in _SKIP_STRING_FIELDS:
            counter[0] += 1
            entry[name] = PAYLOAD.format(n=counter[0])[: prop.get("maxLength", 10_000)]
    return entry


def _hostile_document() -> dict:
    defs = interchange.schema()["$defs"]
    counter = [0]
    person = _hostile_entry(defs["person"], counter)
    person.update(slug="mallory", role="faculty", areas=[PAYLOAD.format(n=0)[:100]])
    doc: dict[str, Any] = {"format": interchange.FORMAT, "format_version": 1, "person": person}
    required = {
        "news": {"year": 2026},
        "service": {"kind": "program_committee"},
        "recruiting": {"level": "phd"},
        "teaching": {},
        "education": {},
        "experience": {},
        "awards": {},
        "funding": {},
        "custom_sections": {},
    }
    for key, extra in required.items():
        definition = defs[{"custom_sections": "custom_section", "awards": "award"}.get(key, key)]
        doc[key] = [{**_hostile_entry(definition, counter), **extra}]
    doc["projects"] = [_hostile_entry(defs["project"], counter)]
    publication = _hostile_entry(defs["publication"], counter)
    publication.update(
        ref="p1",
        year=2025,
        authors=[{"name": PAYLOAD.format(n=999), "person": "mallory"}],
        labels=[PAYLOAD.format(n=998)],
    )
    publication.pop("section", None)
    doc["publications"] = [publication]
    return doc


JSON_LD = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)


def _assert_inert(text: str, where: str) -> None:
    assert "<script>alert" not in text, f"script tag rendered raw in {where}"
    assert "<img src=x" not in text, f"img tag rendered raw in {where}"


def test_text_fields_are_inert_in_html_json_ld_and_exports(client, db) -> None:
    document = _hostile_document()
    assert interchange.validate_document(document, "hostile") == []
    interchange.import_documents(db, [("hostile", document)])
    db.commit()

    profile = client.get("/directory/people/mallory")
    listing = client.get("/directory/")
    assert profile.status_code == listing.status_code == 200
    for name, response in (("profile", profile), ("listing", listing)):
        _assert_inert(response.text, name)
        for block in JSON_LD.findall(response.text):
            assert "<" not in block, f"raw < inside JSON-LD on the {name}"
            json.loads(block)
    # The payloads are shown, as text: the name, a bio paragraph and an entry.
    assert "&lt;script&gt;alert(&#34;x1&#34;)" in profile.text  # full_name, escaped
    assert profile.text.count("&lt;img src=x onerror=alert(") >= 10

    person = db.scalar(select(m.Person).where(m.Person.slug == "mallory"))
    exported = json.dumps(interchange.export_person(db, person))
    assert json.loads(exported)["person"]["full_name"] == document["person"]["full_name"]


def test_script_urls_are_refused_on_import() -> None:
    document = {
        "format": interchange.FORMAT,
        "format_version": 1,
        "person": {
            "full_name": "Mallory",
            "role": "faculty",
            "links": [{"kind": "homepage", "url": "javascript:alert(1)"}],
        },
        "news": [{"year": 2026, "body": "x", "url": "data:text/html,<script>alert(1)</script>"}],
    }
    paths = {problem.path for problem in interchange.validate_document(document, "doc")}
    assert "$.person.links[0].url" in paths
    assert "$.news[0].url" in paths


# ----------------------------------------------------------------------------- search and filters

#: Query strings of pages with search or filter inputs; ``{}`` is replaced by each payload.
#: A page that answers 404 for every payload is not built yet and is skipped, named.
FILTER_URLS = [
    "/?q={}&role={}&area={}&letter={}",
    "/recruiting?level={}&area={}&term={}&person={}",
    "/publications?year={}&area={}&person={}&venue={}&type={}&page={}",
    "/alumni?year={}&advisor={}&degree={}",
    "/search?q={}",
    "/api/v1/people?q={}&area={}",
    "/api/v1/publications?q={}&year={}",
]
HOSTILE_INPUTS = [
    "' OR '1'='1",
    '"; DROP TABLE directory_people; --',
    "%' OR 1=1 --",
    "%_%",
    "\\",
    "a & b | !c <-> d:*",  # PostgreSQL tsquery syntax
    '"unterminated',
    "title:(foo OR bar) AND NOT baz*",
    "<script>alert(1)</script>",
    "%00",  # sent as is: a NUL byte
    "%ff%fe",  # sent as is: not UTF-8
    "\U0001f600" * 100,
    "9" * 40,
    "-1",
]


@pytest.mark.parametrize("template", FILTER_URLS)
def test_hostile_search_and_filter_input_never_breaks_a_page(client, db, cast, template) -> None:
    from urllib.parse import quote

    statuses = set()
    for value in HOSTILE_INPUTS:
        encoded = value if value in ("%00", "%ff%fe") else quote(value, safe="")
        response = client.get("/directory" + template.replace("{}", encoded))
        statuses.add(response.status_code)
        assert response.status_code < 500, f"{template} with {value!r}: {response.status_code}"
        if response.mimetype == "text/html":  # JSON answers may quote the input, as data
            assert "<script>alert(1)</script>" not in response.text
    if statuses == {404}:
        pytest.skip(f"{template} answers 404 (page not built yet)")
    assert "directory_people" in inspect(db.get_bind()).get_table_names()
    assert db.scalar(select(func.count(m.Person.id))) == len(cast)


# ----------------------------------------------------------------------------- uploads


def _image(kind: str, size: tuple[int, int] = (64, 64)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, "white").save(out, format=kind)
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty", b"", "empty"),
        ("oversized", b"\xff\xd8" + b"0" * (6 * 1024 * 1024), "larger than"),
        ("svg", b'<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script></svg>', "image"),
        ("html", b"<!doctype html><script>alert(1)</script>", "image"),
        ("pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "image"),
        ("truncated png", _image("PNG")[:60], "damaged"),
    ],
)
def test_unacceptable_uploads_are_refused_with_a_reason(name, data, reason) -> None:
    with pytest.raises(PhotoRejected, match=reason):
        photo_from_bytes(data)


def test_a_decompression_bomb_is_refused_before_decoding() -> None:
    # A small PNG file that declares 10,000 × 10,000 pixels.
    bomb = _image("PNG", (10_000, 10_000))
    assert len(bomb) < 1024 * 1024
    with pytest.raises(PhotoRejected, match="too many pixels|too large"):
        photo_from_bytes(bomb)


def test_a_polyglot_gif_with_html_is_re_encoded_as_a_plain_jpeg() -> None:
    """A file that is both a valid image and HTML is accepted as the image only: the stored
    bytes are a fresh JPEG, so the HTML never reaches a browser."""
    polyglot = _image("GIF") + b"<html><script>alert(1)</script></html>"
    photo = photo_from_bytes(polyglot)
    assert photo.mime_type == "image/jpeg"
    assert photo.data.startswith(b"\xff\xd8")
    assert b"<script" not in photo.data


# ----------------------------------------------------------------------------- imports


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("huge", b"{" + b" " * (6 * 1024 * 1024) + b"}", "larger than the limit"),
        ("nested", b"[" * 100_000 + b"]" * 100_000, "nested too deeply|not JSON"),
        ("latin-1", '{"person": {"full_name": "Jos\xe9"}}'.encode("latin-1"), "not UTF-8"),
        ("not json", b"@article{x, title={y}}", "not JSON"),
    ],
)
def test_hostile_import_files_are_refused_and_nothing_is_written(
    runner, db, tmp_path, name, data, message
) -> None:
    path = tmp_path / "profile.json"
    path.write_bytes(data)
    result = runner.invoke(args=["directory", "import-profile", str(path)])
    assert result.exit_code == 1
    assert re.search(message, result.output), result.output
    assert db.scalar(select(func.count(m.Person.id))) == 0


# ----------------------------------------------------------------------------- identity


def test_a_forged_remote_user_header_signs_nobody_in(app, client, make_person, monkeypatch) -> None:
    """With REMOTE_USER identity, only the web server's environ counts, never a header a client
    sends ("Remote-User", "X-Remote-User" reach the app as HTTP_* environ keys)."""
    monkeypatch.setitem(app.config, "DIRECTORY_IDENTITY_SOURCE", "remote_user")
    make_person("Pat Private", visibility="private", user_key="pat")
    url = "/directory/people/pat-private"
    for header in ("Remote-User", "X-Remote-User", "X-Forwarded-User", "REMOTE_USER"):
        assert client.get(url, headers={header: "pat"}).status_code == 404, header
        assert client.get(url, headers={header: ADMINS[0]}).status_code == 404, header
    assert client.get(url, environ_base={"REMOTE_USER": "pat"}).status_code == 200


def test_production_settings_use_secure_session_cookies(monkeypatch) -> None:
    import wsgi

    monkeypatch.setenv("SECRET_KEY", "a-real-secret-from-the-environment")
    monkeypatch.delenv("FLASK_DEBUG", raising=False)
    app = wsgi.create_app({"DIRECTORY_DATABASE_URL": "sqlite://"})
    assert app.config["SESSION_COOKIE_SECURE"] is True
    assert app.config["SESSION_COOKIE_HTTPONLY"] is True
    assert app.config["SESSION_COOKIE_SAMESITE"] == "Lax"

    @app.route("/remember")
    def remember() -> str:
        from flask import session

        session["seen"] = True
        return "ok"

    cookie = app.test_client().get("/remember", base_url="https://site.test").headers["Set-Cookie"]
    assert "Secure" in cookie
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie


def test_the_development_site_still_works_over_plain_http(monkeypatch) -> None:
    import wsgi

    monkeypatch.delenv("SECRET_KEY", raising=False)
    app = wsgi.create_app({"DIRECTORY_DATABASE_URL": "sqlite://"})
    assert app.config["SESSION_COOKIE_SECURE"] is False
    assert app.config["SESSION_COOKIE_HTTPONLY"] is True
