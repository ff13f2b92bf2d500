"""arXiv Atom feeds: the export API's ``/api/query`` answer and the author feeds
``/a/{id}.atom2`` (an arXiv author identifier, or an ORCID iD the author linked to their arXiv
account), both Atom 1.0 with arXiv's extension elements (``arxiv:doi``,
``arxiv:journal_ref``, ``arxiv:affiliation``). The export API pages with ``start`` and
``max_results`` and says ``opensearch:totalResults``; an author feed lists everything at once.
The export API reports a bad query as a feed whose one entry has an ``…/api/errors#…`` id."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from directory.formats.harvest.common import (
    HarvestPage,
    HarvestParseError,
    as_int,
    clean,
    iso_year_month,
    load_xml,
)
from directory.formats.harvest.works import HarvestedAuthor, HarvestedWork
from directory.formats.identifiers import normalise_arxiv, normalise_doi

SOURCE = "arxiv"
ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"


def _text(entry: ET.Element, name: str) -> str | None:
    element = entry.find(name)
    return clean("".join(element.itertext())) if element is not None else None


def _authors(entry: ET.Element) -> tuple[HarvestedAuthor, ...]:
    authors = []
    for author in entry.findall(f"{ATOM}author"):
        name = _text(author, f"{ATOM}name")
        if name:
            places = (clean(a.text) for a in author.findall(f"{ARXIV}affiliation"))
            authors.append(HarvestedAuthor(name=name, affiliations=tuple(p for p in places if p)))
    return tuple(authors)


def work_from_entry(entry: ET.Element, found_by: str) -> HarvestedWork | None:
    """One feed entry (``None`` if its id is no arXiv id)."""
    arxiv_id = normalise_arxiv(_text(entry, f"{ATOM}id"))
    if not arxiv_id:
        return None
    year, month = iso_year_month(_text(entry, f"{ATOM}published"))
    journal_ref = _text(entry, f"{ARXIV}journal_ref")
    return HarvestedWork(
        source=SOURCE,
        source_key=arxiv_id,
        title=_text(entry, f"{ATOM}title") or "",
        year=year,
        month=month,
        venue=journal_ref,
        type="preprint",
        authors=_authors(entry),
        doi=normalise_doi(_text(entry, f"{ARXIV}doi")),
        arxiv_id=arxiv_id,
        abstract=_text(entry, f"{ATOM}summary"),
        url=f"https://arxiv.org/abs/{arxiv_id}",
        found_by=found_by,
    )


def parse_feed(body: bytes | str, found_by: str = "orcid") -> HarvestPage:
    """A feed's works, and the ``start`` of the next page when the feed says there is one."""
    root = load_xml(body, "the arXiv feed")
    if root.tag != f"{ATOM}feed":
        raise HarvestParseError(f"the arXiv answer is a <{root.tag}>, not an Atom feed")
    entries = root.findall(f"{ATOM}entry")
    for entry in entries:
        if "/api/errors" in (_text(entry, f"{ATOM}id") or ""):
            reason = _text(entry, f"{ATOM}summary") or "no reason given"
            raise HarvestParseError(f"arXiv refused the query: {reason}")
    works = [w for w in (work_from_entry(e, found_by) for e in entries) if w]
    total = as_int(_text(root, f"{OPENSEARCH}totalResults"))
    start = as_int(_text(root, f"{OPENSEARCH}startIndex")) or 0
    following = start + len(entries)
    more = total is not None and entries and following < total
    return HarvestPage(works, following if more else None, total)
