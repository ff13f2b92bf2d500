"""``make bench``: a synthetic department, then for each page of benchmarks/pages.py the SQL
statements per request, the in-process server time, and requests per second under gunicorn
(2 workers) driven by wrk, beside a trivial endpoint of the same app in the same run.

    python benchmarks/run.py                      # the issue's sizes, SQLite file
    python benchmarks/run.py --small              # a tenth of that, for a quick look
    python benchmarks/run.py --db postgresql+psycopg://postgres@127.0.0.1:5432/bench

The database given with --db is emptied (its directory tables are dropped and re-created).
Prints Markdown, ready for docs/performance.md.
"""

from __future__ import annotations

import argparse
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

from sqlalchemy.orm import Session  # noqa: E402

from benchmarks.generate import SMALL, Sizes, department_facts, generate  # noqa: E402
from benchmarks.pages import PAGES, Page  # noqa: E402
from benchmarks.statements import count_statements  # noqa: E402
from directory import migrate  # noqa: E402
from directory.db import make_engine  # noqa: E402

TRIVIAL = "/bench/trivial"
CACHE_SECONDS = 300


@dataclass
class Result:
    page: Page
    url: str
    available: bool = True
    statements: int = 0
    statements_cached: int | None = None
    median_ms: float = 0.0
    p95_ms: float = 0.0
    median_cached_ms: float | None = None
    rps: dict[str, float] = field(default_factory=dict)
    trivial_rps: dict[str, float] = field(default_factory=dict)
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


def measure_in_process(url_db: str, requests: int) -> tuple[list[Result], Any]:
    from benchmarks.app import make_app

    app = make_app(DIRECTORY_DATABASE_URL=url_db, DIRECTORY_CACHE_SECONDS=0)
    engine = app.extensions["directory"].db.engine
    prefix = app.config["DIRECTORY_URL_PREFIX"].rstrip("/")
    with Session(engine) as session:
        facts = department_facts(session)
    client = app.test_client()
    results = []
    for page in PAGES:
        url = prefix + page.path(facts)
        result = Result(page, url)
        results.append(result)
        if client.get(url).status_code == 404:
            result.available = False
            continue
        with count_statements(engine) as log:
            response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        result.statements = len(log)
        times = []
        for _ in range(requests):
            started = time.perf_counter()
            client.get(url)
            times.append((time.perf_counter() - started) * 1000)
        result.median_ms = statistics.median(times)
        result.p95_ms = percentile(times, 0.95)

        app.config["DIRECTORY_CACHE_SECONDS"] = CACHE_SECONDS
        client.get(url)
        with count_statements(engine) as log:
            response = client.get(url)
        if response.headers.get("X-Directory-Cache") == "hit":
            result.statements_cached = len(log)
            times = []
            for _ in range(requests):
                started = time.perf_counter()
                client.get(url)
                times.append((time.perf_counter() - started) * 1000)
            result.median_cached_ms = statistics.median(times)
        app.config["DIRECTORY_CACHE_SECONDS"] = 0
    app.extensions["directory"].db.dispose()
    return results, facts


# ----------------------------------------------------------------------------- gunicorn + wrk


