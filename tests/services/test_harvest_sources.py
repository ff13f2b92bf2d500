"""The harvest's sources (directory/services/harvest/sources) against a real HTTP server on
127.0.0.1 answering in each API's documented shape (tests/support/harvest_server.py): a full
harvest per source, paging, every fault per source recorded and survived within the
deadlines with the other sources unaffected, redirects off the source's host refused, the
contact address sent, ORCID's bulk calls within 100 put codes, and the pauses kept.

Every test is parametrized over :data:`SOURCES`, so a new source is enumerated the day it is
added (and :func:`test_every_source_has_a_default_and_a_test_shape` makes it bring both)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from directory import config
from directory.formats.harvest.works import SourceOutcome
from directory.services.harvest.sources import (
    SOURCES,
    HarvestSettings,
    Pacer,
    configured_sources,
    harvest_person,
    make_client,
)
from tests.conftest import make_app
from tests.support.harvest_server import (
    FAULTS,
    SOURCE_PREFIXES,
    HarvestPerson,
    HarvestServer,
    generated_people,
    harvest_server,
    orcid_for,
)

pytestmark = pytest.mark.engine_independent

CONTACT = "harvest@dept.example"
PEOPLE = generated_people(4)
PERSON = PEOPLE[0]
#: A prolific author: more works than one page of any source.
PROLIFIC = HarvestPerson(
    "prolific",
    "Ravi Iyer",
    orcid=orcid_for(777),
    dblp="77/777",
    openalex="A777",
    semantic_scholar="777",
)
PROLIFIC_WORKS = 230
#: The sources that page, and the calls a PROLIFIC_WORKS list takes at each.
PAGED_CALLS = {
    "orcid": 1 + 3,  # the summary, then bulk details of 100 + 100 + 30 put codes
    "openalex": 5,  # 50 a page, no cursor after the last
    "crossref": 3 + 1,  # 100 a page, then the empty page that ends Crossref's cursor
    "semantic_scholar": 3,  # 100 a page, no "next" on the last
}
#: The sources that give a published paper's arXiv id (ORCID gives it only as another
#: version's, which is not this work's; Crossref knows DOIs only).
TELL_ARXIV_IDS = ("openalex", "dblp", "arxiv", "semantic_scholar")
#: Limits small enough for the faults to show quickly; the server hangs longer than each
#: (4 s). Not smaller: a healthy answer on a loaded machine (CI's, two test workers and a
#: browser on two cores) once took over 0.5 s to start and read as a timeout.
LIMITS = dict(
    connect_timeout=2.0,
    read_timeout=2.0,
    response_deadline=3.0,
    source_deadline=6.0,
    max_response_bytes=1_000_000,
    retry_after_max=2.0,
)
#: The longest one person's harvest may take with one source faulty: the faulty source's
#: deadline, the healthy sources' calls on loopback, and margin for a loaded machine.
BOUND = LIMITS["source_deadline"] + 4


@pytest.fixture(scope="module")
def server() -> Iterator[HarvestServer]:
    with harvest_server(PEOPLE, works_per_source=15, hang=4.0) as running:
        running.data.add_person(PROLIFIC)
        yield running


@pytest.fixture(autouse=True)
def _fresh(server: HarvestServer) -> None:
    server.clear_faults()
    server.requests.clear()


def settings_for(server: HarvestServer, **overrides) -> HarvestSettings:
    values = {"sources": server.sources, "contact": CONTACT, **LIMITS, **overrides}
    return HarvestSettings(**values)


def expected_works(server: HarvestServer, source: str, person: HarvestPerson) -> set[str]:
    """The titles a source lists for ``person``: Crossref only registers DOIs, arXiv only
    lists what is on arXiv."""
    papers = server.data.papers(person)
    if source == "crossref":
        papers = [p for p in papers if p.doi]
    if source == "arxiv":
        papers = [p for p in papers if p.arxiv_id]
    return {p.title for p in papers}


def run(server: HarvestServer, person: HarvestPerson, **overrides) -> dict[str, SourceOutcome]:
    outcomes = harvest_person(person.ids(), settings_for(server, **overrides))
    return {outcome.source: outcome for outcome in outcomes}


def test_every_source_has_a_default_and_a_test_shape() -> None:
    assert set(SOURCES) == set(config.DIRECTORY_HARVEST_SOURCES) == set(SOURCE_PREFIXES)


@pytest.mark.parametrize("source", SOURCES)
def test_a_full_harvest_per_source(server: HarvestServer, source: str) -> None:
    outcome = run(server, PERSON, sources={source: server.sources[source]})[source]
    assert outcome.errors == [] and not outcome.skipped
    assert {w.title for w in outcome.works} == expected_works(server, source, PERSON)
    assert len(outcome.works) == len({w.source_key for w in outcome.works})
    assert outcome.calls == len(server.requests_to(source)) >= 1
    assert outcome.bytes_read > 0
    papers = {p.title: p for p in server.data.papers(PERSON)}
    for work in outcome.works:
        paper = papers[work.title]
        assert (work.source, work.year) == (source, paper.year)
        assert work.doi == paper.doi
        if source in TELL_ARXIV_IDS or (source == "orcid" and paper.type == "preprint"):
            assert work.arxiv_id == paper.arxiv_id
        assert [a.name for a in work.authors] == [a.name for a in paper.authors]


@pytest.mark.parametrize("source", PAGED_CALLS)
def test_paging_reads_every_page_once(server: HarvestServer, source: str) -> None:
    server.data.set_papers(PROLIFIC, _many(server))
    outcome = run(server, PROLIFIC, sources={source: server.sources[source]})[source]
    assert outcome.errors == []
    assert len(outcome.works) == len({w.source_key for w in outcome.works})
    assert {w.title for w in outcome.works} == expected_works(server, source, PROLIFIC)
    assert outcome.calls == PAGED_CALLS[source] == len(server.requests_to(source))


def _many(server: HarvestServer) -> list:
    """PROLIFIC_WORKS papers, every one with a DOI (so Crossref lists them all)."""
    papers = []
    for n in range(PROLIFIC_WORKS):
        base = server.data.papers(PEOPLE[n % len(PEOPLE)])[n % 15]
        papers.append(
            replace(
                base,
                number=900_000 + n,
                title=f"{base.title} v{n}",
                doi=f"10.5555/prolific.{n}",
                type="journal",
            )
        )
    return papers


def test_orcid_asks_for_at_most_100_put_codes_a_call(server: HarvestServer) -> None:
    server.data.set_papers(PROLIFIC, _many(server))
    run(server, PROLIFIC, sources={"orcid": server.sources["orcid"]})
    bulk = [r.path.rsplit("/", 1)[1].split(",") for r in server.requests_to("orcid")[1:]]
    assert [len(codes) for codes in bulk] == [100, 100, 30]
    assert len({code for codes in bulk for code in codes}) == PROLIFIC_WORKS


#: Each fault, how the server is told, and the words its outcome records.
FAULT_CASES = {
    "timeout": ({"kind": "timeout"}, r"timed out"),
    "429 then fine": ({"kind": "429", "times": 1, "retry_after": "1"}, r"HTTP 429, waited 1 s"),
    "429 too long": ({"kind": "429", "retry_after": "3600"}, r"asked to wait 3600 s"),
    "500": ({"kind": "500"}, r"HTTP 500"),
    "malformed": ({"kind": "malformed"}, r"not JSON|not well-formed XML"),
    "10 MB answer": ({"kind": "huge"}, r"passed the 1000000 byte limit; reading stopped"),
    "10 MB declared": ({"kind": "huge-declared"}, r"over the 1000000 byte limit"),
    "gzip bomb": ({"kind": "gzip-bomb"}, r"passed the 1000000 byte limit; reading stopped"),
    "429 without Retry-After": (
        {"kind": "429", "times": 1, "retry_after": None},
        r"HTTP 429, waited 2 s and asked again",
    ),
    "redirect off host": ({"kind": "redirect"}, r"redirect to another host \(localhost:\d+\)"),
    "slow drip": ({"kind": "drip"}, r"still arriving after 3 s"),
}
assert {case["kind"] for case, _words in FAULT_CASES.values()} == set(FAULTS)


@pytest.mark.parametrize("fault", FAULT_CASES)
@pytest.mark.parametrize("source", SOURCES)
def test_each_fault_is_recorded_and_survived(
    server: HarvestServer, source: str, fault: str
) -> None:
    options, words = FAULT_CASES[fault]
    server.fault(source, **options)
    started = time.monotonic()
    outcomes = run(server, PERSON)
    assert time.monotonic() - started < BOUND
    faulty = outcomes[source]
    assert any(re.search(words, error) for error in faulty.errors), faulty.errors
    if fault in ("429 then fine", "429 without Retry-After"):
        assert {w.title for w in faulty.works} == expected_works(server, source, PERSON)
    else:
        assert faulty.works == []
    for name, outcome in outcomes.items():
        if name != source:
            assert outcome.errors == [], (name, outcome.errors)
            assert {w.title for w in outcome.works} == expected_works(server, name, PERSON)
    if fault == "redirect off host":
        assert [r for r in server.requests if r.host.startswith("localhost")] == []


@pytest.mark.parametrize("source", PAGED_CALLS)
def test_a_fault_after_the_first_page_keeps_the_works_read(
    server: HarvestServer, source: str
) -> None:
    server.data.set_papers(PROLIFIC, _many(server))
    server.fault(source, "500", after=1)
    outcome = run(server, PROLIFIC, sources={source: server.sources[source]})[source]
    assert len(outcome.errors) == (3 if source == "orcid" else 1), outcome.errors
    assert all("HTTP 500" in error for error in outcome.errors)
    if source == "orcid":
        # The works whose details failed are kept as the summary told them.
        assert len(outcome.works) == PROLIFIC_WORKS
        assert all(w.authors == () for w in outcome.works)
    else:
        assert 0 < len(outcome.works) < PROLIFIC_WORKS
        assert "page 2" in outcome.errors[0]


@pytest.mark.parametrize("source", SOURCES)
def test_a_redirect_on_the_sources_host_is_followed(server: HarvestServer, source: str) -> None:
    server.fault(source, "redirect-same-host", times=1)
    outcome = run(server, PERSON, sources={source: server.sources[source]})[source]
    assert outcome.errors == []
    assert {w.title for w in outcome.works} == expected_works(server, source, PERSON)


@pytest.mark.parametrize("source", SOURCES)
def test_the_contact_address_and_keys_are_sent(server: HarvestServer, source: str) -> None:
    keys = {"openalex": "oa-key", "semantic_scholar": "s2-key"}
    run(server, PERSON, sources={source: server.sources[source]}, api_keys=keys)
    requests = server.requests_to(source)
    assert requests
    for request in requests:
        assert f"mailto:{CONTACT}" in request.headers["User-Agent"]
        if source in ("openalex", "crossref"):
            assert request.query["mailto"] == [CONTACT]
        if source == "openalex":
            assert request.query["api_key"] == ["oa-key"]
            assert int(request.query["per-page"][0]) <= 100
        if source == "semantic_scholar":
            assert request.headers["x-api-key"] == "s2-key"
        if source == "crossref":
            assert request.query["filter"] == [f"orcid:{PERSON.orcid}"]  # never by name


@pytest.mark.parametrize("source", SOURCES)
def test_the_pause_between_calls_to_a_source_is_kept(server: HarvestServer, source: str) -> None:
    settings = settings_for(
        server, sources={source: server.sources[source]}, pacer=Pacer({source: 0.3})
    )
    with make_client(settings) as client:
        for person in PEOPLE[:2]:
            harvest_person(person.ids(), settings, client)
    times = [r.at for r in server.requests_to(source)]
    assert len(times) >= 2
    assert all(later - earlier >= 0.29 for earlier, later in zip(times, times[1:], strict=False))


def test_a_person_without_an_identifier_is_skipped_and_orcid_stands_in(
    server: HarvestServer,
) -> None:
    only_orcid = HarvestPerson("only-orcid", PERSON.name, orcid=PERSON.orcid)
    server.data.add_person(only_orcid, server.data.papers(PERSON))
    outcomes = run(server, only_orcid)
    assert {n for n, o in outcomes.items() if o.skipped} == {"dblp", "semantic_scholar"}
    assert server.requests_to("dblp") == server.requests_to("semantic_scholar") == []
    assert server.requests_to("openalex")[0].query["filter"] == [f"author.orcid:{PERSON.orcid}"]
    assert {w.found_by for w in outcomes["openalex"].works} == {"orcid"}
    assert {w.title for w in outcomes["arxiv"].works} == expected_works(server, "arxiv", PERSON)


def test_a_source_left_out_is_not_asked(server: HarvestServer) -> None:
    sources = {k: v for k, v in server.sources.items() if k != "crossref"}
    outcomes = run(server, PERSON, sources=sources)
    assert "crossref" not in outcomes and server.requests_to("crossref") == []
    assert configured_sources(settings_for(server, sources=sources), ["dblp", "crossref"]) == [
        "dblp"
    ]


def test_the_works_limit_stops_paging_with_a_message(server: HarvestServer) -> None:
    server.data.set_papers(PROLIFIC, _many(server))
    outcome = run(
        server, PROLIFIC, sources={"openalex": server.sources["openalex"]}, max_works=100
    )["openalex"]
    assert len(outcome.works) == 100
    assert outcome.errors == ["the OpenAlex works: stopped after 100 works (the limit is 100)"]


def test_the_source_deadline_bounds_a_slow_source(server: HarvestServer) -> None:
    """Every page answered, but slowly: the source stops at its deadline, the pages read kept."""
    server.data.set_papers(PROLIFIC, _many(server))
    settings = settings_for(
        server,
        sources={"semantic_scholar": server.sources["semantic_scholar"]},
        source_deadline=0.5,
        pacer=Pacer({"semantic_scholar": 0.3}),
    )
    started = time.monotonic()
    outcome = harvest_person(PROLIFIC.ids(), settings)[0]
    assert time.monotonic() - started < BOUND
    assert any("deadline for this source has passed" in e for e in outcome.errors)
    assert 0 < len(outcome.works) < PROLIFIC_WORKS


def test_settings_come_from_the_apps_config() -> None:
    app = make_app(DIRECTORY_MAIL_SENDER="directory@dept.example")
    settings = HarvestSettings.from_config(app.config)
    assert settings.sources == config.DIRECTORY_HARVEST_SOURCES
    assert settings.contact == "directory@dept.example"
    assert settings.pacer.pauses == {"dblp": 1.0, "arxiv": 3.0}
    assert "mailto:directory@dept.example" in settings.user_agent
    app = make_app(DIRECTORY_HARVEST_CONTACT="library@dept.example", DIRECTORY_HARVEST_SOURCES={})
    settings = HarvestSettings.from_config(app.config)
    assert (settings.contact, configured_sources(settings)) == ("library@dept.example", [])


@pytest.mark.parametrize("source", SOURCES)
def test_an_identifier_the_source_does_not_know_is_said(server: HarvestServer, source: str) -> None:
    stranger = HarvestPerson(
        "unknown",
        "Nobody Known",
        orcid=orcid_for(31337),
        dblp="0/0",
        openalex="A1",
        semantic_scholar="1",
    )
    outcome = run(server, stranger, sources={source: server.sources[source]})[source]
    assert outcome.works == []
    if source in ("openalex", "crossref"):  # a filter that matches nothing: an empty list
        assert outcome.errors == []
    else:
        assert outcome.errors and "knows no such identifier" in outcome.errors[0]
