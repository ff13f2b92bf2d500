"""Reading the department pages in tests: card slugs, listing groups, notices, feeds."""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def get(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


def card_slugs(html: str) -> list[str]:
    """Profile slugs of the person cards, in page order."""
    return re.findall(r'class="card__name"><a href="/directory/people/([^"]+)"', html)


def groups(html: str) -> dict[str, list[str]]:
    """Listing group key → card slugs in it."""
    parts = re.split(r'<section class="listing__group" id="group-([a-z_]+)"', html)
    return {key: card_slugs(body) for key, body in zip(parts[1::2], parts[2::2], strict=True)}


def notice_owners(html: str) -> list[str]:
    """(owner slug, level) of every notice on a page, in order."""
    found = re.findall(
        r'<article class="notice" id="notice-\d+">.*?people/([^"#]+)".*?tag--level">([^<]+)<',
        html,
        re.S,
    )
    return [f"{slug}/{level}" for slug, level in found]


def atom_entries(client, url: str) -> list[ET.Element]:
    response = client.get(url)
    assert response.status_code == 200
    assert response.mimetype == "application/atom+xml"
    feed = ET.fromstring(response.data)  # noqa: S314 - our own output
    assert feed.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated"):
        assert feed.find(f"{ATOM}{required}") is not None
    return feed.findall(f"{ATOM}entry")


def feed_link(html: str) -> str:
    match = re.search(
        r'<link rel="alternate" type="application/atom\+xml" title="[^"]*" href="([^"]+)">', html
    )
    assert match, "no Atom feed advertised in the page head"
    head = html[: html.index("</head>")]
    assert match.group(0) in head
    return match.group(1).replace("&amp;", "&")
