"""The harvest parsers (directory/formats/harvest): each source's documented answer shape, as
tests/support/harvest_shapes.py renders it from generated papers, read back into the same
works; the pages' cursors and offsets; each source's types mapped to the directory's; and a
body that is not the documented shape refused in words."""

from __future__ import annotations

import json

import pytest

from directory.formats import orcid as orcid_record
from directory.formats.harvest import arxiv, crossref, dblp, openalex, orcid, semantic_scholar
from directory.formats.harvest.common import HarvestParseError
from directory.models.vocabularies import PUBLICATION_TYPES
from tests.support.harvest_data import Author, HarvestPerson, Paper, orcid_for
from tests.support.harvest_shapes import (
    arxiv_feed,
    crossref_item,
    dblp_key,
    dblp_person,
    openalex_work,
    orcid_bulk,
    orcid_summary,
    put_code,
    s2_paper,
)

pytestmark = pytest.mark.engine_independent

OWNER = HarvestPerson(
    "owner",
    "Mei Tanaka",
    orcid=orcid_for(42),
    dblp="12/3456",
    openalex="A77",
    semantic_scholar="88",
)
STRANGER = Author("Yang Liu", affiliation="Elsewhere Institute")
PAPERS = [
    Paper(1, "Verified Storage", 2021, (OWNER.as_author(), STRANGER), "conference", 6,
          "Symposium on Systems Principles", "10.5555/one", "2106.01234", "We verify storage."),
    Paper(2, "Learned Caching", 2019, (STRANGER, OWNER.as_author()), "journal", 2,
          "Journal of Computing", "10.5555/two", None, "Caches that learn."),
    Paper(3, "Robust Consensus", 2023, (OWNER.as_author(),), "preprint", 11, None, None,
          "2311.04321", "Consensus, robustly."),
    Paper(4, "Hot Scheduling", 2020, (OWNER.as_author(),), "workshop", None,
          "Workshop on Hot Topics", "10.5555/four", None, None),
]  # fmt: skip
DIRECTORY_TYPES = {value for value, _label in PUBLICATION_TYPES}


def _by_title(works):
    return {work.title: work for work in works}


def test_every_source_type_maps_to_a_directory_publication_type() -> None:
    tables = [
        orcid_record.WORK_TYPES, openalex.WORK_TYPES, openalex.ARTICLE_SOURCE_TYPES,
        crossref.WORK_TYPES, dblp.RECORD_TYPES, dict(semantic_scholar.PUBLICATION_TYPES),
    ]  # fmt: skip
    for table in tables:
        assert set(table.values()) <= DIRECTORY_TYPES, table


def test_orcid_summary_then_bulk_details_with_contributors() -> None:
    summaries = orcid.parse_works_summary(json.dumps(orcid_summary(OWNER, PAPERS)))
    assert [s.put_code for s in summaries] == [str(put_code(p)) for p in PAPERS]
    summary = _by_title(s.work for s in summaries)["Verified Storage"]
    assert summary.authors == ()  # a summary names no contributors
    codes = [s.put_code for s in summaries] + ["999"]
    details, errors = orcid.parse_works_bulk(json.dumps(orcid_bulk(OWNER, PAPERS, codes)))
    assert set(details) == {s.put_code for s in summaries}
    assert errors == ["ORCID could not give a work: 404 Not Found: no work with put code 999"]
    work = _by_title(details.values())["Verified Storage"]
    assert (work.source, work.found_by, work.type, work.year, work.month) == (
        "orcid", "orcid", "conference", 2021, 6)  # fmt: skip
    assert work.doi == "10.5555/one"
    # The arXiv id of another version (version-of) is not this work's.
    assert work.arxiv_id is None
    assert [(a.name, a.orcid) for a in work.authors] == [
        ("Mei Tanaka", OWNER.orcid), ("Yang Liu", None)]  # fmt: skip
    assert _by_title(details.values())["Robust Consensus"].arxiv_id == "2311.04321"
    assert _by_title(details.values())["Robust Consensus"].type == "preprint"


def test_orcid_put_codes_go_in_calls_of_at_most_100() -> None:
    batches = orcid.put_code_batches([str(n) for n in range(250)])
    assert [len(b) for b in batches] == [100, 100, 50]


def test_openalex_page_and_cursor() -> None:
    body = {"meta": {"count": 9, "per_page": 2, "next_cursor": "abc"},
            "results": [openalex_work(p) for p in PAPERS[:2]]}  # fmt: skip
    page = openalex.parse_works_page(json.dumps(body), "openalex")
    assert (page.next, page.total) == ("abc", 9)
    work = _by_title(page.works)["Verified Storage"]
    assert work.openalex_id == work.source_key and work.source_key.startswith("W")
    assert (work.type, work.venue, work.doi, work.arxiv_id) == (
        "conference", "Symposium on Systems Principles", "10.5555/one", "2106.01234")  # fmt: skip
    assert work.abstract == "We verify storage."
    assert work.authors[0].source_id == "A77" and work.authors[0].orcid == OWNER.orcid
    assert work.authors[1].affiliations == ("Elsewhere Institute",)
    assert _by_title(page.works)["Learned Caching"].type == "journal"
    # An empty page ends the paging even though OpenAlex may still give a cursor.
    empty = openalex.parse_works_page(json.dumps({"meta": {"next_cursor": "x"}, "results": []}))
    assert empty.next is None and empty.works == []


