"""DBLP person records, ``GET /pid/{pid}.xml``: ``<dblpperson name pid n>`` with a
``<person>`` header, one ``<r>`` per publication holding one record element (``article``,
``inproceedings``, ``incollection``, ``book``, ``proceedings``, ``phdthesis``,
``mastersthesis``, ``data``, ``www``) and ``<coauthors>``. The whole list comes in one
answer; there is no paging."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from directory.formats.harvest.common import HarvestParseError, as_int, clean, load_xml
from directory.formats.harvest.works import HarvestedAuthor, HarvestedWork
from directory.formats.identifiers import normalise_arxiv, normalise_doi
from directory.formats.orcid import normalise_orcid_id

SOURCE = "dblp"
#: DBLP record elements → publication types (``article`` marked informal is a CoRR preprint).
RECORD_TYPES = {
    "article": "journal",
    "inproceedings": "conference",
    "incollection": "chapter",
    "book": "book",
    "proceedings": "other",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "data": "other",
}


def _text(element: ET.Element | None) -> str | None:
    """All the text inside ``element`` (titles carry ``<i>``, ``<sub>`` markup)."""
    return clean("".join(element.itertext())) if element is not None else None


def _authors(record: ET.Element) -> tuple[HarvestedAuthor, ...]:
    people = record.findall("author") or record.findall("editor")
    authors = []
    for person in people:
        name = _text(person)
        if not name:
            continue
        orcid = person.get("orcid")
        authors.append(
            HarvestedAuthor(
                name=name,
                orcid=normalise_orcid_id(orcid) if orcid else None,
                source_id=clean(person.get("pid")),
            )
        )
    return tuple(authors)


def _type(record: ET.Element, venue: str | None) -> str:
    if record.tag == "article" and record.get("publtype") == "informal":
        return "preprint"
    if record.tag == "inproceedings" and venue and "workshop" in venue.lower():
        return "workshop"
    return RECORD_TYPES.get(record.tag, "other")


def work_from_dblp(record: ET.Element) -> HarvestedWork | None:
    """One record element (``None`` for a home page or a record without a key)."""
    key = record.get("key")
    if record.tag not in RECORD_TYPES or not key:
        return None
    links = [clean(ee.text) for ee in record.findall("ee")]
    links = [link for link in links if link]
    doi = next((normalise_doi(link) for link in links if "doi.org/" in link), None)
    arxiv_id = next((normalise_arxiv(link) for link in links if "arxiv.org/" in link), None)
    venue = _text(record.find("journal")) or _text(record.find("booktitle"))
    volume = _text(record.find("volume")) or ""
    if not arxiv_id and venue == "CoRR" and volume.startswith("abs/"):
        arxiv_id = normalise_arxiv(volume.removeprefix("abs/"))
    title = (_text(record.find("title")) or "").rstrip(".")
    return HarvestedWork(
        source=SOURCE,
        source_key=key,
        title=title,
        year=as_int(_text(record.find("year"))),
        venue=venue,
        type=_type(record, venue),
        authors=_authors(record),
        doi=doi,
        arxiv_id=arxiv_id,
        dblp_key=key,
        url=links[0] if links else f"https://dblp.org/rec/{key}",
        found_by="dblp",
    )


def parse_person(body: bytes | str) -> list[HarvestedWork]:
    """Every publication of a ``/pid/{pid}.xml`` person record."""
    root = load_xml(body, "the DBLP person record")
    if root.tag != "dblpperson":
        raise HarvestParseError(f"the DBLP answer is a <{root.tag}>, not a <dblpperson>")
    works = []
    for r in root.findall("r"):
        for record in r:
            work = work_from_dblp(record)
            if work is not None:
                works.append(work)
    return works
