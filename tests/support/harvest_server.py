"""A real HTTP server on the loopback interface that answers as the harvest's sources do.

Each source lives under its own path prefix (:meth:`HarvestServer.sources` gives the
DIRECTORY_HARVEST_SOURCES that point at it) and answers in the shape its public
documentation describes: ORCID API v3.0 (works summary, bulk works by put codes), OpenAlex and
Crossref ``/works`` with cursor paging, DBLP ``/pid/{pid}.xml``, arXiv author feeds
``/a/{id}.atom2`` and Semantic Scholar ``/graph/v1/author/{id}/papers`` with offset paging.
The works are generated in code, deterministically, from the people it is given
(:class:`HarvestData`); no third-party data.

:meth:`HarvestServer.fault` makes a source misbehave (see :data:`FAULTS`), and every request
is logged (:attr:`HarvestServer.requests`) for tests to read what was asked and sent.

In a test or a benchmark::

    with harvest_server(generated_people(1750), works_per_source=15) as server:
        app.config["DIRECTORY_HARVEST_SOURCES"] = server.sources
        app.config["DIRECTORY_HARVEST_PAUSES"] = {}  # the server is local
        server.data.set_papers(person, [Paper(...)])  # a case of the test's own
        server.fault("crossref", "500", after=1)  # the second call on fails

``python -m tests.support.harvest_server`` serves the same from a process of its own
(:func:`main`), so that a benchmark's CPU figures leave the server's out.
"""

from __future__ import annotations

import gzip
import json
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.harvest_data import (
    Author,
    HarvestData,
    HarvestPerson,
    Paper,
    generated_people,
    orcid_for,
)
from tests.support.harvest_shapes import (
    arxiv_feed,
    crossref_item,
    cursor_for,
    dblp_person,
    offset_of,
    openalex_work,
    orcid_bulk,
    orcid_summary,
    s2_paper,
)

__all__ = [
    "FAULTS",
    "Author",
    "HarvestData",
    "HarvestPerson",
    "HarvestServer",
    "Paper",
    "generated_people",
    "harvest_server",
    "orcid_for",
]

#: Every fault a source can be made to show.
FAULTS = (
    "timeout",  # the answer's headers never come (until the client gives up)
    "429",  # HTTP 429 with Retry-After
    "500",  # HTTP 500
    "malformed",  # a truncated JSON or XML body
    "huge",  # a 10 MB answer, streamed without a Content-Length
    "huge-declared",  # a 10 MB answer with its Content-Length
    "gzip-bomb",  # 10 KB of gzip that inflates to 10 MB
    "redirect",  # 302 to another host
    "drip",  # a body that trickles in a byte at a time
)
SOURCE_PREFIXES = {
    "orcid": "/orcid/v3.0",
    "openalex": "/openalex",
    "crossref": "/crossref",
    "dblp": "/dblp",
    "arxiv": "/arxiv",
    "semantic_scholar": "/s2/graph/v1",
}
#: Sources answering XML (their malformed answer is broken XML, the others' broken JSON).
XML_SOURCES = ("dblp", "arxiv")
HUGE_BYTES = 10 * 1024 * 1024


# -- the server -----------------------------------------------------------------------------


@dataclass
class LoggedRequest:
    source: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    host: str
    at: float


@dataclass
class Fault:
    kind: str
    #: Requests to the source answered normally before the fault starts.
    after: int = 0
    #: Requests that get the fault (``None``: every one from then on).
    times: int | None = None
    #: The Retry-After header of a 429 (``None``: none sent).
    retry_after: str | None = "1"
    seen: int = 0
    served: int = 0


@dataclass
class Answer:
    status: int
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


