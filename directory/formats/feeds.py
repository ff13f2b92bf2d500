"""Atom feeds (RFC 4287) and the sitemap, written with ElementTree so that every piece of text
is escaped by the XML library, never by hand. Every text and attribute goes through
:func:`_sub`, the one sanitising step: characters XML 1.0 cannot carry (control characters,
whatever is stored) are dropped, so every document stays well-formed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from xml.etree import ElementTree as ET

from directory.formats.text import strip_control_characters

ATOM_NS = "http://www.w3.org/2005/Atom"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
ATOM_MIMETYPE = "application/atom+xml"

#: The date used as "updated" of a feed with no entries (Atom requires one; a fixed date keeps
#: an empty feed from looking new on every poll).
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


@dataclass
class FeedEntry:
    id: str
    title: str
    url: str
    updated: datetime
    content_html: str
    published: datetime | None = None
    author: str | None = None
    categories: tuple[str, ...] = ()


def _aware(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes for timezone-aware columns; they were stored as UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _stamp(moment: datetime) -> str:
    return _aware(moment).astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def day_start(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    clean = strip_control_characters
    element = ET.SubElement(parent, tag, {name: clean(value) for name, value in attrs.items()})
    if text is not None:
        element.text = clean(text)
    return element


def atom_feed(
    *,
    title: str,
    feed_id: str,
    self_url: str,
    page_url: str,
    author: str,
    entries: list[FeedEntry],
    subtitle: str | None = None,
    language: str | None = None,
) -> bytes:
    """An Atom document; ``updated`` is the newest entry's (or a fixed date when empty);
    ``language`` (a BCP 47 tag) is the language of its own text (``xml:lang``)."""
    feed = ET.Element("feed", {"xmlns": ATOM_NS})
    if language:
        feed.set("xml:lang", language)
    _sub(feed, "id", feed_id)
    _sub(feed, "title", title)
    if subtitle:
        _sub(feed, "subtitle", subtitle)
    updated = max((_aware(e.updated) for e in entries), default=EPOCH)
    _sub(feed, "updated", _stamp(updated))
    _sub(feed, "link", rel="self", type=ATOM_MIMETYPE, href=self_url)
    _sub(feed, "link", rel="alternate", type="text/html", href=page_url)
    _sub(_sub(feed, "author"), "name", author)
    _sub(feed, "generator", "faculty-directory")
    for item in entries:
        entry = _sub(feed, "entry")
        _sub(entry, "id", item.id)
        _sub(entry, "title", item.title)
        _sub(entry, "link", rel="alternate", type="text/html", href=item.url)
        _sub(entry, "updated", _stamp(item.updated))
        if item.published is not None:
            _sub(entry, "published", _stamp(item.published))
        if item.author:
            _sub(_sub(entry, "author"), "name", item.author)
        for category in item.categories:
            _sub(entry, "category", term=category)
        _sub(entry, "content", item.content_html, type="html")
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True)


@dataclass
class SitemapUrl:
    loc: str
    lastmod: date | None = None


def sitemap_index(locations: list[str]) -> bytes:
    """A sitemaps.org sitemapindex naming the sitemaps at ``locations``."""
    root = ET.Element("sitemapindex", {"xmlns": SITEMAP_NS})
    for location in locations:
        _sub(_sub(root, "sitemap"), "loc", location)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def sitemap(urls: list[SitemapUrl]) -> bytes:
    """A sitemaps.org urlset."""
    root = ET.Element("urlset", {"xmlns": SITEMAP_NS})
    for url in urls:
        element = _sub(root, "url")
        _sub(element, "loc", url.loc)
        if url.lastmod is not None:
            _sub(element, "lastmod", url.lastmod.isoformat())
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)
