"""A database made by release 0.1.0 upgrades to head with its content; a downgrade to 0.1.0's
schema and back keeps it too; each step further down says what it drops.

The 0.1.0 database is made by 0.1.0's own code (``git archive`` of its commit), run in a subprocess
of this same interpreter and virtual environment: only that release's models and migrations
write a database exactly as it would have, and they keep doing so when today's models
change. 0.1.0 ran on the same dependencies and on Python 3.12 (it declared 3.11+), and its
tree put first on ``PYTHONPATH`` wins over the installed package; the subprocess checks that
it imported that tree. The release is named by its commit, not by the tag ``v0.1.0``: a plain
``git clone`` (what CI checks out) carries the history but not always the tags. Without that
commit (a shallow clone) the test fails, saying so: a skipped upgrade test would report a
release as tested.

Pages are compared by their content: the visible text and image descriptions inside the
profile (``<div class="directory profile">``), for an anonymous visitor, a signed-in member
and the profile's owner, so that a change of the site's layout around it is not a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import textwrap
from html.parser import HTMLParser
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, inspect, select, table

from directory import migrate
from directory import models as m
from directory.db import make_engine
from tests.conftest import DATABASE_URL, TEST_USER_KEY, make_app, scratch_database

ROOT = Path(__file__).resolve().parents[2]
#: Release 0.1.0: the commit the tag ``v0.1.0`` points at (CHANGELOG.md names it too).
RELEASE = "3ad0bafc4e1fc30bebb647be459f8270c0e7ed43"
RELEASE_HEAD = "quality_1"
#: Who looks at the pages: anonymous, a member bound to nobody, the edited profile's owner.
VIEWERS = ("", "member", "xwei")
EDITED = "xingda-wei"
ON_POSTGRESQL = DATABASE_URL.startswith("postgresql")

#: What each downgrade step drops (tables; the columns of tables that stay), from head down.
#: docs/deployment.md ("Downgrading") says the same to operators.
DOWNGRADE_DROPS = {
    "quality_1": ({"directory_cache_state"}, {}),
    "pubs_1": ({"directory_import_drafts"}, {}),
    "searchapi_1": ({"directory_search_documents"}, {}),
    "editing_1": (
        {
            "directory_changes",
            "directory_pending_changes",
            "directory_invitations",
            "directory_delegations",
        },
        {},
    ),
    "embedding_1": ({"directory_local_accounts"}, {}),
}

#: What each downgrade step from head down to 0.1.0's head drops (tables; columns of tables
#: that stay).
SINCE_RELEASE_DROPS = {
    # PostgreSQL only: each search document's stored ranking vector (a generated column).
    "search4_1": (
        set(),
        {"directory_search_documents": {"directory_search_fts_rank"}} if ON_POSTGRESQL else {},
    ),
    "reports3_1": (set(), {}),
    "claims2_1": (set(), {"directory_claim_candidates": {"pending_change_id"}}),
    "speed_5": (set(), {}),
    "expertise_1": ({"directory_expertise_vectors"}, {}),
    "hosts_2": (set(), {}),
    "hosts_1": ({"directory_sign_in_sessions"}, {}),
    "claims_2": (
        {
            "directory_harvest_requests", "directory_harvest_locks", "directory_harvest_runs",
            "directory_claim_rejections", "directory_claim_candidates",
        },
        {},
    ),
    "claims_1": (
        set(), {"directory_people": {"orcid", "dblp_pid", "openalex_id", "semantic_scholar_id"}}
    ),
    "speed_4": (set(), {}),
    "dedup_1": ({"directory_publication_title_words"}, {}),
    "alumni_2": (set(), {"directory_advising": {"student_fold", "student_key"}}),
    "listing_1": (set(), {"directory_people": {"name_key", "name_key_zh"}}),
    "speed_3": (set(), {}),
    "papers_3": (set(), {"directory_people": {"unpublished_in_year"}}),
    "speed_2": (set(), {}),
    "onboard_1": ({"directory_reminders"}, {"directory_people": {"published"}}),
    "papers_2": (
        set(),
        {
            "directory_people": {"repeat_selected", "cv_sections"},
            "directory_person_photos": {"focus_x", "focus_y"},
        },
    ),
    # The placement's structure (its free text stays; the next upgrade reads it again).
    "alumni_1": (
        set(),
        {
            "directory_advising": {
                "placement_organisation", "placement_kind", "placement_year", "placement_unparsed",
            }
        },
    ),
    # terms_1 writes a notice's season and year back as its intake text ("Fall 2026") first.
    "terms_1": (set(), {"directory_recruiting_notices": {"term_season", "term_year"}}),
    "names_1": (
        set(),
        {
            "directory_authorships": {
                "given", "particle", "family", "suffix", "role", "suggested_person_id",
                "suggestion_declined",
            },
            "directory_publications": {"authors_incomplete"},
            "directory_import_drafts": {"base_url"},
        },
    ),
    "speed_1": (set(), {}),
    "harden_1": (
        {"directory_sign_in_throttle"},
        {"directory_local_accounts": {"session_generation"}},
    ),
}  # fmt: skip

#: Run by 0.1.0's code: migrate, load the demo, make edits, render every profile page.
RELEASE_SCRIPT = textwrap.dedent(
    """
    import json, re, sys, tempfile
    from flask import Flask, session
    from sqlalchemy import select
    import directory
    from directory import Directory, migrate, models as m
    from directory.db import get_session

    url, out, action = sys.argv[1], sys.argv[2], sys.argv[3]
    bib = sys.argv[4] if len(sys.argv) > 4 else None
    app = Flask("release_0_1_0", instance_path=tempfile.mkdtemp())
    app.config.update(
        SECRET_KEY="x", SERVER_NAME="directory.test", DIRECTORY_DATABASE_URL=url,
        DIRECTORY_IDENTITY_SOURCE="callable", DIRECTORY_ADMINS=["admin"],
        DIRECTORY_IDENTITY_CALLABLE=lambda: session.get("{key}"),
    )
    Directory(app)
    if action == "create":
        migrate.upgrade(app.extensions["directory"].db.engine)
        runner = app.test_cli_runner()
        commands = [["load-demo"], ["bind-user", "{edited}", "xwei"]]
        if bib:  # an al-folio site's papers.bib, imported by 0.1.0's own import
            commands.append(["import-bibtex", "--person", "{edited}", "--yes",
                             "--duplicates", "new", bib])
        for args in commands:
            result = runner.invoke(args=["directory", *args])
            assert result.exit_code == 0, result.output
        with app.app_context():
            s = get_session()
            person = s.scalar(select(m.Person).where(m.Person.slug == "{edited}"))
            person.bio = (person.bio or "") + "\\n\\nEdited under 0.1.0: **bold** [a link](/x)."
            for visibility in ("public", "members", "private"):
                s.add(m.NewsItem(owner_id=person.id, year=2026, position=99,
                                 body=visibility + " news from 0.1.0", visibility=visibility))
            student = s.scalar(select(m.Person).where(m.Person.slug == "alexander-du"))
            student.visibility = "members"
            s.commit()
        # And one edit through 0.1.0's own editor, as its owner: it writes the history too.
        editor = app.test_client()
        with editor.session_transaction() as sess:
            sess["{key}"] = "xwei"
        path = "/directory/people/{edited}/edit/news/new"
        token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', editor.get(path).text)
        response = editor.post(path, data={{"csrf_token": token.group(1), "year": "2026",
                                           "body": "News added in the 0.1.0 editor",
                                           "visibility": "public"}})
        assert response.status_code == 302, response.text
    with app.app_context():
        slugs = list(get_session().scalars(select(m.Person.slug).order_by(m.Person.slug)))
    pages = {{}}
    for viewer in {viewers!r}:
        client = app.test_client()
        with client.session_transaction() as sess:
            if viewer:
                sess["{key}"] = viewer
        for slug in slugs:
            response = client.get("/directory/people/" + slug)
            pages[viewer + ":" + slug] = [response.status_code, response.get_data(as_text=True)]
    with open(out, "w") as f:
        json.dump({{"module": directory.__file__, "pages": pages}}, f)
    """
).format(key=TEST_USER_KEY, edited=EDITED, viewers=VIEWERS)


class _ProfileText(HTMLParser):
    """The visible text (and image descriptions) inside ``<div class="directory profile">``."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # divs open inside the profile; 0: outside it
        self.skip = 0
        self.words: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "div" and self.depth:
            self.depth += 1
        elif tag == "div" and (values.get("class") or "").split() == ["directory", "profile"]:
            self.depth = 1
        if not self.depth:
            return
        if tag in ("script", "style", "template"):
            self.skip += 1
        if tag == "img" and values.get("alt"):
            self.words.append(f"[{values['alt']}]")

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self.depth:
            self.depth -= 1
        if tag in ("script", "style", "template") and self.skip:
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and not self.skip:
            self.words.extend(data.split())


