"""One entry's evaluated fields (LaTeX still encoded) mapped to a publication in the
interchange shape: type, venue, dates, status, identifiers, links, authors, awards."""

from __future__ import annotations

import re
from typing import Any

from directory.formats.bibtex.authors import parse_authors
from directory.formats.bibtex.latex import NEEDS_LATEX_RE, clean_url, latex_to_text
from directory.formats.bibtex.values import MONTH_BY_PREFIX
from directory.formats.identifiers import (
    ARXIV_BARE_RE,
    arxiv_problem,
    arxiv_url,
    normalise_arxiv,
    normalise_doi,
)

PUBLICATION_TYPES = (
    "conference",
    "journal",
    "workshop",
    "preprint",
    "thesis",
    "book",
    "chapter",
    "report",
    "talk",
    "other",
)
STATUSES = ("published", "accepted", "under_review", "preprint")

_ENTRY_TYPES = {
    "inproceedings": "conference",
    "conference": "conference",
    "article": "journal",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "book": "book",
    # Edited volumes of their own (their editors' work; as a crossref parent they are skipped).
    "collection": "book",
    "mvbook": "book",
    "mvcollection": "book",
    "proceedings": "book",
    "mvproceedings": "book",
    "incollection": "chapter",
    "inbook": "chapter",
    "techreport": "report",
    "report": "report",
    "talk": "talk",
    "presentation": "talk",
}
_KNOWN_OTHER_TYPES = frozenset(
    ["misc", "unpublished", "online", "electronic", "www", "manual", "booklet", "proceedings"]
    + ["collection", "patent", "software", "dataset", "mvbook", "mvproceedings", "mvcollection"]
)
_PREPRINT_HOLDER_TYPES = frozenset(["misc", "unpublished", "online", "electronic", "www"])
_WORKSHOP_RE = re.compile(r"\bworkshops?\b", re.I)
_ARXIV_JOURNAL_RE = re.compile(r"\barxiv\b|^\s*corr\s*$|\bcorr\s+abs\b", re.I)
_VENUE_FIELDS = (
    "journal",
    "journaltitle",
    "booktitle",
    "school",
    "institution",
    "howpublished",
    "series",
)
# Four digits standing alone: "{--90}{1968}" run together is no year 9019.
_FOUR_DIGITS_RE = re.compile(r"(?<!\d)\d{4}(?!\d)")
_LETTERS_RE = re.compile(r"[A-Za-z]{3,}")
_DATE_RE = re.compile(r"^\s*(\d{4})(?:-(\d{1,2}))?")
LIST_SPLIT_RE = re.compile(r"\s*[;,]\s*")
_AWARD_SPLIT_RE = re.compile(r"\s*;\s*")
_BADGE_ISSUER_RE = re.compile(r"^(.*?)\s*\(([^()]+)\)$")
_TRUE_VALUES = frozenset(["true", "yes", "1", "y", "on"])

_STATUS_ALIASES = {
    "published": "published",
    "accepted": "accepted",
    "to appear": "accepted",
    "forthcoming": "accepted",
    "in press": "accepted",
    "inpress": "accepted",
    "under_review": "under_review",
    "under review": "under_review",
    "submitted": "under_review",
    "in review": "under_review",
    "preprint": "preprint",
    "prepublished": "preprint",
    "in preparation": "in_preparation",
    "inpreparation": "in_preparation",
    "in_preparation": "in_preparation",
    "in prep": "in_preparation",
}
_NOTE_STATUS_RE = re.compile(
    r"\b(?P<review>under\s+review|submitted|in\s+submission)\b"
    r"|\b(?P<accepted>to\s+appear|accepted|forthcoming|in\s+press)\b"
    r"|\b(?P<prep>in\s+preparation)\b",
    re.I,
)

# Fields a URL goes into, and the kind of link it becomes. ``url``/``html`` are refined
# by ``_url_kind``.
_LINK_FIELDS = {
    "url": "paper",
    "pdf": "paper",
    "html": "publisher",
    "code": "code",
    "slides": "slides",
    "talk": "talk",
    "video": "video",
    "poster": "poster",
    "blog": "blog",
    "website": "website",
    "preprint": "preprint",
    "artifact": "artifact",
    "dataset": "dataset",
    "supp": "other",
}
_PUBLISHER_HOSTS = (
    "doi.org",
    "dl.acm.org",
    "ieeexplore.ieee.org",
    "link.springer.com",
    "sciencedirect.com",
    "onlinelibrary.wiley.com",
    "nature.com",
    "science.org",
    "academic.oup.com",
    "tandfonline.com",
    "usenix.org",
    "pubs.acs.org",
    "journals.aps.org",
    "mdpi.com",
    "cambridge.org",
)
_HOST_RE = re.compile(r"^[a-z][a-z0-9+.-]*://([^/?#]+)", re.I)


