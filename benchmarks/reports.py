"""The activity reports at full size, measured side by side with existing pages in the same
run: CPU milliseconds per request (``time.process_time``, p50 and p90), SQL statements, rows
read and bytes of HTML, in process (no network), for the pages of
tests/support/measured_pages.py whose names are given (by default the reports and the pages
they are compared with).

    python benchmarks/reports.py                  # the issue's sizes, a temporary SQLite file
    python benchmarks/reports.py --db sqlite:////tmp/bench.sqlite3 --reuse
    python benchmarks/reports.py --db postgresql+psycopg://postgres@127.0.0.1:5432/bench

The goal for a report's HTML: a p50 of at most 100 ms of CPU. The department's report and
network are kept while the data is unchanged (directory/services/reports/memo.py); the column
"p50 counting anew" is the same page with nothing kept, as after a write that changed who
wrote with whom; "p50 anew, layout kept" keeps the network's layout (kept by the graph it
lays out, directory/services/reports/network.py), as after any other write.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import text  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from benchmarks.run import (  # noqa: E402
    _timed,
    build,
    existing_summary,
    percentile,
    prepare_viewers,
    signed_in,
)
from directory import migrate  # noqa: E402
from directory.db import make_engine  # noqa: E402
from directory.services.reports import memo  # noqa: E402

try:  # the layouts are kept since this benchmark's second version; the code before had none
    from directory.services.reports.network import forget_layouts
except ImportError:  # pragma: no cover - measuring the code before
    forget_layouts = None
from tests.support.measured_pages import PAGES  # noqa: E402
from tests.support.statements import count_rows, count_statements  # noqa: E402
from tests.support.synthetic import department_facts  # noqa: E402

#: The pages measured by default: the reports, and beside them pages of the same weight.
DEFAULT_PAGES = (
    "alumni summary",
    "largest profile, signed in",
    "admin: people",
    "activity report of the largest profile",
    "department activity report",
    "co-authorship network",
)


def measure(url_db: str, names: tuple[str, ...], requests: int) -> list[tuple]:
    from benchmarks.app import make_app

    app = make_app(DIRECTORY_DATABASE_URL=url_db, DIRECTORY_CACHE_SECONDS=0)
    engine = app.extensions["directory"].db.engine
    prefix = app.config["DIRECTORY_URL_PREFIX"].rstrip("/")
    with Session(engine) as session:
        facts = department_facts(session)
    rows = []
    for page in (p for p in PAGES if p.name in names):
        client = app.test_client()
        if page.viewer:
            with client.session_transaction() as sess:
                sess.update(signed_in(page.viewer))
        url = prefix + page.path(facts)
        client.get(url)  # warm: templates compiled, statements cached
        with count_statements(engine) as log, count_rows(log):
            response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        cpu, _wall = _timed(client, url, requests, budget=30)
        # Each request counting anew: no report kept from the one before, nor a layout of
        # the network ("fresh"), as after a write that changed who wrote with whom; and with
        # the layouts kept ("fresh, laid out"), as after any other write.
        fresh, laid_out = [], []
        for _ in range(min(requests, 9)):
            for times, keep_layouts in ((fresh, False), (laid_out, True)):
                memo.forget()
                if not keep_layouts and forget_layouts is not None:
                    forget_layouts()
                started = time.process_time()
                client.get(url)
                times.append((time.process_time() - started) * 1000)
        rows.append((page.name, url, statistics.median(cpu), percentile(cpu, 0.9),
                     statistics.median(fresh), statistics.median(laid_out), len(log), log.rows,
                     len(response.data)))  # fmt: skip
    app.extensions["directory"].db.dispose()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLAlchemy URL (emptied unless --reuse)")
    parser.add_argument("--reuse", action="store_true", help="measure the department in --db")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--page", action="append", help="a page's name (repeatable)")
    parser.add_argument("--small", action="store_true", help="a tenth of the issue's sizes")
    args = parser.parse_args()
    args.scale, args.university = 1, 0
    url_db = args.db or f"sqlite:///{Path(tempfile.mkdtemp(prefix='reports-bench-'))}/b.sqlite3"
    engine = make_engine(url_db)
    if args.reuse:
        migrate.upgrade(engine)
        summary = existing_summary(engine)
    else:
        summary = build(engine, args)
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("ANALYZE"))
    engine.dispose()
    prepare_viewers(url_db)
    rows = measure(url_db, tuple(args.page or DEFAULT_PAGES), args.requests)
    print(f"{summary.people} people, {summary.publications} papers; {engine.dialect.name}; "
          f"{args.requests} requests a page\n")  # fmt: skip
    print("| page | CPU p50 ms | CPU p90 ms | p50 counting anew | p50 anew, layout kept "
          "| statements | rows | HTML bytes |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, _url, p50, p90, fresh, laid_out, statements, read, size in rows:
        print(f"| {name} | {p50:.1f} | {p90:.1f} | {fresh:.1f} | {laid_out:.1f} | {statements} "
              f"| {read} | {size} |")  # fmt: skip


if __name__ == "__main__":
    main()
