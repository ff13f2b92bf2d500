"""Where one measured page's time goes: its statements, rows, CPU p50 and, with ``--profile``,
cProfile's heaviest functions over the timed requests; with ``--digest``, a SHA-256 of every
measured page's body (to compare two versions of the code on one database: the pages must
be identical, but for their CSRF tokens and the profile's time of last change).

    python benchmarks/profile_page.py --db sqlite:///bench.sqlite3 "largest profile" --profile
    python benchmarks/profile_page.py --db postgresql+psycopg://... --digest

The database is one ``benchmarks/run.py`` generated (``--db``; it is not changed, apart from
the signed-in viewers' accounts, which run.py also makes). Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import pstats
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``benchmarks`` and ``wsgi`` importable
    sys.path.insert(0, str(ROOT))

from sqlalchemy import event  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from benchmarks.run import prepare_viewers, signed_in  # noqa: E402
from tests.support.measured_pages import PAGES, Page  # noqa: E402
from tests.support.statements import count_rows, count_statements  # noqa: E402
from tests.support.synthetic import department_facts  # noqa: E402


def client_for(app, page: Page):
    client = app.test_client()
    if page.viewer:
        with client.session_transaction() as sess:
            sess.update(signed_in(page.viewer))
    return client


def measure(app, page: Page, url: str, requests: int, profile: bool, top: int) -> str:
    engine = app.extensions["directory"].db.engine
    client = client_for(app, page)
    client.get(url)
    with count_statements(engine) as log, count_rows(log):
        response = client.get(url)
    body = response.data
    if response.status_code != 200:  # a sign-in redirect is not the page
        return f"{page.name} {url}: answered {response.status_code} {response.location or ''}"
    profiler = cProfile.Profile() if profile else None
    cpu = []
    for _ in range(requests):
        started = time.process_time()
        if profiler:
            profiler.enable()
        client.get(url)
        if profiler:
            profiler.disable()
        cpu.append((time.process_time() - started) * 1000)
    lines = [
        f"{page.name} {url}: {len(log)} statements, {log.rows} rows, "
        f"{len(body) / 1024:.0f} KiB, CPU ms p50 {statistics.median(cpu):.1f} "
        f"(min {min(cpu):.1f}, {requests} requests)"
    ]
    if profiler:
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("cumulative").print_stats(top)
        stats.sort_stats("tottime").print_stats(top)
        lines.append(out.getvalue())
    return "\n".join(lines)


#: What differs between two requests for the same page whatever the code: a form's CSRF token
#: (signed with the time), and the profile's last change (the benchmark's sign-in of the viewers
#: touches the largest profile).
VARYING = re.compile(
    rb'(name="csrf_token" type="hidden" value|name="csrf_token" value)="[^"]*"'
    rb'|"dateModified":"[^"]*"'
)


def statement_times(app, page: Page, url: str, repeats: int = 15) -> str:
    """Each statement of one request, run again on its own through the driver's cursor (execute
    and fetch every row) ``repeats`` times: its CPU ms p50 in this process and its rows. On
    SQLite that is the database's own work; on PostgreSQL only the client's (the server's time
    is another process's)."""
    engine = app.extensions["directory"].db.engine
    client = client_for(app, page)
    client.get(url)
    sent: list[tuple[str, object]] = []

    def before(_conn, _cursor, statement, parameters, *_args) -> None:
        if not statement.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT")):
            sent.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", before)
    try:
        client.get(url)
    finally:
        event.remove(engine, "before_cursor_execute", before)
    lines, total = [], 0.0
    raw = engine.raw_connection()
    try:
        for number, (statement, parameters) in enumerate(sent, 1):
            times, rows = [], 0
            for _ in range(repeats):
                cursor = raw.cursor()
                started = time.process_time()
                cursor.execute(statement, parameters)
                rows = len(cursor.fetchall()) if cursor.description else 0
                times.append((time.process_time() - started) * 1000)
                cursor.close()
            ms = statistics.median(times)
            total += ms
            text = " ".join(statement.split())
            lines.append(f"{number:3}. {ms:6.2f} ms {rows:6} rows  {text[:150]}")
        raw.rollback()
    finally:
        raw.close()
    lines.append(f"     {total:6.2f} ms in all, {len(sent)} statements")
    return "\n".join(lines)


def digests(app, facts, prefix: str, dump: Path | None = None) -> list[str]:
    found = []
    for number, page in enumerate(PAGES):
        url = prefix + page.path(facts)
        response = client_for(app, page).get(url)
        if dump:
            (dump / f"{number:02}.html").write_bytes(response.data)
        digest = hashlib.sha256(VARYING.sub(b"", response.data)).hexdigest()[:16]
        found.append(f"{response.status_code} {digest} {len(response.data):8} {page.name}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="SQLAlchemy URL of a generated department")
    parser.add_argument("pages", nargs="*", help="names of measured pages (default: all)")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--digest", action="store_true", help="a digest of every page's body")
    parser.add_argument(
        "--statements", action="store_true", help="each statement's own CPU time and rows"
    )
    parser.add_argument("--dump", type=Path, help="with --digest: write each body into this folder")
    args = parser.parse_args()

    from benchmarks.app import make_app

    prepare_viewers(args.db)
    app = make_app(DIRECTORY_DATABASE_URL=args.db, DIRECTORY_CACHE_SECONDS=0)
    prefix = app.config["DIRECTORY_URL_PREFIX"].rstrip("/")
    with Session(app.extensions["directory"].db.engine) as session:
        facts = department_facts(session)
    if args.digest:
        print("\n".join(digests(app, facts, prefix, args.dump)))
        return
    chosen = [p for p in PAGES if not args.pages or p.name in args.pages]
    if not chosen:
        sys.exit(f"no such page; the pages: {', '.join(p.name for p in PAGES)}")
    for page in chosen:
        url = prefix + page.path(facts)
        print(measure(app, page, url, args.requests, args.profile, args.top), flush=True)
        if args.statements:
            print(statement_times(app, page, url), flush=True)


if __name__ == "__main__":
    main()