def _url_kind(url: str, default: str) -> str:
    low = url.lower()
    if "arxiv.org/" in low:
        return "preprint"
    if low.endswith(".pdf"):
        return "paper"
    m = _HOST_RE.match(low)
    if m is not None:
        host = m.group(1)
        for publisher in _PUBLISHER_HOSTS:
            if host == publisher or host.endswith("." + publisher):
                return "publisher"
    return default


def _parse_month(value: str) -> int | None:
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        month = int(value)
        return month if 1 <= month <= 12 else None
    m = _LETTERS_RE.search(value)
    if m is not None:
        return MONTH_BY_PREFIX.get(m.group(0)[:3].lower())
    digits = re.match(r"\d{1,2}", value)
    if digits is not None and 1 <= int(digits.group(0)) <= 12:
        return int(digits.group(0))
    return None


def _arxiv_from_fields(fields: dict[str, str], warnings: list[str]) -> str | None:
    found = _arxiv_given(fields, warnings)
    if found:
        return found
    arxiv = fields.get("arxiv")
    if arxiv:
        found = normalise_arxiv(arxiv)
        if found:
            return found
    for name in ("journal", "journaltitle"):
        journal = fields.get(name)
        if journal and _ARXIV_JOURNAL_RE.search(journal):
            found = normalise_arxiv(journal + " " + fields.get("volume", ""))
            if found:
                return found
    for name in ("url", "pdf", "html", "howpublished", "preprint"):
        url = fields.get(name)
        if url and "arxiv.org/" in url.lower():
            found = normalise_arxiv(url)
            if found:
                return found
    return None


def infer_type(entry_type: str, venue_field: str | None, has_arxiv: bool) -> str:
    """The publication type BibTeX fields imply (also used by the exporter to check itself).

    ``venue_field`` is the journal for articles and the booktitle for proceedings papers.
    """
    mapped = _ENTRY_TYPES.get(entry_type)
    if mapped == "conference":
        if venue_field and _WORKSHOP_RE.search(venue_field):
            return "workshop"
        return "conference"
    if mapped == "journal":
        # arXiv/CoRR "articles" (Google Scholar, DBLP) are preprints.
        if venue_field and _ARXIV_JOURNAL_RE.search(venue_field):
            return "preprint"
        if not venue_field and has_arxiv:
            return "preprint"
        return "journal"
    if mapped is not None:
        return mapped
    if has_arxiv and entry_type in _PREPRINT_HOLDER_TYPES:
        return "preprint"
    return "other"


def _decoded(fields: dict[str, str], name: str) -> str | None:
    value = fields.get(name)
    if value is None:
        return None
    return latex_to_text(value) or None


_PARAGRAPH_RE = re.compile(r"\n[ \t]*\n\s*|\\par\b\s*")


def _decoded_paragraphs(fields: dict[str, str], name: str) -> str | None:
    """A long text field (an abstract) decoded paragraph by paragraph (a blank line or
    ``\\par`` between them), paragraphs separated by a blank line."""
    value = fields.get(name)
    if value is None:
        return None
    if "\n" not in value and "\\par" not in value:
        return latex_to_text(value) or None
    paragraphs = [latex_to_text(p) for p in _PARAGRAPH_RE.split(value)]
    return "\n\n".join(p for p in paragraphs if p) or None


def _split_list(value: str | None, pattern: re.Pattern[str]) -> list[str]:
    if not value:
        return []
    return [item for item in (p.strip() for p in pattern.split(latex_to_text(value))) if item]


def _arxiv_given(fields: dict[str, str], warnings: list[str]) -> str | None:
    """The arXiv id of the fields that say they hold one (``eprint`` with ``archivePrefix =
    {arXiv}``, Mendeley's ``arxivId``); a value there that is no arXiv id is reported and not
    stored (Mendeley writes NIH manuscript numbers such as NIHMS150003 there)."""
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip().lower()
    given = []
    eprint = (fields.get("eprint") or "").strip()
    if eprint and (prefix == "arxiv" or (not prefix and ARXIV_BARE_RE.fullmatch(eprint))):
        given.append(("eprint", eprint))
    if (fields.get("arxivid") or "").strip():
        given.append(("arxivId", fields["arxivid"].strip()))
    bad: dict[str, list[str]] = {}
    for name, value in given:
        found = normalise_arxiv(value)
        if found:
            return found
        bad.setdefault(value, []).append(name)
    for value, names in bad.items():
        warnings.append(f"{' and '.join(names)}: {arxiv_problem(value)}; not stored")
    return None


