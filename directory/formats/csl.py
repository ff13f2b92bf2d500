"""Publications (interchange dicts) as CSL-JSON items, for citeproc and reference managers."""

from __future__ import annotations

from typing import Any

from directory.formats.bibtex.keys import make_citation_key
from directory.formats.identifiers import arxiv_url
from directory.formats.names import NAME_SUFFIXES

_CSL_TYPES = {
    "conference": "paper-conference",
    "workshop": "paper-conference",
    "journal": "article-journal",
    "preprint": "article",
    "thesis": "thesis",
    "book": "book",
    "chapter": "chapter",
    "report": "report",
    "talk": "speech",
    "other": "document",
}
_PARTICLES = frozenset(
    "van von der den de del della da di du la le dos das do ter ten zu y bin al".split()  # noqa: SIM905
)
_CSL_STATUS = {
    "accepted": "forthcoming", "under_review": "submitted", "preprint": "preprint",
    "in_preparation": "in preparation",
}  # fmt: skip


def csl_name(author: dict[str, Any]) -> dict[str, str]:
    """One author as a CSL name: its stored parts (``non-dropping-particle`` for the von
    part, ``literal`` for an organisation), else parts guessed from the printed name."""
    family = author.get("family")
    if not family:
        return _csl_name(author.get("name") or "")
    given = author.get("given")
    if not (given or author.get("particle") or author.get("suffix")):
        return {"literal": family}
    result = {"family": family}
    if given:
        result["given"] = given
    if author.get("particle"):
        result["non-dropping-particle"] = author["particle"]
    if author.get("suffix"):
        result["suffix"] = author["suffix"]
    return result


def _csl_name(name: str) -> dict[str, str]:
    tokens = name.split()
    if len(tokens) < 2:
        return {"literal": name}
    suffix = None
    if len(tokens) > 2 and tokens[-1].lower().rstrip(".,") in NAME_SUFFIXES:
        suffix = tokens.pop().rstrip(",")
        tokens[-1] = tokens[-1].rstrip(",")
    start = len(tokens) - 1
    while start > 1 and tokens[start - 1] in _PARTICLES:
        start -= 1
    result = {"family": " ".join(tokens[start:]), "given": " ".join(tokens[:start])}
    if suffix:
        result["suffix"] = suffix
    return result


def _csl_url(links: list[dict[str, Any]], arxiv_id: str | None) -> str | None:
    """The paper's web address: a paper link, else the publisher's or arXiv page.

    Absolute URLs win over site-relative ones (al-folio ``pdf = {paper.pdf}``), which mean
    nothing outside the site.
    """
    candidates = [lk.get("url") for lk in links if lk.get("kind") == "paper"]
    candidates += [lk.get("url") for lk in links if lk.get("kind") in ("publisher", "preprint")]
    if arxiv_id:
        candidates.append(arxiv_url(arxiv_id))
    present = [url for url in candidates if url]
    absolute = next((url for url in present if "://" in url), None)
    return absolute or (present[0] if present else None)


def publication_to_csl(pub: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    """Convert a publication to a CSL-JSON item (for citeproc and reference managers).

    Names become ``{"given", "family"}`` (``{"literal"}`` for single-token names); the
    date goes to ``issued.date-parts``; ``URL`` is the first paper link, else the publisher
    or arXiv page. Empty values are left out.
    """
    pub_type = pub.get("type") or "other"
    item: dict[str, Any] = {
        "id": id or pub.get("key") or make_citation_key(pub),
        "type": _CSL_TYPES.get(pub_type, "document"),
    }

    def put(name: str, value: Any) -> None:
        if value not in (None, "", []):
            item[name] = value

    put("title", pub.get("title"))
    everyone = [a for a in pub.get("authors") or [] if a.get("name")]
    put("author", [csl_name(a) for a in everyone if (a.get("role") or "author") == "author"])
    put("editor", [csl_name(a) for a in everyone if a.get("role") == "editor"])
    year = pub.get("year")
    if isinstance(year, int):
        parts = [year]
        month = pub.get("month")
        if isinstance(month, int) and 1 <= month <= 12:
            parts.append(month)
        item["issued"] = {"date-parts": [parts]}
    if pub_type in ("thesis", "report"):
        put("publisher", pub.get("venue"))  # CSL puts school / institution there
    else:
        put("container-title", pub.get("venue"))
        put("container-title-short", pub.get("venue_short"))
        put("publisher", pub.get("publisher"))
    put("publisher-place", pub.get("location"))
    put("volume", pub.get("volume"))
    put("issue", pub.get("number"))
    put("page", pub.get("pages"))
    put("DOI", pub.get("doi"))
    arxiv_id = pub.get("arxiv_id")
    if arxiv_id:
        if pub_type == "preprint":
            item.setdefault("publisher", "arXiv")
            put("number", f"arXiv:{arxiv_id}")
        put("archive", "arXiv")
        put("archive_location", arxiv_id)
    put("URL", _csl_url(pub.get("links") or [], arxiv_id))
    put("abstract", pub.get("abstract"))
    put("note", pub.get("note"))
    put("status", _CSL_STATUS.get(pub.get("status") or ""))
    return item