class _Server(ThreadingHTTPServer):
    """A client that gives up on a fault (a timeout, a drip) closes its connection, and the
    server's next read of it fails: that is the fault doing its work, not the server's error,
    so it is not printed to the test run's output. Any other error is, as by default."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionResetError | BrokenPipeError):
            return
        super().handle_error(request, client_address)


class HarvestServer:
    """The server's state: the data, the faults, the request log (see the module docstring)."""

    def __init__(self, data: HarvestData, hang: float = 3.0) -> None:
        self.data = data
        #: Longest a timeout or drip fault keeps the connection (the client gives up first).
        self.hang = hang
        self.faults: dict[str, Fault] = {}
        self.requests: list[LoggedRequest] = []
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.httpd = _Server(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"

    @property
    def sources(self) -> dict[str, str]:
        """DIRECTORY_HARVEST_SOURCES pointing at this server."""
        return {name: self.base + prefix for name, prefix in SOURCE_PREFIXES.items()}

    def fault(self, source: str, kind: str, **options: Any) -> Fault:
        assert kind in FAULTS or kind == "redirect-same-host", kind
        self.faults[source] = Fault(kind, **options)
        return self.faults[source]

    def clear_faults(self) -> None:
        self.faults.clear()

    def requests_to(self, source: str) -> list[LoggedRequest]:
        return [r for r in self.requests if r.source == source]

    # -- answering ---------------------------------------------------------------------------

    def source_of(self, path: str) -> tuple[str, str] | None:
        for name, prefix in SOURCE_PREFIXES.items():
            if path.startswith(prefix + "/"):
                return name, path[len(prefix) :]
        return None

    def take_fault(self, source: str, query: dict[str, list[str]]) -> Fault | None:
        with self.lock:
            fault = self.faults.get(source)
            if fault is None or "_moved" in query:
                return None
            fault.seen += 1
            if fault.seen <= fault.after or (
                fault.times is not None and fault.served >= fault.times
            ):
                return None
            fault.served += 1
            return fault

    def answer(self, source: str, rest: str, query: dict[str, list[str]]) -> Answer:
        return ANSWERS[source](self.data, rest, {k: v[0] for k, v in query.items()})


def _json(status: int, data: Any) -> Answer:
    return Answer(status, json.dumps(data).encode())


def _person(data: HarvestData, kind: str, value: str) -> HarvestPerson | None:
    return data.by_id.get((kind, value))


def _answer_orcid(data: HarvestData, rest: str, query: dict[str, str]) -> Answer:
    parts = rest.strip("/").split("/")
    person = _person(data, "orcid", parts[0]) if len(parts) >= 2 and parts[1] == "works" else None
    if person is None:
        return _json(
            404, {"response-code": 404, "developer-message": "404 Not Found", "error-code": 9016}
        )
    papers = data.papers(person)
    if len(parts) == 2:
        return _json(200, orcid_summary(person, papers))
    codes = parts[2].split(",")
    if len(codes) > 100:
        return _json(
            400,
            {
                "response-code": 400,
                "developer-message": "Too many put codes: at most 100",
                "error-code": 9006,
            },
        )
    return _json(200, orcid_bulk(person, papers, codes))


def _page(
    query: dict[str, str], size_name: str, default: int, limit: int
) -> tuple[int, int] | None:
    size = int(query.get(size_name) or query.get(size_name.replace("-", "_")) or default)
    offset = offset_of(query.get("cursor"))
    if offset is None or not 1 <= size <= limit:
        return None
    return offset, size


def _answer_openalex(data: HarvestData, rest: str, query: dict[str, str]) -> Answer:
    kind, _, value = (query.get("filter") or "").partition(":")
    field_kind = {
        "author.id": "openalex",
        "authorships.author.id": "openalex",
        "author.orcid": "orcid",
        "authorships.author.orcid": "orcid",
    }.get(kind)
    paging = _page(query, "per-page", 25, 200)
    if rest != "/works" or field_kind is None or paging is None:
        return _json(400, {"error": "Invalid query parameters", "message": "bad filter or paging"})
    person = _person(data, field_kind, value.removeprefix("https://orcid.org/"))
    papers = data.papers(person) if person else []
    offset, size = paging
    page = papers[offset : offset + size]
    cursor = cursor_for(offset + size) if offset + size < len(papers) else None
    meta = {
        "count": len(papers),
        "db_response_time_ms": 3,
        "page": None,
        "per_page": size,
        "next_cursor": cursor,
    }
    return _json(200, {"meta": meta, "results": [openalex_work(p) for p in page], "group_by": []})


def _answer_crossref(data: HarvestData, rest: str, query: dict[str, str]) -> Answer:
    kind, _, value = (query.get("filter") or "").partition(":")
    paging = _page(query, "rows", 20, 1000)
    if rest != "/works" or kind != "orcid" or paging is None:
        return _json(
            400,
            {
                "status": "failed",
                "message-type": "validation-failure",
                "message": [{"type": "filter-not-available", "message": "bad filter"}],
            },
        )
    person = _person(data, "orcid", value)
    papers = [p for p in (data.papers(person) if person else []) if p.doi]
    offset, size = paging
    page = papers[offset : offset + size]
    message = {
        "facets": {},
        "next-cursor": cursor_for(offset + size),
        "total-results": len(papers),
        "items": [crossref_item(p) for p in page],
        "items-per-page": size,
        "query": {"start-index": 0, "search-terms": None},
    }
    return _json(
        200,
        {
            "status": "ok",
            "message-type": "work-list",
            "message-version": "1.0.0",
            "message": message,
        },
    )


def _answer_dblp(data: HarvestData, rest: str, query: dict[str, str]) -> Answer:
    pid = rest.removeprefix("/pid/").removesuffix(".xml")
    person = (
        _person(data, "dblp", pid) if rest.startswith("/pid/") and rest.endswith(".xml") else None
    )
    if person is None:
        return Answer(404, b"<html><body>Error 404: not found</body></html>", "text/html")
    return Answer(200, dblp_person(person, data.papers(person)).encode(), "application/xml")


def _answer_arxiv(data: HarvestData, rest: str, query: dict[str, str]) -> Answer:
    author = rest.removeprefix("/a/").removesuffix(".atom2")
    person = _person(data, "arxiv", author) or _person(data, "orcid", author)
    if not rest.startswith("/a/") or person is None:
        return Answer(404, b"<html><body>No such author</body></html>", "text/html")
    return Answer(200, arxiv_feed(person, data.papers(person)).encode(), "application/atom+xml")


def _answer_s2(data: HarvestData, rest: str, query: dict[str, str]) -> Answer:
    parts = rest.strip("/").split("/")
    person = (
        _person(data, "semantic_scholar", parts[1])
        if len(parts) == 3 and parts[0] == "author" and parts[2] == "papers"
        else None
    )
    if person is None:
        return _json(404, {"error": "Author not found"})
    offset, limit = int(query.get("offset") or 0), int(query.get("limit") or 100)
    if not 1 <= limit <= 1000:
        return _json(400, {"error": "limit must be <= 1000"})
    papers = data.papers(person)
    answer: dict[str, Any] = {
        "offset": offset,
        "data": [s2_paper(p) for p in papers[offset : offset + limit]],
    }
    if offset + limit < len(papers):
        answer["next"] = offset + limit
    return _json(200, answer)


ANSWERS: dict[str, Callable[[HarvestData, str, dict[str, str]], Answer]] = {
    "orcid": _answer_orcid,
    "openalex": _answer_openalex,
    "crossref": _answer_crossref,
    "dblp": _answer_dblp,
    "arxiv": _answer_arxiv,
    "semantic_scholar": _answer_s2,
}


def _handler(server: HarvestServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes: without this, Nagle's algorithm and the
        # client's delayed ACK hold every answer back by 40 ms.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            found = server.source_of(parts.path)
            if found is None:
                self._send(Answer(404, b"not found", "text/plain"))
                return
            source, rest = found
            server.requests.append(
                LoggedRequest(
                    source,
                    parts.path,
                    query,
                    dict(self.headers),
                    self.headers.get("Host", ""),
                    time.monotonic(),
                )
            )
            try:
                fault = server.take_fault(source, query)
                if fault is not None:
                    self._fault(source, fault)
                else:
                    self._send(server.answer(source, rest, query))
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _send(self, answer: Answer, length: int | None = None) -> None:
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(answer.body) if length is None else length))
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(answer.body)

        def _fault(self, source: str, fault: Fault) -> None:
            kind = fault.kind
            if kind == "timeout":
                server.stopping.wait(server.hang)
                self.close_connection = True
            elif kind == "429":
                self._send(
                    Answer(
                        429,
                        b'{"message": "Too Many Requests"}',
                        headers={"Retry-After": fault.retry_after} if fault.retry_after else {},
                    )
                )
            elif kind == "gzip-bomb":
                body = gzip.compress(b" " * HUGE_BYTES)
                self._send(Answer(200, body, headers={"Content-Encoding": "gzip"}))
            elif kind == "500":
                self._send(Answer(500, b"Internal Server Error", "text/plain"))
            elif kind == "malformed":
                body = (
                    b'<?xml version="1.0"?><dblpperson><r><article key="x"><title>Cut'
                    if source in XML_SOURCES
                    else b'{"group": [{"work-summary": [{"put-code": 1,'
                )
                self._send(
                    Answer(
                        200,
                        body,
                        "application/xml" if source in XML_SOURCES else "application/json",
                    )
                )
            elif kind in ("redirect", "redirect-same-host"):
                host = "localhost" if kind == "redirect" else "127.0.0.1"
                sep = "&" if "?" in self.path else "?"
                target = f"http://{host}:{server.port}{self.path}{sep}_moved=1"
                self._send(Answer(302, b"", "text/plain", {"Location": target}))
            else:
                self._stream(kind)

        def _stream(self, kind: str) -> None:
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if kind != "huge":  # a drip declares a modest length, and never reaches it
                self.send_header(
                    "Content-Length", str(HUGE_BYTES if kind == "huge-declared" else 4096)
                )
            self.send_header("Connection", "close")
            self.end_headers()
            if kind == "drip":
                ends = time.monotonic() + server.hang
                self.wfile.write(b'{"results": [')
                while time.monotonic() < ends and not server.stopping.wait(0.05):
                    self.wfile.write(b" ")
                return
            chunk = b" " * 65536
            self.wfile.write(b'{"results": [')
            for _ in range(HUGE_BYTES // len(chunk)):
                self.wfile.write(chunk)

    return Handler


@contextmanager
def harvest_server(
    people: Iterable[HarvestPerson] = (), works_per_source: int = 15, hang: float = 3.0
) -> Iterator[HarvestServer]:
    """The server on 127.0.0.1 (a free port), serving ``works_per_source`` generated works
    per person per source, stopped on leaving."""
    server = HarvestServer(HarvestData(people, works_per_source), hang=hang)
    thread = threading.Thread(
        target=server.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.httpd.shutdown()
        server.httpd.server_close()
        thread.join(5)


def main(argv: list[str] | None = None) -> None:
    """``python -m tests.support.harvest_server --people N --works K``: serve the generated
    department in this process (so that a benchmark's CPU figures are the client's own),
    printing ``ready <base URL>`` once listening; stops when its standard input closes.
    ``--people-file`` serves the people of a JSON list instead (each an object with
    HarvestPerson's fields: ``key``, ``name``, ``orcid``, ``dblp``, ``openalex``, …)."""
    import argparse
    import sys
    from pathlib import Path

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--people", type=int, default=1750)
    parser.add_argument("--people-file", type=Path)
    parser.add_argument("--works", type=int, default=15)
    args = parser.parse_args(argv)
    if args.people_file:
        people = [HarvestPerson(**item) for item in json.loads(args.people_file.read_text())]
    else:
        people = generated_people(args.people)
    with harvest_server(people, args.works) as server:
        print(f"ready {server.base}", flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
