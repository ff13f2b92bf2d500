"""The directory under any prefix ("/directory", "/people", the site root), every link built
with url_for, its files served by the blueprint, and a stylesheet safe in a host's layout."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask

from directory import Directory

STATIC = Path(__file__).resolve().parents[2] / "static"


@pytest.fixture
def mounted(tmp_path, test_engine, join_test_transaction):
    """Factory: a host with its own static folder and the directory under ``prefix``."""

    def factory(prefix: str, **config) -> Flask:
        (tmp_path / "static").mkdir(exist_ok=True)
        (tmp_path / "static" / "host.css").write_text("body { color: black; }")
        app = Flask("prefix_host", root_path=str(tmp_path))
        app.config.update(
            SECRET_KEY="test",
            DIRECTORY_URL_PREFIX=prefix,
            DIRECTORY_ENGINE=test_engine,
            DIRECTORY_IDENTITY_SOURCE="remote_user",
            **config,
        )
        Directory(app)
        return join_test_transaction(app)

    return factory


def local_links(html: str) -> set[str]:
    links = set(re.findall(r'(?:href|src|action)="(/[^"#]*)', html))
    return {link.replace("&amp;", "&") for link in links}


@pytest.mark.parametrize(
    "prefix, index",
    [("/directory", "/directory/"), ("/people", "/people/"), ("people/", "/people/"), ("/", "/")],
)
def test_every_link_works_under_any_prefix(mounted, make_person, prefix, index) -> None:
    make_person(interests="Analytical engines")
    client = mounted(prefix).test_client()
    listing = client.get(index)
    assert listing.status_code == 200
    profile_url = next(u for u in local_links(listing.get_data(as_text=True)) if "ada" in u)
    assert profile_url == f"{index}people/ada-lovelace"

    seen = set()
    for page in (index, profile_url):
        html = client.get(page).get_data(as_text=True)
        for link in local_links(html) - seen:
            seen.add(link)
            with client.get(link) as response:
                assert response.status_code == 200, link
    assert f"{index}assets/directory.css" in seen


def test_at_the_site_root_the_hosts_own_static_files_still_work(mounted) -> None:
    client = mounted("/").test_client()
    with client.get("/static/host.css") as response:
        assert response.get_data(as_text=True) == "body { color: black; }"
    with client.get("/assets/directory.css") as response:
        assert response.status_code == 200
        assert response.mimetype == "text/css"


def test_nothing_comes_from_another_site(mounted, make_person) -> None:
    make_person()
    client = mounted("/directory").test_client()
    for page in ("/directory/", "/directory/people/ada-lovelace", "/directory/nowhere"):
        html = client.get(page).get_data(as_text=True)
        assert not re.search(r'(?:href|src)="(?:https?:)?//[^"]*\.(?:css|js)', html)
    for name in ("directory.css", "standalone.css"):
        assert "url(http" not in (STATIC / name).read_text()
        assert "@import" not in (STATIC / name).read_text()


def test_the_directory_stylesheet_only_styles_directory_content() -> None:
    """A host links directory.css in its layout: its rules must not reach the host's pages."""
    css = re.sub(r"/\*.*?\*/", "", (STATIC / "directory.css").read_text(), flags=re.S)
    selectors = []
    for block in re.findall(r"([^{}]+)\{", css):
        if block.strip().startswith("@"):
            continue
        # Commas at the top level only: `:where(form, nav)` is one selector.
        selectors.extend(s.strip() for s in re.split(r",(?![^()]*\))", block))
    assert selectors
    unscoped = [s for s in selectors if not re.match(r"\.directory(?![\w-])", s)]
    assert unscoped == []


def test_the_content_security_policy_can_be_widened_by_the_host(mounted) -> None:
    policy = "default-src 'self' https://cdn.example.edu"
    client = mounted("/people", DIRECTORY_CONTENT_SECURITY_POLICY=policy).test_client()
    assert client.get("/people/").headers["Content-Security-Policy"] == policy
    quiet = mounted("/people", DIRECTORY_SECURITY_HEADERS=False).test_client()
    assert "Content-Security-Policy" not in quiet.get("/people/").headers


TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "directory"