def content(html: str) -> str:
    parser = _ProfileText()
    parser.feed(html)
    return " ".join(parser.words)


def contents(pages: dict[str, list]) -> dict[str, tuple[int, str]]:
    return {name: (status, content(html)) for name, (status, html) in pages.items()}


@pytest.fixture(scope="module")
def release_tree(tmp_path_factory) -> Path:
    """Release 0.1.0's source, from its commit."""
    folder = tmp_path_factory.mktemp("release-0.1.0")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", RELEASE],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        pytest.fail(
            f"The upgrade test needs release 0.1.0's commit {RELEASE} in {ROOT} "
            "(a full clone, not a shallow one; `git fetch --unshallow`): "
            + archive.stderr.decode(errors="replace")
        )
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def run_release(
    tree: Path, url: str, action: str, out: Path, *extra: str
) -> dict[str, tuple[int, str]]:
    """Run 0.1.0's code on ``url``: "create" the database (with ``extra``: the BibTeX file
    its edited profile imports), or only "render" its pages."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("DIRECTORY_TEST_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", RELEASE_SCRIPT, url, str(out), action, *extra],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert Path(result["module"]).is_relative_to(tree), "0.1.0's tree was not the one imported"
    return contents(result["pages"])


def render_head(url: str) -> dict[str, tuple[int, str]]:
    """Today's code: `flask directory db upgrade`, then every profile page for each viewer."""
    app = make_app(DIRECTORY_DATABASE_URL=url)
    state = app.extensions["directory"].db
    try:
        result = app.test_cli_runner().invoke(args=["directory", "db", "upgrade"])
        assert result.exit_code == 0, result.output
        with app.app_context():
            session = state.new_session()
            slugs = list(session.scalars(select(m.Person.slug).order_by(m.Person.slug)))
            session.close()
        pages = {}
        for viewer in VIEWERS:
            client = app.test_client()
            with client.session_transaction() as sess:
                if viewer:
                    sess[TEST_USER_KEY] = viewer
            for slug in slugs:
                response = client.get(f"/directory/people/{slug}")
                pages[f"{viewer}:{slug}"] = [response.status_code, response.get_data(as_text=True)]
        return contents(pages)
    finally:
        state.dispose()


