"""Publications (interchange dicts) written as BibTeX that :mod:`.parse` reads back into the
same publications."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from directory.formats.bibtex.authors import AND_RE
from directory.formats.bibtex.entries import infer_type
from directory.formats.bibtex.keys import free_key, make_citation_key
from directory.formats.bibtex.values import MONTH_MACROS
from directory.formats.identifiers import normalise_arxiv, normalise_doi

_LATEX_ESCAPES = str.maketrans(
    {
        "\\": r"\textbackslash{}",
        "{": r"\{",
        "}": r"\}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
    }
)
# The characters _LATEX_ESCAPES replaces: most values have none, and looking for them is
# several times cheaper than translating.
_LATEX_SPECIAL_RE = re.compile(r"[\\{}&%$#_~^]")
# "--" would read back as an en dash; "-{}-" keeps the hyphens.
_DOUBLE_HYPHEN_RE = re.compile(r"-(?=-)")
# Words with a capital after their first letter (BERT, GPUs, iPhone) get braces, so that
# bibliography styles that lower-case titles keep them.
_PROTECT_RE = re.compile(r"(?<![\\\w])([^\W\d_]\w*?[A-Z]\w*)")
# What every such word has (a capital after a word character): a title without it, like
# most, has nothing to protect.
_INNER_CAPITAL_RE = re.compile(r"\w[A-Z]")
_URL_ESCAPES = str.maketrans({"%": r"\%", "#": r"\#", "{": "%7B", "}": "%7D", "\\": "%5C"})
# The characters _URL_ESCAPES replaces, which few addresses have.
_URL_SPECIAL_RE = re.compile(r"[%#{}\\]")

_EXPORT_ENTRY_TYPES = {
    "conference": ("inproceedings", "booktitle"),
    "workshop": ("inproceedings", "booktitle"),
    "journal": ("article", "journal"),
    "preprint": ("misc", "howpublished"),
    "thesis": ("phdthesis", "school"),
    "book": ("book", "series"),
    "chapter": ("incollection", "booktitle"),
    "report": ("techreport", "institution"),
    "talk": ("misc", "howpublished"),
    "other": ("misc", "howpublished"),
}
_EXPORT_LINK_FIELDS = {
    "publisher": "html",
    "code": "code",
    "slides": "slides",
    "talk": "talk",
    "video": "video",
    "blog": "blog",
    "poster": "poster",
    "website": "website",
    "preprint": "preprint",
    "artifact": "artifact",
    "dataset": "dataset",
    "other": "supp",
}
_EXPORT_PUBSTATE = {
    "accepted": "forthcoming",
    "under_review": "submitted",
    "preprint": "prepublished",
    "in_preparation": "inpreparation",
}


def _escape(value: Any, *, keep_hyphens: bool = True) -> str:
    text = str(value)
    if _LATEX_SPECIAL_RE.search(text):
        text = text.translate(_LATEX_ESCAPES)
    if keep_hyphens and "--" in text:
        text = _DOUBLE_HYPHEN_RE.sub("-{}", text)
    return text


def _escape_url(url: Any) -> str:
    text = str(url)
    return text.translate(_URL_ESCAPES) if _URL_SPECIAL_RE.search(text) else text


def _escape_title(value: str) -> str:
    text = _escape(value)
    if not _INNER_CAPITAL_RE.search(text):
        return text
    return _PROTECT_RE.sub(r"{\1}", text)


@lru_cache(maxsize=4096)  # a page's papers share their authors
def _escape_name(name: str) -> str:
    text = _escape(name)
    # A name with a comma or a literal " and " (an organisation) is one brace-protected unit.
    if "," in name or AND_RE.search(name) or name.lower() == "others":
        text = "{" + text + "}"
    return text


def _brace_if_needed(part: str) -> str:
    """A name part BibTeX would split or re-case otherwise, as one braced unit."""
    text = _escape(part)
    if "," in part or AND_RE.search(part) or part.lower() == "others" or (part[:1].islower()):
        return "{" + text + "}"
    return text


def bibtex_name(author: dict[str, Any]) -> str:
    """One author as BibTeX reads it back into the same parts: ``von Last, Jr, First`` from
    the stored parts, ``{Name}`` for an organisation (a family name alone, several words),
    else the printed name as written."""
    family = author.get("family")
    if not family:
        return _escape_name(author.get("name") or "")
    return _name_from_parts(
        family, author.get("given"), author.get("particle"), author.get("suffix")
    )


@lru_cache(maxsize=4096)  # a page's papers share their authors
def _name_from_parts(
    family: str, given: str | None, particle: str | None, suffix: str | None
) -> str:
    if not (given or particle or suffix):
        return "{" + _escape(family) + "}" if " " in family or "," in family else _escape(family)
    words = family.split()
    given_words = (given or "").split()
    if (
        len(words) == 1
        and words[0][:1].isupper()
        and not suffix
        and "," not in (given or "")
        and all(w[:1].isupper() for w in given_words)
    ):  # "Given von Family" reads back into the same parts
        return " ".join(_escape(p) for p in (given, particle, family) if p)
    # The family name: braced when it has words BibTeX would take for a particle.
    last = _escape(family)
    if len(words) > 1 or any(w[:1].islower() for w in words) or "," in family:
        last = "{" + last + "}"
    head = f"{_escape(particle)} {last}" if particle else last
    pieces = [head]
    if suffix:
        pieces.append(_brace_if_needed(suffix))
    if given:
        pieces.append(_brace_if_needed(given) if "," in given else _escape(given))
    return ", ".join(pieces)


def _name_list(authors: list[dict[str, Any]], incomplete: bool) -> str:
    names = [bibtex_name(a) for a in authors]
    if incomplete:
        names.append("others")
    return " and ".join(names)


# Characters that would end a citation key or break \cite.
_KEY_BREAKING_RE = re.compile(r"[\s,{}()=\"#%'\\~]+")


def _sanitise_key(key: Any) -> str:
    if not key:
        return ""
    return _KEY_BREAKING_RE.sub("", str(key))


def publication_to_bibtex(pub: dict[str, Any], key: str | None = None) -> str:
    """Write one publication (interchange dict) as a BibTeX entry.

    Values are LaTeX-escaped (``& % $ # _ { } ~ ^ \\``), authors are written
    ``First Last and ...``, the month as a macro. Fields this module reads back
    (``abbr``, ``award``, ``badges``, ``labels``, ``selected``, ``co_first``,
    ``corresponding``, ``pubstate``) carry the rest; ``pubtype`` is added only when the
    entry type alone would read back as a different publication type. Only the first link
    of each kind is written (the first two for ``paper``: ``url`` and ``pdf``).
    """
    key = _sanitise_key(key) or _sanitise_key(pub.get("key")) or make_citation_key(pub)
    pub_type = pub.get("type") or "other"
    if pub_type not in _EXPORT_ENTRY_TYPES:
        pub_type = "other"
    entry_type, venue_field = _EXPORT_ENTRY_TYPES[pub_type]
    arxiv_id = normalise_arxiv(pub.get("arxiv_id"))
    authors = [a for a in pub.get("authors") or [] if (a.get("role") or "author") == "author"]
    fields: list[Field] = []
    _add_name_fields(fields, pub, authors)
    _add_bibliographic_fields(fields, pub, pub_type, venue_field)
    _add_identifier_fields(fields, pub, arxiv_id)
    _add_link_fields(fields, pub.get("links") or [], arxiv_id)
    _add_site_fields(fields, pub, authors)
    # Say the type explicitly only where the entry type and venue would be read otherwise.
    type_venue = pub.get("venue") if venue_field in ("journal", "booktitle") else None
    if infer_type(entry_type, type_venue, bool(arxiv_id)) != pub_type:
        fields.append(("pubtype", pub_type))
    _add_escaped(fields, "abstract", pub.get("abstract"))
    body = "".join(
        [
            f"  {name} = {value},\n" if name == "month" else f"  {name} = {{{value}}},\n"
            for name, value in fields
        ]
    )
    return f"@{entry_type}{{{key},\n{body}}}\n"


# Each _add_* function appends its fields, in order, to the entry's list of (name, value).
Field = tuple[str, str]


def _add_escaped(fields: list[Field], name: str, value: Any) -> None:
    """The field ``name`` with ``value`` escaped; nothing for an empty value."""
    if value is None or value == "" or value == []:
        return
    fields.append((name, _escape(value)))


def _add_name_fields(
    fields: list[Field], pub: dict[str, Any], authors: list[dict[str, Any]]
) -> None:
    editors = [a for a in pub.get("authors") or [] if a.get("role") == "editor"]
    incomplete = bool(pub.get("authors_incomplete"))
    if authors:
        fields.append(("author", _name_list(authors, incomplete)))
    if editors:
        fields.append(("editor", _name_list(editors, incomplete and not authors)))


def _add_bibliographic_fields(
    fields: list[Field], pub: dict[str, Any], pub_type: str, venue_field: str
) -> None:
    """Title, venue, date, volume, issue, pages, publisher, address, note and status."""
    if pub.get("title"):
        fields.append(("title", _escape_title(pub["title"])))
    _add_escaped(fields, venue_field, pub.get("venue"))
    _add_escaped(fields, "year", pub.get("year"))
    month = pub.get("month")
    if isinstance(month, int) and 1 <= month <= 12:
        fields.append(("month", MONTH_MACROS[month - 1]))
    _add_escaped(fields, "volume", pub.get("volume"))
    _add_escaped(fields, "number", pub.get("number"))
    pages = pub.get("pages")
    if pages:
        # Page ranges are meant as en dashes, which BibTeX spells "--".
        pages_text = str(pages).replace("–", "--").replace("—", "--")
        fields.append(("pages", _escape(pages_text, keep_hyphens=False)))
    _add_escaped(fields, "publisher", pub.get("publisher"))
    _add_escaped(fields, "address", pub.get("location"))
    _add_escaped(fields, "note", pub.get("note"))
    status = pub.get("status")
    if status in _EXPORT_PUBSTATE and not (status == "preprint" and pub_type == "preprint"):
        fields.append(("pubstate", _EXPORT_PUBSTATE[status]))


def _add_identifier_fields(fields: list[Field], pub: dict[str, Any], arxiv_id: str | None) -> None:
    doi = normalise_doi(pub.get("doi"))
    if doi:
        fields.append(("doi", doi.replace("{", "%7B").replace("}", "%7D")))
    if arxiv_id:
        fields.append(("eprint", arxiv_id))
        fields.append(("archiveprefix", "arXiv"))


def _add_link_fields(
    fields: list[Field], links: list[dict[str, Any]], arxiv_id: str | None
) -> None:
    """The first link of each kind, in the field that reads back as that kind; the first two
    paper links as ``url`` and ``pdf``; the arXiv page not again (``eprint`` says it)."""
    paper_fields = ["url", "pdf"]
    written: set[str] = set()
    for link in links:
        kind, url = link.get("kind"), link.get("url")
        if not url:
            continue
        if kind == "paper":
            if not paper_fields:
                continue
            name = paper_fields.pop(0)
        elif kind == "preprint" and arxiv_id and normalise_arxiv(url) == arxiv_id:
            continue  # already carried by eprint
        else:
            name = _EXPORT_LINK_FIELDS.get(kind or "other", "supp")
            if name in written:
                continue
        written.add(name)
        fields.append((name, _escape_url(url)))


def _add_site_fields(
    fields: list[Field], pub: dict[str, Any], authors: list[dict[str, Any]]
) -> None:
    """What al-folio sites add (and this module reads back): short venue, awards, badges,
    labels, the selected flag, co-first and corresponding authors."""
    _add_escaped(fields, "abbr", pub.get("venue_short"))
    _add_escaped(fields, "award", "; ".join(pub.get("awards") or []))
    badges = [
        f"{b['name']} ({b['issuer']})" if b.get("issuer") else b["name"]
        for b in pub.get("badges") or []
        if b.get("name")
    ]
    _add_escaped(fields, "badges", ", ".join(badges))
    _add_escaped(fields, "labels", ", ".join(pub.get("labels") or []))
    if pub.get("selected"):
        fields.append(("selected", "true"))
    co_first = [str(i) for i, a in enumerate(authors, start=1) if a.get("co_first")]
    if co_first:
        fields.append(("co_first", ",".join(co_first)))
    corresponding = [_escape_name(a["name"]) for a in authors if a.get("corresponding")]
    if corresponding:
        fields.append(("corresponding", " and ".join(corresponding)))


def publications_to_bibtex(pubs: list[dict[str, Any]]) -> str:
    """Write many publications as one BibTeX file, making citation keys unique.

    A publication's own ``key`` is kept when free; otherwise a key is generated and clashes
    get a letter suffix (``wei2023mitosis``, ``wei2023mitosisb``, ...).
    """
    used: set[str] = set()
    chunks = []
    for pub in pubs:
        key = free_key(_sanitise_key(pub.get("key")) or make_citation_key(pub), used)
        chunks.append(publication_to_bibtex(pub, key=key))
    return "\n".join(chunks)