def page_templates() -> list[Path]:
    """Templates rendered as whole pages: not the standalone base, macros, fragments, the
    entry kinds' partials (entries/: macros the profile and the CV import) or the HTML parts
    of e-mails."""
    return [
        path
        for path in sorted(TEMPLATES.rglob("*.html"))
        if path.name != "base.html"
        and not path.name.startswith("_")
        and "fragments" not in path.parts
        and "entries" not in path.parts
        and "mail" not in path.parts
    ]


@pytest.mark.parametrize("path", page_templates(), ids=lambda p: str(p.relative_to(TEMPLATES)))
def test_every_page_extends_the_configured_layout(path) -> None:
    assert path.read_text().lstrip().startswith("{% extends config.DIRECTORY_BASE_TEMPLATE %}")


@pytest.mark.parametrize(
    "path", sorted(TEMPLATES.rglob("*.html")), ids=lambda p: str(p.relative_to(TEMPLATES))
)
def test_templates_link_through_url_for_without_inline_code(path) -> None:
    source = path.read_text()
    assert not re.search(r'(?:href|src|action)="/', source), "a link not built with url_for"
    # Script files (src=) and JSON-LD data blocks are fine; inline code is not (CSP).
    assert not re.search(r"<style|\sstyle=|<script(?![^>]*(?:application/ld\+json|\ssrc=))", source)


@pytest.mark.parametrize("value", ["ada-lovelace", "a.b_c~1", "名字", "with space", "a/b"])
def test_item_urls_built_once_a_request_are_url_for_s(app, value) -> None:
    """The profile and paper links of a page, and the full addresses of its JSON-LD, are
    pasted into a URL built once per request: the same URL url_for gives, and url_for itself
    for a value it would quote; outside a request, url_for's full address as before."""
    from flask import url_for

    from directory.web.views.common import item_url, paper_url, profile_url

    with app.test_request_context("/directory/"):
        assert profile_url(value) == url_for("directory.profile", slug=value)
        assert paper_url(value) == url_for("directory.paper", uid=value)
        assert profile_url(value) == url_for("directory.profile", slug=value)  # from the cache
        for _ in range(2):  # built, then from the cache
            full = item_url("directory.profile", "slug", value, external=True)
            assert full == url_for("directory.profile", slug=value, _external=True)
            assert full.startswith("http://")
    with app.app_context():
        assert profile_url(value) == url_for("directory.profile", slug=value)
        assert profile_url(value).startswith("http")


@pytest.mark.parametrize("slug", ["ada-lovelace", "名字", "a 9081726354 b"])
@pytest.mark.parametrize("entry_id", [7, 9081726354, 123456789012])
def test_item_urls_with_more_arguments_are_url_for_s(app, slug, entry_id) -> None:
    """The editor's links and buttons (an entry's or paper's number, with the profile, the
    kind and the page of papers fixed) are url_for's URLs, built once and pasted together;
    a URL the number's marker is already in is url_for's own."""
    from flask import url_for

    from directory.web.views.common import item_url

    with app.test_request_context("/directory/me"):
        for _ in range(2):  # built, then from the cache
            for kind in ("news", "awards"):
                args = {"slug": slug, "kind": kind}
                assert item_url("directory.move_entry", "entry_id", entry_id, **args) == url_for(
                    "directory.move_entry", entry_id=entry_id, **args
                )
            for query in ({}, {"papers": 3}, {"papers": entry_id}):
                assert item_url(
                    "directory.remove_publication", "pub_id", entry_id, slug=slug, **query
                ) == url_for("directory.remove_publication", slug=slug, pub_id=entry_id, **query)
            assert item_url("directory.profile", "slug", slug, external=True) == url_for(
                "directory.profile", slug=slug, _external=True
            )


def test_item_urls_keep_the_order_of_their_query_arguments(app) -> None:
    """url_for writes the query's arguments in the order it is given them: two calls with the
    same arguments in another order are two URLs, each url_for's, not one kept for both."""
    from flask import url_for

    from directory.web.views.common import item_url

    with app.test_request_context("/directory/me"):
        for _ in range(2):  # built, then from the cache
            for query in ({"papers": 2, "q": "x"}, {"q": "x", "papers": 2}):
                assert item_url(
                    "directory.remove_publication", "pub_id", 5, slug="ada", **query
                ) == url_for("directory.remove_publication", slug="ada", **query, pub_id=5)
