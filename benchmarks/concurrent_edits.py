"""Concurrent editing under load: no 5xx, no lost edit, no stale page.

While wrk loads the listing and a profile through gunicorn (2 workers, page cache on), several
editor processes change the same few profiles at once through the directory's own sessions:
each edit reads a person, increments a counter kept in their ``interests`` and adds a news
item, and retries when the optimistic version check (``Person.version``) says someone else
saved first. At the end:

* wrk saw no response other than 2xx/3xx;
* every counter equals the number of edits made to it, and every news item is there (no edit
  was lost to a concurrent one);
* each edited profile, fetched anonymously through the cache, shows its final counter.

    python benchmarks/concurrent_edits.py --db postgresql+psycopg://postgres@127.0.0.1:5432/x
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402
from sqlalchemy.orm.exc import StaleDataError  # noqa: E402

from benchmarks.generate import SMALL, generate  # noqa: E402
from benchmarks.run import free_port, gunicorn  # noqa: E402
from directory import migrate  # noqa: E402
from directory import models as m  # noqa: E402
from directory.db import make_engine  # noqa: E402

COUNTER = re.compile(r"edits: (\d+)")


def editor(url_db: str, editor_id: int, slugs: list[str], edits: int) -> tuple[int, int]:
    """Make ``edits`` edits round-robin over ``slugs``; return (edits, retries)."""
    from benchmarks.app import make_app

    app = make_app(DIRECTORY_DATABASE_URL=url_db)
    state = app.extensions["directory"].db
    retries = 0
    for k in range(edits):
        slug = slugs[(editor_id + k) % len(slugs)]
        while True:
            session = state.new_session()
            try:
                person = session.scalar(select(m.Person).where(m.Person.slug == slug))
                found = COUNTER.search(person.interests or "")
                person.interests = f"edits: {int(found.group(1)) + 1 if found else 1}"
                session.add(m.NewsItem(owner_id=person.id, year=2026, body=f"edit {editor_id}-{k}"))
                session.commit()
                break
            except StaleDataError:
                session.rollback()
                retries += 1
            finally:
                session.close()
    state.dispose()
    return edits, retries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLAlchemy URL (emptied); default: a temporary SQLite file")
    parser.add_argument("--editors", type=int, default=4)
    parser.add_argument("--edits", type=int, default=40, help="edits per editor")
    parser.add_argument("--people", type=int, default=3, help="profiles the editors share")
    parser.add_argument("--port", type=int, default=5109)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="directory-edits-"))
    url_db = args.db or f"sqlite:///{workdir / 'edits.sqlite3'}"
    try:
        engine = make_engine(url_db)
        migrate.downgrade(engine, "base")
        migrate.upgrade(engine)
        with Session(engine) as session:
            generate(session, SMALL)
            session.commit()
            slugs = list(
                session.scalars(
                    select(m.Person.slug)
                    .where(m.Person.role == "faculty")
                    .order_by(m.Person.id)
                    .limit(args.people)
                )
            )
            news_before = session.scalar(select(func.count(m.NewsItem.id)))

        with gunicorn(url_db, free_port(args.port), 300) as base:
            urls = [f"{base}/directory/", f"{base}/directory/people/{slugs[0]}"]
            # wrk runs until the editors are done, then prints its figures on SIGINT.
            loads = [
                subprocess.Popen(
                    ["wrk", "-t1", "-c8", "-d600s", "--timeout=30s", url],
                    stdout=subprocess.PIPE,
                    text=True,
                )
                for url in urls
            ]
            time.sleep(1)
            started = time.perf_counter()
            with multiprocessing.get_context("spawn").Pool(args.editors) as pool:
                results = pool.starmap(
                    editor, [(url_db, i, slugs, args.edits) for i in range(args.editors)]
                )
            edit_seconds = time.perf_counter() - started
            for load in loads:
                load.send_signal(signal.SIGINT)
            outputs = [load.communicate()[0] for load in loads]
            pages = {
                slug: urllib.request.urlopen(f"{base}/directory/people/{slug}").read().decode()  # noqa: S310
                for slug in slugs
            }

        failures = []
        for url, output in zip(urls, outputs, strict=True):
            requests = re.search(r"(\d+) requests in", output).group(1)
            bad = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", output)
            errors = int(bad.group(1)) if bad else 0
            print(f"wrk {url}: {requests} requests, {errors} non-2xx/3xx")
            if errors:
                failures.append(f"{errors} error responses from {url}")
        made = sum(edits for edits, _ in results)
        retries = sum(r for _, r in results)
        print(f"{made} edits by {args.editors} editors in {edit_seconds:.1f} s, {retries} retries")

        with Session(engine) as session:
            counters = {
                slug: int(COUNTER.search(interests).group(1))
                for slug, interests in session.execute(
                    select(m.Person.slug, m.Person.interests).where(m.Person.slug.in_(slugs))
                )
            }
            news = session.scalar(select(func.count(m.NewsItem.id))) - news_before
        expected = {slug: 0 for slug in slugs}
        for editor_id in range(args.editors):
            for k in range(args.edits):
                expected[slugs[(editor_id + k) % len(slugs)]] += 1
        print(f"counters {counters}, expected {expected}; {news} news items added of {made}")
        if counters != expected or news != made:
            failures.append("lost edits")
        for slug in slugs:
            if f"edits: {counters[slug]}" not in pages[slug]:
                failures.append(f"stale page for {slug}")
        engine.dispose()
        if failures:
            sys.exit("FAILED: " + "; ".join(failures))
        print("OK: no 5xx, no lost edit, no stale page.")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