@contextmanager
def gunicorn(url_db: str, port: int, cache_seconds: int, extra_env: dict | None = None):
    env = {
        **os.environ,
        "DIRECTORY_DATABASE_URL": url_db,
        "DIRECTORY_CACHE_SECONDS": str(cache_seconds),
        "PYTHONPATH": str(ROOT),
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


def wrk(url: str, seconds: int) -> tuple[float, int]:
    """Requests per second, and responses that were not 2xx/3xx (or socket errors). Requests
    accept gzip, as every browser's do."""
    output = subprocess.run(
        [
            "wrk",
            "-t2",
            "-c16",
            f"-d{seconds}s",
            "--timeout=30s",
            "-H",
            "Accept-Encoding: gzip",
            url,
        ],
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


def measure_throughput(url_db: str, results: list[Result], port: int, seconds: int) -> None:
    """Each page right after the trivial endpoint, so that both see the same machine load; the
    ratio of the pair is the figure."""
    for mode, cache_seconds in (("cached", CACHE_SECONDS), ("uncached", 0)):
        with gunicorn(url_db, port, cache_seconds) as base:
            for result in results:
                if result.available and (mode == "uncached" or result.page.cached):
                    for _ in range(4):  # both workers render (and cache) the page first
                        urllib.request.urlopen(base + result.url, timeout=120)  # noqa: S310
                    result.trivial_rps[mode], _ = wrk(base + TRIVIAL, seconds)
                    result.rps[mode], result.errors[mode] = wrk(base + result.url, seconds)


# ----------------------------------------------------------------------------- BibTeX import


def measure_bibtex(url_db: str, entries: int) -> dict[str, float]:
    """The publications module's BibTeX import (parse_bibtex, plan_import = the preview,
    apply_plan = the write) of a few-thousand-entry file into the largest profile of the big
    department (rolled back; one run), against bibtexparser's bare parse of the same file (best
    of three). The file is benchmarks/bench_bibtex_import.py's realistic one."""
    import bibtexparser
    from sqlalchemy import select

    from benchmarks.app import make_app
    from benchmarks.bench_bibtex_import import make_bibtex
    from directory import models as m
    from directory.db import get_session
    from directory.formats.bibtex import parse_bibtex
    from directory.services.pubimport import apply_plan, decision_choices, plan_import

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

        timings = {}
        for name, fn, repeat in (("bare", bare, 3), ("parse", parse_only, 3), ("ours", ours, 1)):
            runs = []
            for _ in range(repeat):
                started = time.perf_counter()
                fn()
                runs.append(time.perf_counter() - started)
            timings[name] = min(runs)
    app.extensions["directory"].db.dispose()
    return {"entries": entries, "bytes": len(text.encode()), **timings}


# ----------------------------------------------------------------------------- report


def report(results, facts, summary, bib, args, url_db) -> str:
    lines = [
        f"Machine: {machine()}.",
        f"Database: {'PostgreSQL' if url_db.startswith('postgresql') else 'SQLite file'}; "
        f"{summary.people} people, {summary.publications} publications, "
        f"{summary.authorships} authorships, {summary.rows} rows generated in "
        f"{summary.seconds:.1f} s. Largest profile: {facts.largest_profile_publications} "
        "publications.",
        f"In-process times over {args.requests} requests (Flask test client). Throughput: "
        f"gunicorn --workers=2, `wrk -t2 -c16 -d{args.duration}s -H 'Accept-Encoding: gzip'`; "
        f"each page right after the trivial endpoint `{TRIVIAL}` of the same app (its req/s in "
        f"brackets; the ratio is the figure); DIRECTORY_CACHE_SECONDS={CACHE_SECONDS} for the "
        "cached column.",
        "",
        "| Page | SQL statements (cache hit) | median / p95 ms | median ms, cache hit | "
        "req/s cached [trivial] = ratio | req/s uncached [trivial] = ratio |",
        "| --- | --- | --- | --- | --- | --- |",
    ]

    def throughput(result: Result, mode: str) -> str:
        if mode not in result.rps:
            return "–"
        trivial = result.trivial_rps[mode]
        text = f"{result.rps[mode]:.0f} [{trivial:.0f}] = {result.rps[mode] / trivial:.2f}×"
        if result.errors.get(mode):
            text += f", {result.errors[mode]} errors"
        return text

    for r in results:
        if not r.available:
            lines.append(
                f"| {r.page.name} `{r.url}` | not available (404: page not built yet) |||||"
            )
            continue
        cached = "–" if r.statements_cached is None else str(r.statements_cached)
        hit_ms = "–" if r.median_cached_ms is None else f"{r.median_cached_ms:.1f}"
        lines.append(
            f"| {r.page.name} `{r.url}` | {r.statements} ({cached}) | "
            f"{r.median_ms:.1f} / {r.p95_ms:.1f} | {hit_ms} | "
            f"{throughput(r, 'cached')} | {throughput(r, 'uncached')} |"
        )
    if bib:
        ratio = bib["ours"] / bib["bare"]
        lines += [
            "",
            f"BibTeX import of {bib['entries']} entries ({bib['bytes'] / 1024:.0f} KiB): "
            f"bibtexparser.parse_string {bib['bare']:.2f} s; our parse_bibtex alone "
            f"{bib['parse']:.2f} s = {bib['parse'] / bib['bare']:.2f}×; parse + preview + write "
            f"into the largest profile of this department {bib['ours']:.2f} s = {ratio:.2f}× "
            "(goal ≤ 3×).",
        ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLAlchemy URL (emptied); default: a temporary SQLite file")
    parser.add_argument("--small", action="store_true", help="a tenth of the issue's sizes")
    parser.add_argument("--requests", type=int, default=20, help="requests per page for times")
    parser.add_argument("--duration", type=int, default=5, help="seconds of wrk per URL")
    parser.add_argument("--port", type=int, default=5109, help="first port to try for gunicorn")
    parser.add_argument("--bibtex-entries", type=int, default=3000)
    parser.add_argument("--no-wrk", action="store_true", help="skip the gunicorn/wrk part")
    parser.add_argument("--json", help="also write the raw figures to this file")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="directory-bench-"))
    url_db = args.db or f"sqlite:///{workdir / 'bench.sqlite3'}"
    try:
        engine = make_engine(url_db)
        migrate.downgrade(engine, "base")
        migrate.upgrade(engine)
        print("Generating the department...", file=sys.stderr)
        with Session(engine) as session:
            summary = generate(session, SMALL if args.small else Sizes())
            session.commit()
        engine.dispose()
        print(f"  {summary.rows} rows in {summary.seconds:.1f} s", file=sys.stderr)

        print("Measuring in process...", file=sys.stderr)
        results, facts = measure_in_process(url_db, args.requests)
        if not args.no_wrk:
            if shutil.which("wrk") is None:
                sys.exit("wrk is not installed (apt-get install wrk, or `make bench`).")
            print("Measuring throughput with wrk...", file=sys.stderr)
            measure_throughput(url_db, results, free_port(args.port), args.duration)
        print("Measuring the BibTeX import...", file=sys.stderr)
        bib = measure_bibtex(url_db, min(args.bibtex_entries, summary.publications))
        print(report(results, facts, summary, bib, args, url_db))
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