def build_publication(
    key: str, entry_type: str, fields: dict[str, str], warnings: list[str]
) -> dict[str, Any]:
    """Map evaluated (LaTeX still encoded) fields of one entry to the interchange dict.

    The helpers run in the order the fields were always decoded, so that the warnings (and
    the unknown LaTeX commands, reported in the order met) come out in the same order.
    """
    title = _title(fields, warnings)
    venue, howpublished_url = _venue(fields)
    arxiv_id = _arxiv_from_fields(fields, warnings)
    pub_type = _publication_type(entry_type, fields, bool(arxiv_id), warnings)
    year, month, year_text = _year_and_month(fields, warnings)
    note = _decoded(fields, "note")
    # al-folio sites write the status into the venue ("CVPR Under Review"), and some a
    # "to appear" in place of the year.
    status_texts = (note, year_text if year is None else None, venue)
    status = _status(fields, status_texts, pub_type, warnings)
    doi = _doi(fields, warnings)
    links, doi = _links(fields, doi, howpublished_url, arxiv_id)
    authors, authors_incomplete = parse_authors(fields, warnings)
    if not authors:
        warnings.append("entry has no authors")
    awards = _awards(fields)
    badges = _badges(fields)
    pages = _decoded(fields, "pages")
    return {
        "title": title,
        "venue": venue,
        "venue_short": _decoded(fields, "abbr"),
        "year": year,
        "month": month,
        "type": pub_type,
        "status": status,
        "abstract": _decoded_paragraphs(fields, "abstract"),
        "doi": doi,
        "arxiv_id": arxiv_id,
        "volume": _decoded(fields, "volume"),
        "number": _decoded(fields, "number") or _decoded(fields, "issue"),
        "pages": pages,
        "publisher": _decoded(fields, "publisher"),
        "location": _decoded(fields, "address") or _decoded(fields, "location"),
        "note": note,
        "authors": authors,
        "authors_incomplete": authors_incomplete,
        "links": links,
        "awards": awards,
        "badges": badges,
        "labels": _split_list(fields.get("labels"), LIST_SPLIT_RE),
        "selected": fields.get("selected", "").strip().lower() in _TRUE_VALUES,
        "key": key,
    }


def _title(fields: dict[str, str], warnings: list[str]) -> str:
    title = _decoded(fields, "title") or ""
    subtitle = _decoded(fields, "subtitle")
    if subtitle and title:  # biblatex keeps the subtitle apart
        title = f"{title}: {subtitle}"
    if not title:
        warnings.append("entry has no title")
    return title


def _venue(fields: dict[str, str]) -> tuple[str | None, str | None]:
    """The venue (the first container-like field present) and the URL a ``howpublished``
    holds instead of a venue, if any."""
    howpublished_url = None
    for name in _VENUE_FIELDS:
        value = fields.get(name)
        if not value:
            continue
        if name == "howpublished" and ("\\url" in value or "://" in value):
            howpublished_url = clean_url(value)  # a URL, not a venue
            continue
        venue = latex_to_text(value) or None
        if venue:
            return venue, howpublished_url
    return None, howpublished_url


def _publication_type(
    entry_type: str, fields: dict[str, str], has_arxiv: bool, warnings: list[str]
) -> str:
    """The type the entry type and venue imply, unless a ``pubtype`` field names one."""
    type_field = fields.get("journal") or fields.get("journaltitle") or fields.get("booktitle")
    pub_type = infer_type(entry_type, latex_to_text(type_field) if type_field else None, has_arxiv)
    if entry_type not in _ENTRY_TYPES and entry_type not in _KNOWN_OTHER_TYPES:
        warnings.append(f"unknown entry type @{entry_type}; imported as type 'other'")
    pubtype_override = fields.get("pubtype", "").strip().lower()
    if pubtype_override:
        if pubtype_override in PUBLICATION_TYPES:
            return pubtype_override
        warnings.append(f"pubtype '{pubtype_override}' is not a known publication type")
    return pub_type


