"""The read-only API answers every other method with a 405 problem document naming what it
allows, on every route of its URL map (and on a path it does not know), never the host's HTML."""

from __future__ import annotations

import pytest

from tests.web.test_api import API

WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")


def _api_urls(app) -> list[str]:
    urls = []
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith(API):
            urls.append(rule.rule.replace("<slug>", "someone").replace("<path:rest>", "no/such"))
    return sorted(urls)


def test_every_api_route_refuses_writes_with_a_problem_document(app, client) -> None:
    urls = _api_urls(app)
    assert len(urls) >= 8 and f"{API}/no/such" in urls
    for url in urls:
        for method in WRITE_METHODS:
            response = client.open(url, method=method)
            assert response.status_code == 405, (method, url)
            assert response.mimetype == "application/problem+json", (method, url)
            body = response.get_json()
            assert body["status"] == 405 and method in body["detail"]
            assert "GET" in response.allow and method not in response.allow
            assert "no-store" in response.headers["Cache-Control"]


@pytest.mark.parametrize("method", WRITE_METHODS)
def test_the_pages_keep_their_own_405(client, method) -> None:
    """Outside the API a 405 is still the host's (an HTML page, here Flask's default)."""
    response = client.open("/directory/", method=method)
    assert response.status_code == 405
    assert response.mimetype == "text/html"
