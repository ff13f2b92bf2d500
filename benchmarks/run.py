"""``make bench``: a synthetic department, then for each page of
tests/support/measured_pages.py the SQL statements per request, the in-process server time,
and requests per second under gunicorn (2 workers) driven by wrk, beside a trivial endpoint
of the same app in the same run.

    python benchmarks/run.py                      # the issue's sizes, SQLite file
    python benchmarks/run.py --small              # a tenth of that, for a quick look
    python benchmarks/run.py --db postgresql+psycopg://postgres@127.0.0.1:5432/bench

The database given with --db is emptied (its directory tables are dropped and re-created).
Prints Markdown, ready for docs/performance.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import os
import platform
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``benchmarks`` and ``wsgi`` importable
    sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select, text  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from directory import migrate  # noqa: E402
from directory import models as m  # noqa: E402
from directory.db import make_engine  # noqa: E402
from directory.services import search_index  # noqa: E402
from directory.services.identity import (  # noqa: E402
    BUILTIN_GENERATION_KEY,
    BUILTIN_SESSION_KEY,
    BUILTIN_TOKEN_KEY,
)
from tests.support.measured_pages import PAGES, VIEWER_KEYS, Page  # noqa: E402
from tests.support.statements import count_rows, count_statements  # noqa: E402
from tests.support.synthetic import (  # noqa: E402
    SMALL,
    Sizes,
    Summary,
    bind_viewers,
    department_facts,
    generate,
)

TRIVIAL = "/bench/trivial"
CACHE_SECONDS = 300


@dataclass
class Result:
    page: Page
    url: str
    available: bool = True
    statements: int = 0
    statements_cached: int | None = None
    rows: int = 0
    cpu_ms: list[float] = field(default_factory=list)
    wall_ms: list[float] = field(default_factory=list)
    cpu_cached_ms: list[float] = field(default_factory=list)
    html_bytes: int = 0
    gzip_bytes: int = 0
    rps: dict[str, float] = field(default_factory=dict)
    trivial_rps: dict[str, float] = field(default_factory=dict)
    file_rps: float | None = None
    #: The median of the rounds' ratios: page / trivial endpoint, cached page / send_file.
    ratio: dict[str, float] = field(default_factory=dict)
    file_ratio: float | None = None
    rounds: int = 0
    errors: dict[str, int] = field(default_factory=dict)


def machine() -> str:
    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"model name\s*:\s*(.+)", cpuinfo.read_text())
        cpu = found.group(1).strip() if found else cpu
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        found = re.search(r"MemTotal:\s*(\d+) kB", meminfo.read_text())
        memory = f", {int(found.group(1)) / 1024 / 1024:.0f} GB RAM" if found else ""
    return (
        f"{os.cpu_count()} cores ({cpu}){memory}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}"
    )


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def free_port(preferred: int) -> int:
    for port in range(preferred, preferred + 50):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError("no free port")


# ----------------------------------------------------------------------------- in process


def prepare_viewers(url_db: str) -> None:
    """Accounts for the signed-in pages: the owner of the largest profile, a member bound to
    no profile, the admin (passwords random: the benchmark signs in through the session)."""
    from benchmarks.app import make_app
    from directory.db import get_session
    from directory.services.accounts import new_password, save_account, start_session

    app = make_app(DIRECTORY_DATABASE_URL=url_db)
    with app.app_context():
        session = get_session()
        bind_viewers(session, department_facts(session), VIEWER_KEYS)
        for key in VIEWER_KEYS.values():
            account, _created = save_account(session, key, new_password())
            session.flush()
            SESSION_GENERATIONS[key] = account.session_generation
            SESSION_TOKENS[key] = start_session(account)
        session.commit()
    app.extensions["directory"].db.dispose()


#: The session generation of each viewer's account: a built-in session names it beside the
#: username (one issued before the account last signed out is refused).
SESSION_GENERATIONS: dict[str, int] = {}
#: The token of each viewer's open session (a built-in session names it too: one signed out
#: of, or never started on the server, signs nobody in).
SESSION_TOKENS: dict[str, str] = {}


def signed_in(viewer: str) -> dict[str, Any]:
    """What a built-in sign-in as ``viewer`` puts in the session."""
    key = VIEWER_KEYS[viewer]
    return {
        BUILTIN_SESSION_KEY: key,
        BUILTIN_GENERATION_KEY: SESSION_GENERATIONS[key],
        BUILTIN_TOKEN_KEY: SESSION_TOKENS[key],
    }


def session_cookie(app: Any, viewer: str | None) -> str | None:
    """The signed session cookie of a built-in sign-in as ``viewer`` (for wrk)."""
    if viewer is None:
        return None
    value = app.session_interface.get_signing_serializer(app).dumps(signed_in(viewer))
    return f"{app.config['SESSION_COOKIE_NAME']}={value}"


def _timed(client: Any, url: str, requests: int, budget: float) -> tuple[list[float], list[float]]:
    """CPU and wall milliseconds of up to ``requests`` GETs, fewer (at least three) when they
    use more than ``budget`` CPU seconds in all: a slow page must not hold the run up."""
    cpu, wall = [], []
    spent = 0.0
    for _ in range(requests):
        started, started_cpu = time.perf_counter(), time.process_time()
        client.get(url)
        cpu.append((time.process_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
        spent += cpu[-1] / 1000
        if spent > budget and len(cpu) >= 3:
            break
    return cpu, wall


def measure_in_process(
    url_db: str, requests: int, budget: float, files: Path
) -> tuple[list[Result], Any]:
    from benchmarks.app import make_app

    app = make_app(DIRECTORY_DATABASE_URL=url_db, DIRECTORY_CACHE_SECONDS=0)
    engine = app.extensions["directory"].db.engine
    prefix = app.config["DIRECTORY_URL_PREFIX"].rstrip("/")
    with Session(engine) as session:
        facts = department_facts(session)
    results = []
    for number, page in enumerate(PAGES):
        client = app.test_client()
        if page.viewer:
            with client.session_transaction() as sess:
                sess.update(signed_in(page.viewer))
        url = prefix + page.path(facts)
        result = Result(page, url)
        results.append(result)
        print(f"  {page.name}: {url}", file=sys.stderr)
        if client.get(url).status_code == 404:
            result.available = False
            continue
        with count_statements(engine) as log, count_rows(log):
            response = client.get(url)
        # A signed-in page that answers anything else (a sign-in redirect) is not measured.
        assert response.status_code == 200, (url, response.status_code, response.location)
        result.statements, result.rows = len(log), log.rows
        result.html_bytes = len(response.data)
        gzipped = gzip.compress(response.data, compresslevel=6, mtime=0)
        result.gzip_bytes = len(gzipped)
        (files / f"{number}.gz").write_bytes(gzipped)
        result.cpu_ms, result.wall_ms = _timed(client, url, requests, budget)

        if page.cached:
            app.config["DIRECTORY_CACHE_SECONDS"] = CACHE_SECONDS
            client.get(url)
            with count_statements(engine) as log:
                response = client.get(url)
            if response.headers.get("X-Directory-Cache") == "hit":
                result.statements_cached = len(log)
                result.cpu_cached_ms, _ = _timed(client, url, max(requests, 50), budget)
            app.config["DIRECTORY_CACHE_SECONDS"] = 0
    app.extensions["directory"].db.dispose()
    return results, facts


# ----------------------------------------------------------------------------- gunicorn + wrk


@contextmanager
def gunicorn(
    url_db: str, port: int, cache_seconds: int, files: Path, extra_env: dict | None = None
):
    env = {
        **os.environ,
        "DIRECTORY_DATABASE_URL": url_db,
        "DIRECTORY_CACHE_SECONDS": str(cache_seconds),
        "PYTHONPATH": str(ROOT),
        "BENCH_FILES": str(files),
        **(extra_env or {}),
    }
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "--workers=2",
        f"--bind=127.0.0.1:{port}",
        "--log-level=warning",
        "benchmarks.app:app",
    ]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{TRIVIAL}", timeout=1)  # noqa: S310
                break
            except OSError:
                time.sleep(0.2)
        else:
            raise RuntimeError("gunicorn did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def wrk(url: str, seconds: int, cookie: str | None = None) -> tuple[float, int]:
    """Requests per second, and responses that were not 2xx/3xx (or socket errors). Requests
    accept gzip, as every browser's do."""
    headers = ["-H", "Accept-Encoding: gzip"] + (["-H", f"Cookie: {cookie}"] if cookie else [])
    output = subprocess.run(
        ["wrk", "-t2", "-c16", f"-d{seconds}s", "--timeout=30s", *headers, url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s*([\d.]+)", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", output)
    socket_errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    failed = int(errors.group(1)) if errors else 0
    if socket_errors:
        failed += sum(int(n) for n in socket_errors.groups())
    return rps, failed


def _median_ratio(values: list[float], yardsticks: list[float]) -> float:
    """The median of the rounds' ratios (each value over the yardstick of its round)."""
    return statistics.median([v / y for v, y in zip(values, yardsticks, strict=True)])


def measure_throughput(
    url_db: str, results: list[Result], port: int, seconds: int, files: Path, rounds: int
) -> None:
    """Each page right after the trivial endpoint, so that both see the same machine load; the
    ratio of the pair is the figure. A cached page is also measured against a ``send_file`` of
    the bytes its cache hit sends. Cached, the three alternate ``rounds`` times (yardstick,
    page, file, yardstick, page, file, ...) and each figure is the median of its rounds, each
    ratio the median of the rounds' ratios: a burst of load on the shared machine moves one
    round, not the figure. Uncached pages (whose figure is their CPU time) get one round."""
    from benchmarks.app import make_app

    cookie_app = make_app(DIRECTORY_DATABASE_URL=url_db)
    for mode, cache_seconds in (("cached", CACHE_SECONDS), ("uncached", 0)):
        with gunicorn(url_db, port, cache_seconds, files) as base:
            for number, result in enumerate(results):
                if not result.available or (mode == "cached" and not result.page.cached):
                    continue
                cookie = session_cookie(cookie_app, result.page.viewer)
                request = urllib.request.Request(base + result.url)  # noqa: S310
                if cookie:
                    request.add_header("Cookie", cookie)
                for _ in range(4):  # both workers render (and cache) the page first
                    urllib.request.urlopen(request, timeout=300)  # noqa: S310
                trivial, page, file, failed = [], [], [], 0
                for _ in range(rounds if mode == "cached" else 1):
                    trivial.append(wrk(base + TRIVIAL, seconds)[0])
                    rps, errors = wrk(base + result.url, seconds, cookie)
                    page.append(rps)
                    failed += errors
                    if mode == "cached":
                        file.append(wrk(f"{base}/bench/file/{number}", seconds)[0])
                result.trivial_rps[mode] = statistics.median(trivial)
                result.rps[mode] = statistics.median(page)
                result.errors[mode] = failed
                result.ratio[mode] = _median_ratio(page, trivial)
                if mode == "cached":
                    result.file_rps = statistics.median(file)
                    result.file_ratio = _median_ratio(page, file)
                    result.rounds = len(page)
    cookie_app.extensions["directory"].db.dispose()


# ----------------------------------------------------------------------------- BibTeX import


def measure_bibtex(url_db: str, entries: int) -> dict[str, float]:
    """The publications module's BibTeX import (parse_bibtex, plan_import = the preview,
    apply_plan = the write) of a few-thousand-entry file into the largest profile of the big
    department (rolled back each time), against bibtexparser's ``parse_string`` of the same
    file: CPU time (``time.process_time``, the steadier figure on a shared machine; the goal
    is stated in it), best of three rounds that alternate the two, so that a busy machine
    slows both alike. The file is benchmarks/bench_bibtex_import.py's realistic one."""
    import bibtexparser
    from sqlalchemy import select

    from benchmarks.app import make_app
    from directory import models as m
    from directory.db import get_session
    from directory.formats.bibtex.parse import parse_bibtex
    from directory.services.pubimport.decisions import decision_choices
    from directory.services.pubimport.planning import plan_import
    from directory.services.pubimport.writing import apply_plan
    from tests.support.bibtex_samples import make_bibtex

    text = make_bibtex(entries)
    app = make_app(DIRECTORY_DATABASE_URL=url_db)
    with app.app_context():
        session = get_session()
        facts = department_facts(session)
        slug = facts.largest_profile

        def bare() -> None:
            bibtexparser.parse_string(text)

        def parse_only() -> None:
            parse_bibtex(text)

        def ours() -> None:
            person = session.scalar(select(m.Person).where(m.Person.slug == slug))
            result = parse_bibtex(text)
            plan = plan_import(session, person, result.entries, result.problems)
            # A possible duplicate of a paper already there: take the first choice offered.
            decisions = {
                entry.index: decision_choices(entry, plan)[0][0]
                for entry in plan.entries
                if entry.needs_decision
            }
            apply_plan(session, plan, person, decisions)
            session.flush()
            session.rollback()

        runs: dict[str, list[float]] = {"bare": [], "parse": [], "ours": []}
        for _ in range(3):
            for name, fn in (("bare", bare), ("parse", parse_only), ("ours", ours)):
                started = time.process_time()
                fn()
                runs[name].append(time.process_time() - started)
        timings = {name: min(values) for name, values in runs.items()}
    app.extensions["directory"].db.dispose()
    return {"entries": entries, "bytes": len(text.encode()), **timings}


# ----------------------------------------------------------------------------- report


def report(results, facts, summary, bib, args, url_db, load) -> str:
    lines = [
        f"Machine: {machine()}. Load average before / after the run: {load}.",
        f"Database: {'PostgreSQL' if url_db.startswith('postgresql') else 'SQLite file'}; "
        f"{max(1, args.university)} department(s) of scale {args.scale:g}; "
        f"{summary.people} people, {summary.publications} publications, "
        f"{summary.authorships} authorships, {summary.rows} rows generated in "
        f"{summary.seconds:.1f} s; search index built ({summary.counts.get('search', 0)} "
        f"documents). Largest profile: {facts.largest_profile_publications} publications.",
        f"CPU ms: time.process_time per request through the Flask test client, up to "
        f"{args.requests} requests per page (at least 3; fewer once a page used "
        f"{args.budget:.0f} CPU s). Statements and rows: one uncached request (rows = rows "
        "fetched from the database). HTML: the uncached body, and gzipped. Throughput: "
        f"gunicorn --workers=2, `wrk -t2 -c16 -d{args.duration}s -H 'Accept-Encoding: gzip'`; "
        f"each page right after the trivial endpoint `{TRIVIAL}` of the same app (its req/s "
        "in brackets; the ratio is the figure) and, cached, beside a `send_file` of the same "
        f"gzipped bytes from the same app, the three alternated {args.rounds} times (medians "
        "of the rounds: req/s, and each ratio of the rounds' ratios; uncached, one round); "
        f"DIRECTORY_CACHE_SECONDS={CACHE_SECONDS} for the cached column.",
        "",
        "| Page | statements (hit) | rows | CPU ms p50 / p95 | CPU ms, hit | HTML KiB (gzip) | "
        "req/s cached [trivial; send_file] | req/s uncached [trivial] |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def throughput(result: Result, mode: str) -> str:
        if mode not in result.rps:
            return "–"
        rps, trivial, ratio = result.rps[mode], result.trivial_rps[mode], result.ratio[mode]
        text = f"{rps:.0f} [{trivial:.0f}] = {ratio:.2f}×"
        if mode == "cached" and result.file_rps:
            text = (
                f"{rps:.0f} [{trivial:.0f}; {result.file_rps:.0f}] = {ratio:.2f}×; "
                f"{result.file_ratio:.2f}×"
            )
        if result.errors.get(mode):
            text += f", {result.errors[mode]} errors"
        return text

    for r in results:
        signed = f" (as {r.page.viewer})" if r.page.viewer else ""
        if not r.available:
            lines.append(f"| {r.page.name}{signed} `{r.url}` | not available (404) |||||||")
            continue
        cached = "–" if r.statements_cached is None else str(r.statements_cached)
        hit_ms = f"{statistics.median(r.cpu_cached_ms):.2f}" if r.cpu_cached_ms else "–"
        lines.append(
            f"| {r.page.name}{signed} `{r.url}` | {r.statements} ({cached}) | {r.rows} | "
            f"{statistics.median(r.cpu_ms):.1f} / {percentile(r.cpu_ms, 0.95):.1f} | {hit_ms} | "
            f"{r.html_bytes / 1024:.0f} ({r.gzip_bytes / 1024:.0f}) | "
            f"{throughput(r, 'cached')} | {throughput(r, 'uncached')} |"
        )
    if bib:
        ratio = bib["ours"] / bib["bare"]
        lines += [
            "",
            f"BibTeX import of {bib['entries']} entries ({bib['bytes'] / 1024:.0f} KiB), CPU "
            f"seconds, best of 3: bibtexparser.parse_string {bib['bare']:.2f} s; our "
            f"parse_bibtex alone {bib['parse']:.2f} s = {bib['parse'] / bib['bare']:.2f}×; "
            f"parse + preview + write into the largest profile of this department "
            f"{bib['ours']:.2f} s = {ratio:.2f}× (goal ≤ 3×).",
        ]
    return "\n".join(lines)


def sizes(args: argparse.Namespace) -> Sizes:
    base = SMALL if args.small else Sizes()
    if args.scale == 1:
        return base
    return Sizes(**{k: max(1, round(v * args.scale)) for k, v in dataclasses.asdict(base).items()})


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def build(engine: Any, args: argparse.Namespace) -> Summary:
    """Empty the database and generate the department(s) and the search index into it."""
    migrate.downgrade(engine, "base")
    migrate.upgrade(engine)
    print("Generating the department...", file=sys.stderr)
    with Session(engine) as session:
        summary = generate(session, sizes(args))
        session.commit()
        for n in range(1, args.university):  # the other departments of a university
            print(f"  department {n + 1} of {args.university}...", file=sys.stderr)
            more = generate(session, sizes(args), prefix=f"d{n}-")
            session.commit()
            summary.add(more)
        started = time.perf_counter()
        summary.counts["search"] = search_index.rebuild(session)
        session.commit()
    print(
        f"  {summary.rows} rows in {summary.seconds:.1f} s; search index of "
        f"{summary.counts['search']} documents in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    return summary


def existing_summary(engine: Any) -> Summary:
    """The counts of a database generated by an earlier run (``--reuse``)."""
    with Session(engine) as session:

        def count(model: Any) -> int:
            return session.scalar(select(func.count()).select_from(model)) or 0

        return Summary(
            people=count(m.Person),
            publications=count(m.Publication),
            authorships=count(m.Authorship),
            counts={"search": count(m.SearchDocument)},
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLAlchemy URL (emptied); default: a temporary SQLite file")
    parser.add_argument("--small", action="store_true", help="a tenth of the issue's sizes")
    parser.add_argument("--scale", type=float, default=1, help="multiply the sizes by this")
    parser.add_argument("--requests", type=int, default=20, help="requests per page for times")
    parser.add_argument("--budget", type=float, default=15, help="CPU seconds per page at most")
    parser.add_argument("--duration", type=int, default=2, help="seconds of wrk per URL")
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternations of yardstick, cached page and file"
    )
    parser.add_argument("--port", type=int, default=5109, help="first port to try for gunicorn")
    parser.add_argument("--bibtex-entries", type=int, default=3000)
    parser.add_argument("--no-wrk", action="store_true", help="skip the gunicorn/wrk part")
    parser.add_argument("--no-bibtex", action="store_true", help="skip the BibTeX import")
    parser.add_argument("--json", help="also write the raw figures to this file")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="measure the department an earlier run left in --db (upgraded to the head first)",
    )
    parser.add_argument(
        "--university",
        type=int,
        nargs="?",
        const=10,
        default=0,
        metavar="N",
        help="N (default 10) such departments in one database, e.g. on PostgreSQL",
    )
    args = parser.parse_args()

    if not args.no_wrk and shutil.which("wrk") is None:  # before minutes of generating
        sys.exit("wrk is not installed (apt-get install wrk, or `make bench`).")
    workdir = Path(tempfile.mkdtemp(prefix="directory-bench-"))
    files = workdir / "files"
    files.mkdir()
    url_db = args.db or f"sqlite:///{workdir / 'bench.sqlite3'}"
    load_before = load_average()
    try:
        engine = make_engine(url_db)
        if args.reuse:  # generated by an earlier version: its schema brought to this one's
            migrate.upgrade(engine)
        summary = existing_summary(engine) if args.reuse else build(engine, args)
        if engine.dialect.name == "postgresql":
            # Statistics for the planner, as autovacuum would gather them after bulk inserts:
            # without them PostgreSQL estimates one row per table and plans nested loops.
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text("ANALYZE"))
        engine.dispose()
        prepare_viewers(url_db)

        print("Measuring in process...", file=sys.stderr)
        results, facts = measure_in_process(url_db, args.requests, args.budget, files)
        if not args.no_wrk:
            if shutil.which("wrk") is None:
                sys.exit("wrk is not installed (apt-get install wrk, or `make bench`).")
            print("Measuring throughput with wrk...", file=sys.stderr)
            port = free_port(args.port)
            measure_throughput(url_db, results, port, args.duration, files, args.rounds)
        bib = None
        if not args.no_bibtex:
            print("Measuring the BibTeX import...", file=sys.stderr)
            bib = measure_bibtex(url_db, min(args.bibtex_entries, summary.publications))
        load = f"{load_before} / {load_average()}"
        print(report(results, facts, summary, bib, args, url_db, load))
        if args.json:
            raw = {
                "pages": [{**r.__dict__, "page": r.page.name} for r in results],
                "bibtex": bib,
            }
            Path(args.json).write_text(json.dumps(raw, indent=2, default=str))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