def _year_and_month(
    fields: dict[str, str], warnings: list[str]
) -> tuple[int | None, int | None, str]:
    """Year and month, from year/month or else a biblatex date; and the year's text (which
    may say "to appear" instead)."""
    year: int | None = None
    month: int | None = None
    year_text = fields.get("year", "").strip()
    if year_text and NEEDS_LATEX_RE.search(year_text) is not None:
        year_text = latex_to_text(year_text)  # {\noopsort{1973b}}1981 is 1981
    if year_text:
        m = _FOUR_DIGITS_RE.search(year_text)
        if m is not None:
            year = int(m.group(0))
        elif not _NOTE_STATUS_RE.search(year_text):
            warnings.append(f"year '{year_text}' is not a year")
    month_text = fields.get("month", "").strip()
    if month_text:
        month = _parse_month(month_text)
        if month is None:
            warnings.append(f"month '{month_text}' is not a month")
    date = fields.get("date")
    if date and (year is None or month is None):
        m = _DATE_RE.match(date)
        if m is not None:
            year = year if year is not None else int(m.group(1))
            if month is None and m.group(2) and 1 <= int(m.group(2)) <= 12:
                month = int(m.group(2))
    return year, month, year_text


def _status(
    fields: dict[str, str], texts: tuple[str | None, ...], pub_type: str, warnings: list[str]
) -> str:
    """The status: an explicit field, else what the first of ``texts`` that says one says
    ("to appear", "under review"), else the type's (a preprint's, or published)."""
    explicit = (fields.get("status") or fields.get("pubstate") or "").strip().lower()
    if explicit:
        status = _STATUS_ALIASES.get(explicit.replace("-", " ")) or _STATUS_ALIASES.get(explicit)
        if status is not None:
            return status
        warnings.append(f"status '{explicit}' is not one of {', '.join(STATUSES)}")
    for text in texts:
        m = _NOTE_STATUS_RE.search(text) if text else None
        if m is not None:
            if m.group("review"):
                return "under_review"
            return "in_preparation" if m.group("prep") else "accepted"
    return "preprint" if pub_type == "preprint" else "published"


def _doi(fields: dict[str, str], warnings: list[str]) -> str | None:
    doi_text = fields.get("doi")
    if not doi_text:
        return None
    doi = normalise_doi(clean_url(doi_text))
    if doi is None:
        warnings.append(f"doi '{doi_text.strip()}' is not a DOI")
    return doi


def _links(
    fields: dict[str, str], doi: str | None, howpublished_url: str | None, arxiv_id: str | None
) -> tuple[list[dict[str, Any]], str | None]:
    """The entry's links, each address once, in the order their fields stand in the entry (so
    that exports read back identically); and the DOI, which a publisher's URL gives when no
    ``doi`` field did."""
    kinds: dict[str, str] = {}  # url -> kind, the first kind given to the url
    for name, value in fields.items():
        default_kind = _LINK_FIELDS.get(name)
        if default_kind is None or not value.strip():
            continue
        url = clean_url(value)
        kind = default_kind
        if name == "url" or name == "html":
            kind = _url_kind(url, "paper" if name == "url" else "website")
            if doi is None and kind == "publisher":
                doi = normalise_doi(url)
        if url:
            kinds.setdefault(url, kind)
    if howpublished_url:
        kinds.setdefault(howpublished_url, _url_kind(howpublished_url, "paper"))
    if arxiv_id and not any(
        "arxiv.org/" in url and normalise_arxiv(url) == arxiv_id for url in kinds
    ):
        kinds.setdefault(arxiv_url(arxiv_id), "preprint")
    return [{"kind": kind, "url": url, "label": None} for url, kind in kinds.items()], doi


def _awards(fields: dict[str, str]) -> list[str]:
    awards = _split_list(fields.get("award"), _AWARD_SPLIT_RE)
    for extra in _split_list(fields.get("award_name"), _AWARD_SPLIT_RE):
        if extra not in awards:
            awards.append(extra)
    return awards


def _badges(fields: dict[str, str]) -> list[dict[str, str | None]]:
    """``badges = {Artifacts Available (ACM), Best Paper}``: names, each with its issuer."""
    badges: list[dict[str, str | None]] = []
    for name in _split_list(fields.get("badges"), LIST_SPLIT_RE):
        m = _BADGE_ISSUER_RE.match(name)
        if m is not None:
            badges.append({"name": m.group(1), "issuer": m.group(2).strip()})
        else:
            badges.append({"name": name, "issuer": None})
    return badges
