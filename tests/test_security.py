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

from directory import interchange
from directory import models as m
from directory.photos import PhotoRejected, photo_from_bytes

from .conftest import ADMINS, login, make_app

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
    """Make ``delegate`` a delegate of ``subject``. Delegation arrives with the editing module;
    until then a delegate is an ordinary member, which is what ROUTE_MATRIX expects."""


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
    # The owner of the hidden profiles is the same person signing in as "owner".
    people["subject_members"].user_key = None
    db.commit()
    for subject in ("subject_public", "subject_members", "subject_private"):
        grant_delegation(db, people["delegate"], people[subject])
    return people


# ----------------------------------------------------------------------------- routes

#: Sample values for URL arguments, by argument name (slug → the subject of the matrix).
URL_ARGUMENTS: dict[str, Any] = {"slug": "sam-public", "filename": "directory.css"}

OK_FOR_ALL = dict.fromkeys(ROLES, 200)

#: endpoint → {case: {role: status}}. A case names the profile the URL points at, when that
#: matters (see ``_url``). Hidden profiles answer 404, indistinguishable from missing ones.
ROUTE_MATRIX: dict[str, dict[str, dict[str, int]]] = {
    "directory.index": {"": OK_FOR_ALL},
    "directory.static": {"": OK_FOR_ALL},
    "directory.profile": {
        "public": OK_FOR_ALL,
        "members": {**OK_FOR_ALL, "anonymous": 404},
        "private": {
            "anonymous": 404,
            "member": 404,
            "owner": 404,  # "owner" signs in as Sam Public, not as Sam Private
            "delegate": 404,
            "another_student": 404,
            "admin": 200,
        },
    },
    # No photo uploaded: 404 for everyone who may see the profile, and for everyone else.
    "directory.photo": {"public": dict.fromkeys(ROLES, 404)},
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
POST_RULES = [rule.rule for rule in _blueprint_rules(_COLLECTION_APP, "POST")]


def _url(app: Flask, endpoint: str, case: str) -> str:
    rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
    values = {}
    for argument in rule.arguments:
        if argument == "slug" and case:
            values["slug"] = {"public": "sam-public", "members": "sam-members"}.get(
                case, "sam-private"
            )
        else:
            assert argument in URL_ARGUMENTS, f"add a sample <{argument}> to URL_ARGUMENTS"
            values[argument] = URL_ARGUMENTS[argument]
    with app.test_request_context():
        from flask import url_for

        return url_for(endpoint, **values)


def test_every_route_is_in_the_matrix() -> None:
    missing = set(GET_ENDPOINTS) - set(ROUTE_MATRIX)
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


@pytest.mark.parametrize("rule", POST_RULES)
def test_every_post_needs_a_csrf_token(app, client, cast, rule: str) -> None:
    """Even an admin's POST without the form's token is refused."""
    app.config["WTF_CSRF_ENABLED"] = True
    url = rule
    for argument, value in URL_ARGUMENTS.items():
        url = url.replace(f"<{argument}>", str(value))
    assert "<" not in url, f"add a sample value for {url} to URL_ARGUMENTS"
    login(client, ADMINS[0])
    response = client.post(url, data={"anything": "x"})
    assert response.status_code == 400, f"POST {url} without a CSRF token: {response.status_code}"


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