def _schema(engine: Engine) -> dict[str, set[str]]:
    found = inspect(engine)
    return {
        name: {column["name"] for column in found.get_columns(name)}
        for name in found.get_table_names()
        if name.startswith("directory_") and not name.startswith(migrate.NATIVE_SEARCH_PREFIX)
    }


def _rows(engine: Engine, names: set[str]) -> dict[str, int]:
    with engine.connect() as conn:
        return {name: conn.scalar(select(func.count()).select_from(table(name))) for name in names}


def _walk_down(
    engine: Engine, steps: dict[str, Any], last: str, lost_rows: dict[str, int] | None = None
) -> dict[str, tuple[set[str], dict[str, set[str]]]]:
    """Downgrade one step at a time through ``steps`` (revision ids, from the current one
    down) to ``last``: the tables and columns each step drops, and (in ``lost_rows``) how many
    rows the dropped tables held."""
    lost: dict[str, tuple[set[str], dict[str, set[str]]]] = {}
    revisions = list(steps)
    for revision, target in zip(revisions, [*revisions[1:], last], strict=True):
        schema = _schema(engine)
        rows = _rows(engine, set(schema))
        migrate.downgrade(engine, target)
        remaining = _schema(engine)
        dropped = set(schema) - set(remaining)
        if lost_rows is not None:
            lost_rows.update({name: rows[name] for name in dropped})
        columns = {
            name: schema[name] - remaining[name]
            for name in remaining
            if schema[name] - remaining[name]
        }
        lost[revision] = (dropped, columns)
    return lost


#: Edits made under 0.1.0 and who must see them after the upgrade ("" is anonymous).
SHOWN_AFTER_UPGRADE = (
    ("Edited under 0.1.0: bold a link", {"", "member", "xwei"}),
    ("private news from 0.1.0", {"xwei"}),
    ("members news from 0.1.0", {"member", "xwei"}),
    ("News added in the 0.1.0 editor", {"", "member", "xwei"}),
)


