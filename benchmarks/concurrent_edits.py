"""Concurrent editors of one profile, through the site: no 5xx, no lost acknowledged edit, no
"database unreachable" page, and every refused save shown as a conflict with the input kept.

gunicorn serves the standalone site (2 workers). Several editor processes sign in to the same
account (the profile's owner) through the built-in login and, at once, each in a loop:

* loads the profile editor, increments the counter kept in ``interests`` and saves it with the
  page's version; a conflict (409, someone else saved first) must show the typed value again,
  and the editor reloads and retries;
* adds a news item (no version check: every acknowledged one must be stored).

Readers fetch the public profile meanwhile. At the end the script prints the figures and
checks: the counter equals the number of acknowledged profile saves, every acknowledged news
item is stored, no response was a 5xx, no page said the database was unreachable, and every
conflict page kept what was typed.

    python benchmarks/concurrent_edits.py                      # a temporary SQLite file
    python benchmarks/concurrent_edits.py --db postgresql+psycopg://postgres@127.0.0.1:5432/x
"""

from __future__ import annotations

import argparse
import html
import multiprocessing
import re
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from http.cookiejar import CookieJar
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from benchmarks.run import free_port, gunicorn  # noqa: E402
from directory import migrate  # noqa: E402
from directory import models as m  # noqa: E402
from directory.db import make_engine  # noqa: E402
from directory.services.accounts import save_account  # noqa: E402

COUNTER = re.compile(r"edits: (\d+)")
USERNAME, PASSWORD = "editor", "concurrent-edits-password"  # noqa: S105 - a throwaway account
SLUG = "ada-lovelace"
UNREACHABLE = "temporarily unavailable"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # noqa: ANN002, ANN003 - urllib's signature
        return None  # a 302 is the answer we want to see, not follow


