"""The one policy for web addresses (directory.formats.urls.web_url)."""

from __future__ import annotations

import pytest

from directory.formats import urls
from directory.formats.urls import web_url

# Kept as written, refused, or changed: every kind of address an import or a form brings.
ADDRESSES = [
    "https://example.org",
    "https://example.org/",
    "http://example.org/paper.pdf",
    "HTTPS://Example.ORG/Paper?x=1#top",
    "https://dl.acm.org/doi/10.1145/3341301.3359630",
    "https://localhost:8080/x",
    "https://example.org:99999/too-big-a-port",
    "https://my-lab.example-university.edu/~me/p.pdf",
    "https://example.org?q=1",
    "https://example.org#frag",
    "https://example.org\\evil.com",
    "https://user:secret@example.org/",
    "https://[::1]/x",
    "http://[oops/x",
    "https://exämple.org/x",
    "https://例え.jp/論文",
    "https://-leading-hyphen.org/",
    "https://example..org/",
    "https://.example.org/",
    "https:///no-host",
    "https://",
    "http:example.org",
    "//example.org/x",
    "ftp://example.org/file",
    "javascript:alert(1)",
    "\x01javascript:alert(1)",
    "java\u200bscript:alert(1)",
    "data:text/html,<b>x</b>",
    "mailto:me@example.org",
    "p24.pdf",
    "/files/p24.pdf",
    "  https://example.org/spaced  ",
    "https://exa mple.org/",
    "https://example.org/a b",
    "",
]


@pytest.mark.parametrize("address", ADDRESSES)
@pytest.mark.parametrize("base", [None, "https://lab.example.org/~me"])
def test_the_shortcut_answers_as_the_full_parse(address: str, base: str | None) -> None:
    visible = urls._visible(address)
    if not visible:
        assert web_url(address, base) == (None, "it is empty")
        return
    assert web_url(address, base) == urls._parsed_web_url(visible, base)


@pytest.mark.parametrize(
    ("address", "kept"),
    [
        ("https://example.org/paper.pdf", "https://example.org/paper.pdf"),
        ("//example.org/x", "https://example.org/x"),
        ("\x01javascript:alert(1)", None),
        ("ftp://example.org/file", None),
        ("https:///no-host", None),
        ("http://[oops/x", None),
        ("p24.pdf", None),
    ],
)
def test_what_is_kept(address: str, kept: str | None) -> None:
    url, problem = web_url(address)
    assert url == kept
    assert (problem is None) == (kept is not None)


def test_a_relative_address_is_resolved_against_the_site() -> None:
    assert web_url("p24.pdf", "https://lab.example.org/~me") == (
        "https://lab.example.org/~me/p24.pdf",
        None,
    )
    url, problem = web_url("p24.pdf")
    assert url is None and "give the site's address" in problem


def test_the_shortcut_takes_the_plain_addresses_only() -> None:
    taken = [a for a in ADDRESSES if urls._PLAIN_WEB_URL_RE.match(urls._visible(a))]
    assert "https://dl.acm.org/doi/10.1145/3341301.3359630" in taken
    assert "HTTPS://Example.ORG/Paper?x=1#top" in taken
    assert not {
        "https://user:secret@example.org/",
        "https://exämple.org/x",
        "//example.org/x",
    } & set(taken)
