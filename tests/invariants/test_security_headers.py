"""Every kind of directory response carries the security headers: pages, error pages (including
a 404 for an unknown directory URL), static files, photos and JSON."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from directory.services.photos import photo_from_bytes
from tests.conftest import make_app


def _assert_security_headers(response, what: str) -> None:
    csp = response.headers.get("Content-Security-Policy", "")
    directives = dict(
        (part.strip().split(" ", 1) + [""])[:2] for part in csp.split(";") if part.strip()
    )
    assert "default-src" in directives, f"{what}: no CSP default-src ({csp!r})"
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp, f"{what}: {csp}"
    assert directives.get("frame-ancestors"), f"{what}: no frame-ancestors"
    assert directives.get("object-src") == "'none'", what
    assert response.headers.get("X-Content-Type-Options") == "nosniff", what
    assert response.headers.get("Referrer-Policy") == "strict-origin-when-cross-origin", what


@pytest.fixture
def person_with_photo(db, make_person):
    out = io.BytesIO()
    Image.new("RGB", (80, 80), "teal").save(out, format="PNG")
    person = make_person("Ada Lovelace")
    person.photo = photo_from_bytes(out.getvalue(), alt_text="Ada at her desk")
    db.commit()
    return person


@pytest.mark.parametrize(
    ("what", "url", "status", "headers"),
    [
        ("listing page", "/directory/", 200, {}),
        ("profile page", "/directory/people/ada-lovelace", 200, {}),
        ("photo", "/directory/people/ada-lovelace/photo", 200, {}),
        ("static file", "/directory/assets/directory.css", 200, {}),
        ("404 for a missing profile", "/directory/people/nobody", 404, {}),
        ("404 for an unknown directory URL", "/directory/no/such/page", 404, {}),
        ("JSON-preferring client", "/directory/", 200, {"Accept": "application/json"}),
        ("JSON API", "/directory/api/v1/people", 200, {}),
        ("JSON API 404", "/directory/api/v1/people/nobody", 404, {}),
        ("search page", "/directory/search?q=ada", 200, {}),
        ("Atom feed", "/directory/recruiting.atom", 200, {}),
        ("sitemap", "/directory/sitemap.xml", 200, {}),
        ("BibTeX export", "/directory/people/ada-lovelace/publications.bib", 200, {}),
    ],
)
def test_every_response_type_has_the_security_headers(
    client, person_with_photo, what, url, status, headers
) -> None:
    with client.get(url, headers=headers) as response:
        assert response.status_code == status, what
        _assert_security_headers(response, what)


def test_host_pages_outside_the_prefix_are_left_alone() -> None:
    app = make_app()

    @app.route("/host-page")
    def host_page() -> str:
        return "<p>host</p>"

    response = app.test_client().get("/host-page")
    assert "Content-Security-Policy" not in response.headers


def test_a_host_that_sets_its_own_headers_can_turn_ours_off() -> None:
    app = make_app(DIRECTORY_SECURITY_HEADERS=False)
    with app.test_client().get("/directory/assets/directory.css") as response:
        assert "Content-Security-Policy" not in response.headers