class Browser:
    """One signed-in visitor: cookies kept, redirects not followed, every status counted."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(CookieJar()), _NoRedirect()
        )
        self.statuses: Counter[int] = Counter()
        self.unreachable = 0

    def request(self, path: str, data: dict[str, str] | None = None) -> tuple[int, str]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        try:
            with self.opener.open(self.base + path, body, timeout=60) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode()
        self.statuses[status] += 1
        if UNREACHABLE in text:
            self.unreachable += 1
        return status, text


def _value(page: str, name: str) -> str:
    """The value of the form field ``name`` (an input or a textarea) on ``page``."""
    tag = re.search(rf'<input[^>]*\bname="{name}"[^>]*>', page)
    if tag is not None:
        value = re.search(r'\bvalue="([^"]*)"', tag.group(0))
        return html.unescape(value.group(1)) if value else ""
    area = re.search(rf'<textarea[^>]*\bname="{name}"[^>]*>([^<]*)</textarea>', page)
    if area is None:
        raise RuntimeError(f"no field {name!r} on the page")
    return html.unescape(area.group(1))


def editor(base: str, editor_id: int, edits: int) -> dict:
    """Make ``edits`` profile saves and news items; return what the site answered."""
    browser = Browser(base)
    for _attempt in range(200):  # a refused sign-in is counted, and tried again
        login = browser.request("/directory/login")[1]
        status, _ = browser.request(
            "/directory/login",
            {"csrf_token": _value(login, "csrf_token"), "username": USERNAME, "password": PASSWORD},
        )
        if status == 302:
            break
        time.sleep(0.1)
    else:
        raise RuntimeError(f"editor {editor_id} could not sign in ({status})")
    saved = conflicts = kept = news = 0
    edit_url = f"/directory/people/{SLUG}/edit/profile"
    for k in range(edits):
        while True:
            status, page = browser.request(edit_url)
            if status != 200:
                time.sleep(0.1)
                continue
            found = COUNTER.search(_value(page, "interests"))
            typed = f"edits: {int(found.group(1)) + 1 if found else 1} (editor {editor_id}, {k})"
            status, answer = browser.request(
                edit_url,
                {
                    "csrf_token": _value(page, "csrf_token"),
                    "version": _value(page, "version"),
                    "full_name": "Ada Lovelace",
                    "visibility": "public",
                    "interests": typed,
                },
            )
            if status == 302:
                saved += 1
                break
            if status == 409:
                conflicts += 1
                kept += html.escape(typed, quote=False) in answer
        status, page = browser.request(f"/directory/people/{SLUG}/edit/news/new")
        if status == 200:
            status, _ = browser.request(
                f"/directory/people/{SLUG}/edit/news/new",
                {
                    "csrf_token": _value(page, "csrf_token"),
                    "year": "2026",
                    "body": f"edit {editor_id}-{k}",
                },
            )
            news += status == 302
    return {
        "saved": saved,
        "conflicts": conflicts,
        "kept": kept,
        "news": news,
        "statuses": browser.statuses,
        "unreachable": browser.unreachable,
    }


def reader(base: str, seconds: float) -> dict:
    browser = Browser(base)
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        browser.request(f"/directory/people/{SLUG}")
    return {"statuses": browser.statuses, "unreachable": browser.unreachable}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLAlchemy URL (emptied); default: a temporary SQLite file")
    parser.add_argument("--editors", type=int, default=8)
    parser.add_argument("--edits", type=int, default=10, help="saves per editor")
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--port", type=int, default=5109)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="directory-edits-"))
    url_db = args.db or f"sqlite:///{workdir / 'edits.sqlite3'}"
    try:
        engine = make_engine(url_db)
        migrate.downgrade(engine, "base")
        migrate.upgrade(engine)
        with Session(engine) as session:
            ada = m.Person(
                full_name="Ada Lovelace", slug=SLUG, sort_name="Lovelace, Ada", role="faculty"
            )
            session.add(ada)
            save_account(session, USERNAME, PASSWORD, ada)
            session.commit()

        env = {"DIRECTORY_BUILTIN_LOGIN": "true"}
        with gunicorn(url_db, free_port(args.port), 0, workdir, env) as base:
            context = multiprocessing.get_context("spawn")
            started = time.perf_counter()
            with context.Pool(args.editors + args.readers) as pool:
                reading = [pool.apply_async(reader, (base, 5.0)) for _ in range(args.readers)]
                results = pool.starmap(editor, [(base, i, args.edits) for i in range(args.editors)])
                readers = [r.get() for r in reading]
            seconds = time.perf_counter() - started

        with Session(engine) as session:
            interests = session.scalar(select(m.Person.interests).where(m.Person.slug == SLUG))
            stored_news = session.scalar(select(func.count(m.NewsItem.id)))
        engine.dispose()
        counter = int(COUNTER.search(interests or "edits: 0").group(1))
        saved = sum(r["saved"] for r in results)
        news = sum(r["news"] for r in results)
        conflicts = sum(r["conflicts"] for r in results)
        kept = sum(r["kept"] for r in results)
        statuses = sum((r["statuses"] for r in results + readers), Counter())
        server_errors = sum(n for status, n in statuses.items() if status >= 500)
        unreachable = sum(r["unreachable"] for r in results + readers)
        lost = (saved - counter) + (news - stored_news)
        print(
            f"database: {engine.dialect.name}; {args.editors} editors on one profile, "
            f"{args.readers} readers, gunicorn -w 2, {seconds:.1f} s"
        )
        print(f"responses by status: {dict(sorted(statuses.items()))}")
        print(f"profile saves acknowledged: {saved}, counter stored: {counter}")
        print(f"news items acknowledged: {news}, stored: {stored_news}")
        print(f"conflicts: {conflicts}, of which showed the typed input again: {kept}")
        print(
            f"lost acknowledged edits: {lost}; 5xx: {server_errors}; "
            f"'unreachable' pages: {unreachable}"
        )
        failures = [
            name
            for name, bad in (
                ("lost edits", lost),
                ("5xx", server_errors),
                ("unreachable pages", unreachable),
                ("input lost", conflicts - kept),
            )
            if bad
        ]
        if failures:
            sys.exit("FAILED: " + ", ".join(failures))
        print("OK")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