@pytest.mark.slow
def test_a_release_0_1_0_database_upgrades_and_downgrades_with_its_content(
    tmp_path: Path, release_tree: Path
) -> None:
    with scratch_database(tmp_path) as url:
        before = run_release(release_tree, url, "create", tmp_path / "before.json")
        # Not vacuous: every person's page, each viewer seeing what 0.1.0 let them see.
        assert len(before) == 3 * len({name.split(":")[1] for name in before}) > 3 * 10
        owner_page = before[f"xwei:{EDITED}"][1]
        assert "Edited under 0.1.0: bold a link" in owner_page
        assert "private news from 0.1.0" in owner_page
        assert "News added in the 0.1.0 editor" in before[f":{EDITED}"][1]
        assert "members news from 0.1.0" in before[f"member:{EDITED}"][1]
        assert "members news" not in before[f":{EDITED}"][1]
        assert before[":alexander-du"][0] == 404 and before["member:alexander-du"][0] == 200

        after = render_head(url)
        # This release changes the profile page itself (the owner's paper order, paper pages,
        # folded author lists), so its text is not 0.1.0's: what must hold is that the same
        # pages answer the same viewers and that everything 0.1.0 stored and showed is shown
        # to the same viewers after the upgrade.
        assert {k: v[0] for k, v in after.items()} == {k: v[0] for k, v in before.items()}
        for text, shown_to in SHOWN_AFTER_UPGRADE:
            for viewer in ("", "member", "xwei"):
                assert (text in after[f"{viewer}:{EDITED}"][1]) == (viewer in shown_to), (
                    text, viewer)  # fmt: skip

        # Back to 0.1.0's schema (a rollback), 0.1.0's code shows the same pages; up again,
        # and today's code shows what it showed after the first upgrade.
        engine = make_engine(url)
        try:
            assert migrate.current_revisions(engine) == (next(iter(SINCE_RELEASE_DROPS)),), (
                "a new migration: add its step to SINCE_RELEASE_DROPS")  # fmt: skip
            lost = _walk_down(engine, SINCE_RELEASE_DROPS, RELEASE_HEAD)
            assert lost == SINCE_RELEASE_DROPS
            assert run_release(release_tree, url, "render", tmp_path / "down.json") == before
            assert render_head(url) == after

            # Each step further down from 0.1.0's head: what it drops (tables, and rows).
            migrate.downgrade(engine, RELEASE_HEAD)
            lost_rows: dict[str, int] = {}
            lost = _walk_down(engine, DOWNGRADE_DROPS, "0001_initial", lost_rows)
            print("downgrade drops (rows lost):", lost_rows)
            assert lost == DOWNGRADE_DROPS
            # The demo's data was in them: the search index, and the editor's history.
            assert lost_rows["directory_search_documents"] > 10
            assert lost_rows["directory_changes"] >= 1
            # Down to the first migration, the profiles themselves are all still there.
            with engine.connect() as conn:
                assert conn.scalar(select(func.count()).select_from(m.Person.__table__)) > 10
        finally:
            engine.dispose()


ALFOLIO = ROOT / "tests" / "fixtures" / "bibtex" / "alfolio.bib"


def run_cli(url: str, *args: str) -> Any:
    """Today's ``flask directory ARGS`` on ``url``."""
    app = make_app(DIRECTORY_DATABASE_URL=url)
    try:
        return app.test_cli_runner().invoke(args=["directory", *args])
    finally:
        app.extensions["directory"].db.dispose()


def public_pages(url: str) -> dict[str, tuple[int, str]]:
    """Every profile page of ``url``'s directory, as today's code shows it to anyone."""
    app = make_app(DIRECTORY_DATABASE_URL=url)
    state = app.extensions["directory"].db
    try:
        with app.app_context():
            session = state.new_session()
            slugs = list(session.scalars(select(m.Person.slug).order_by(m.Person.slug)))
            session.close()
        client = app.test_client()
        pages = {}
        for slug in slugs:
            response = client.get(f"/directory/people/{slug}")
            pages[slug] = [response.status_code, response.get_data(as_text=True)]
        return contents(pages)
    finally:
        state.dispose()


@pytest.mark.slow
def test_an_upgraded_0_1_0_department_checks_clean_and_restores_from_its_backup(
    tmp_path: Path, release_tree: Path
) -> None:
    """The demo plus an al-folio papers.bib, by 0.1.0; upgraded by today's `db upgrade`:
    `check` is clean (the search index included, without a `reindex`), and `export --all`
    imported into an empty database gives every person back, with the same public pages."""
    backup = tmp_path / "backup"
    with scratch_database(tmp_path) as url, scratch_database(tmp_path) as empty:
        run_release(release_tree, url, "create", tmp_path / "before.json", str(ALFOLIO))
        upgraded = run_cli(url, "db", "upgrade")
        assert upgraded.exit_code == 0, upgraded.output
        # 0.1.0 kept al-folio's relative links (pdf = {mitosis.pdf}) as they were: each is
        # taken out, and its profile's history says what to complete.
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                notes = conn.scalars(
                    select(m.ChangeRecord.summary).where(m.ChangeRecord.summary.like("Upgrade:%"))
                ).all()
                links = conn.scalars(select(m.PublicationLink.url)).all()
        finally:
            engine.dispose()
        assert any("'mitosis.pdf'" in note for note in notes), notes
        assert all(url.startswith(("http://", "https://", "mailto:")) for url in links)
        checked = run_cli(url, "check")
        assert checked.exit_code == 0, checked.output
        assert "ok  search: index in step with the data" in checked.output
        exported = run_cli(url, "export", "--all", str(backup))
        assert exported.exit_code == 0, exported.output
        files = sorted(str(path) for path in backup.glob("*.json"))
        assert len(files) > 20

        assert run_cli(empty, "db", "upgrade").exit_code == 0
        restored = run_cli(empty, "import-profile", *files)
        assert restored.exit_code == 0, restored.output[-3000:]
        before, after = public_pages(url), public_pages(empty)
        assert sorted(after) == sorted(before)
        assert after == before