def test_crossref_page_and_cursor() -> None:
    items = [crossref_item(p) for p in PAPERS if p.doi]
    body = {"status": "ok", "message-type": "work-list",
            "message": {"next-cursor": "c2", "total-results": 3, "items": items}}  # fmt: skip
    page = crossref.parse_works_page(json.dumps(body))
    assert (page.next, page.total, len(page.works)) == ("c2", 3, 3)
    work = _by_title(page.works)["Verified Storage"]
    assert (work.type, work.year, work.month, work.source_key) == (
        "conference", 2021, 6, "10.5555/one")  # fmt: skip
    assert work.abstract == "We verify storage."  # JATS markup stripped
    assert [a.name for a in work.authors] == ["Mei Tanaka", "Yang Liu"]
    assert _by_title(page.works)["Learned Caching"].type == "journal"
    body["message"]["items"] = []
    assert crossref.parse_works_page(json.dumps(body)).next is None


def test_dblp_person_record() -> None:
    works = _by_title(dblp.parse_person(dblp_person(OWNER, PAPERS)))
    assert set(works) == {p.title for p in PAPERS}  # DBLP's closing period dropped
    corr = works["Robust Consensus"]
    assert (corr.type, corr.arxiv_id, corr.venue) == ("preprint", "2311.04321", "CoRR")
    assert works["Hot Scheduling"].type == "workshop"
    assert works["Learned Caching"].type == "journal"
    storage = works["Verified Storage"]
    assert storage.dblp_key == storage.source_key == dblp_key(PAPERS[0])
    assert (storage.doi, storage.arxiv_id) == ("10.5555/one", "2106.01234")
    assert storage.authors[0].source_id == "12/3456" and storage.authors[0].orcid == OWNER.orcid


def test_arxiv_author_feed() -> None:
    page = arxiv.parse_feed(arxiv_feed(OWNER, PAPERS), "orcid")
    works = _by_title(page.works)
    assert set(works) == {"Verified Storage", "Robust Consensus"}
    storage = works["Verified Storage"]
    assert (storage.arxiv_id, storage.doi, storage.type, storage.year) == (
        "2106.01234", "10.5555/one", "preprint", 2021)  # fmt: skip
    assert storage.authors[1].affiliations == ("Elsewhere Institute",)
    assert page.next is None


def test_arxiv_export_api_paging_and_errors() -> None:
    feed = arxiv_feed(OWNER, PAPERS).replace(
        "<title>arXiv author",
        '<opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">5'
        "</opensearch:totalResults><title>arXiv author",
    )
    assert arxiv.parse_feed(feed).next == 2
    error = (
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#bad'
        "</id><title>Error</title><summary>incorrect id format</summary></entry></feed>"
    )
    with pytest.raises(HarvestParseError, match="incorrect id format"):
        arxiv.parse_feed(error)


def test_semantic_scholar_page_and_offset() -> None:
    body = {"offset": 0, "next": 2, "data": [s2_paper(p) for p in PAPERS[:3]]}
    page = semantic_scholar.parse_papers_page(json.dumps(body))
    assert page.next == 2
    works = _by_title(page.works)
    assert works["Verified Storage"].type == "conference"
    assert works["Verified Storage"].dblp_key == dblp_key(PAPERS[0])
    assert works["Robust Consensus"].type == "preprint"  # arXiv only, no venue
    assert works["Verified Storage"].authors[0].source_id == "88"
    del body["next"]
    assert semantic_scholar.parse_papers_page(json.dumps(body)).next is None


#: Each parser with a body that is not its documented shape, and the words it says.
NOT_THE_SHAPE = [
    (orcid.parse_works_summary, b'{"group": [', "not JSON"),
    (orcid.parse_works_summary, b'{"works": []}', "no list of groups"),
    (orcid.parse_works_bulk, b"[]", "not a JSON object"),
    (openalex.parse_works_page, b'{"meta": {}}', "no results list"),
    (crossref.parse_works_page, b'{"status": "failed", "message": []}', "not a work list"),
    (dblp.parse_person, b"<dblpperson><r><article", "not well-formed XML"),
    (dblp.parse_person, b"<html><body>Error</body></html>", "not a <dblpperson>"),
    (dblp.parse_person,
     b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]><dblpperson>&a;</dblpperson>',
     "declares XML entities"),
    (arxiv.parse_feed, b"<html/>", "not an Atom feed"),
    (semantic_scholar.parse_papers_page, b'{"error": "Not found"}', "no data list"),
]  # fmt: skip


@pytest.mark.parametrize(("parse", "body", "words"), NOT_THE_SHAPE)
def test_a_body_not_in_the_documented_shape_is_refused_in_words(parse, body, words) -> None:
    with pytest.raises(HarvestParseError, match=words):
        parse(body)
