"""Search on the demo department: the same answers on SQLite and PostgreSQL (each engine's
results equal a reference matcher's, and known answers are asserted on both), and the page."""

from __future__ import annotations

from datetime import date

from sqlalchemy import func, select

from directory import models as m
from directory.cli import demo_documents
from directory.services import search as index
from directory.services import search_engines, search_index
from directory.services.access import listed_notices, listed_people, listed_publications
from directory.services.identity import ANONYMOUS
from directory.services.interchange import import_documents
from tests.services.test_search import found

# Every test of this module sees the demo department, loaded once (see shared_demo.py).
from tests.support.shared_demo import connection, demo_connection  # noqa: F401

#: Queries run on the demo department. Each must give exactly what the reference matcher
#: (plain Python over the stored tokens) gives, on whichever database the suite runs on.
SHARED_QUERIES = (
    "xingda",
    "Xingda Wei",
    "wei",
    "WEI serverless",
    "danyang zhuo",
    "zhuo",
    "OSDI'26",
    "osdi 2023",
    "rdma",
    "RDMA-enabled transaction",
    "llm sched",
    "machine learning systems",
    "distributed",
    "storage",
    "phd",
    "fall 2026",
    "duke",
    "ipads",
    "kv",
    "gpu",
    "sjtu",
    "eurosys",
    "a",
    "s",
    "serverless computing",
    "remote fork",
    "transaction processing",
    "haibo chen",
    "the",
    "nosuchwordanywhere",
)


def reference(db, query: str, today: date) -> set[tuple[str, int]]:
    """What an anonymous search must find, computed without any database text search: the
    documents of what the pages list (the read rules), whose tokens match."""
    terms = index.parse_query(query)
    listed = {
        ("person", id_) for id_ in db.scalars(select(m.Person.id).where(listed_people(ANONYMOUS)))
    }
    listed |= {
        ("publication", id_)
        for id_ in db.scalars(select(m.Publication.id).where(listed_publications(ANONYMOUS)))
    }
    listed |= {
        ("notice", id_)
        for id_ in db.scalars(select(m.RecruitingNotice.id).where(listed_notices(ANONYMOUS, today)))
    }
    return {
        (doc.kind, doc.object_id)
        for doc in db.scalars(select(index.SearchDocument))
        if (doc.kind, doc.object_id) in listed
        and index.matches(f"{doc.title_tokens} {doc.body_tokens}".split(), terms)
    }


def test_shared_queries_give_the_reference_answers(app, db) -> None:
    today = date.today()
    assert db.scalar(select(index.SearchDocument.id).limit(1)) is not None
    nonempty = 0
    with app.test_request_context():
        for query in SHARED_QUERIES:
            results = index.search(db, query, ANONYMOUS, limit=500)
            expected = reference(db, query, today)
            assert {(hit.kind, hit.object_id) for hit in results.hits} == expected, query
            assert results.total == len(expected) == sum(results.counts.values()), query
            nonempty += bool(expected)
    assert nonempty >= 25


def test_other_databases_get_the_same_answers_without_an_index(app, db, monkeypatch) -> None:
    """Databases other than SQLite and PostgreSQL use a portable LIKE matcher: checked here
    against the same reference, on whichever database the suite runs on."""
    monkeypatch.setattr(search_engines, "ENGINES", {})
    today = date.today()
    with app.test_request_context():
        for query in SHARED_QUERIES:
            results = index.search(db, query, ANONYMOUS, limit=500)
            assert {(hit.kind, hit.object_id) for hit in results.hits} == reference(
                db, query, today
            ), query
        assert found(index.search(db, "xingda", ANONYMOUS, limit=1)) == {("person", "xingda-wei")}
        # Writes keep the index current through it too.
        person = db.scalars(select(m.Person).filter_by(slug="xingda-wei")).one()
        person.interests = "zebrafish"
        db.commit()
        assert found(index.search(db, "zebra", ANONYMOUS)) == {("person", "xingda-wei")}


def test_known_answers_on_the_demo_are_the_same_on_every_database(app, db) -> None:
    with app.test_request_context():

        def top(query: str) -> tuple[str, str]:
            hit = index.search(db, query, ANONYMOUS, limit=1).hits[0]
            return hit.kind, hit.ref

        assert top("xingda") == ("person", "xingda-wei")
        assert top("Danyang Zhuo") == ("person", "danyang-zhuo")
        assert top("xing") == ("person", "xingda-wei")  # the last word is a prefix

        llm = index.search(db, "llm sched", ANONYMOUS)
        assert [hit.title.striptags() for hit in llm.hits] == [
            "Simple is Better: Multiplication May Be All You Need for LLM Request Scheduling"
        ]
        assert found(index.search(db, "duke", ANONYMOUS)) == {
            ("person", "danyang-zhuo"),
            ("notice", "danyang-zhuo"),
        }
        osdi26 = index.search(db, "OSDI'26", ANONYMOUS)
        assert {hit.title.striptags() for hit in osdi26.hits} == {
            "Simple is Better: Multiplication May Be All You Need for LLM Request Scheduling",
            "SDCs in the Wild: Characterizing and Diagnosing SDC-defective GPUs in Production "
            "LLM Training",
        }
        assert index.search(db, "xingda", ANONYMOUS).counts == {
            "person": 1,
            "publication": 25,
            "notice": 2,
        }


def test_reimporting_a_profile_keeps_one_document_each(app, db) -> None:
    def count() -> int:
        return db.scalar(select(func.count()).select_from(index.SearchDocument))

    before = count()
    documents = [(name, doc) for name, doc in demo_documents() if name == "danyang-zhuo.json"]
    import_documents(db, documents)  # replaces his entries, notices included, in bulk
    db.commit()
    assert count() == before
    with app.test_request_context():
        assert found(index.search(db, "duke", ANONYMOUS)) == {
            ("person", "danyang-zhuo"),
            ("notice", "danyang-zhuo"),
        }
    assert search_index.rebuild(db) == before


def test_page_groups_results_by_kind_and_marks_matches(client) -> None:
    html = client.get("/directory/search?q=xingda").get_data(as_text=True)
    assert html.index('<h2 id="results-person"') < html.index('<h2 id="results-publication"')
    assert html.index('<h2 id="results-publication"') < html.index('<h2 id="results-notice"')
    assert '<a href="/directory/people/xingda-wei"><mark>Xingda</mark> Wei</a>' in html
    # People are found by their papers too (docs/search.md): his six co-authors in the
    # department follow him, the person the name names.
    assert "34 results for “xingda”." in html
    people = html[
        html.index('<h2 id="results-person"') : html.index('<h2 id="results-publication"')
    ]
    assert people.index("/directory/people/xingda-wei") < people.index('class="search-hit ', 200)
    assert "See all 25 publications" in html
    assert html.count('class="search-hit search-hit--publication"') == 5


def test_page_of_one_kind_is_paginated(app, client) -> None:
    app.config["DIRECTORY_PAGE_SIZE"] = 10
    try:
        first = client.get("/directory/search?q=xingda&kind=publication").get_data(as_text=True)
        third = client.get("/directory/search?q=xingda&kind=publication&page=3").get_data(
            as_text=True
        )
    finally:
        app.config["DIRECTORY_PAGE_SIZE"] = 50
    assert first.count("search-hit--publication") == 10
    assert "Page 1 of 3" in first and 'rel="next"' in first and 'rel="prev"' not in first
    assert third.count("search-hit--publication") == 5
    assert '<ol class="search-results" start="21">' in third
    assert "search-hit--person" not in first
