"""The plugin's Alembic lineage builds exactly the models' schema, and goes down and up again."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect

from directory import migrate
from directory.db import make_engine
from directory.models import Base
from tests.conftest import make_app, scratch_database


@pytest.fixture
def empty_engine(tmp_path) -> Iterator[Engine]:
    """A database of its own: a temporary SQLite file, or a scratch PostgreSQL database."""
    with scratch_database(tmp_path) as url:
        engine = make_engine(url)
        try:
            yield engine
        finally:
            engine.dispose()


def _diff(engine: Engine) -> list:
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn,
            opts={"include_object": migrate.include_object, "compare_type": True},
        )
        return compare_metadata(context, Base.metadata)


def _tables(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names())


def test_upgrade_matches_models_then_down_and_up_again(empty_engine: Engine) -> None:
    migrate.upgrade(empty_engine)
    assert _diff(empty_engine) == []
    tables = _tables(empty_engine)
    assert migrate.VERSION_TABLE in tables
    assert all(t.startswith("directory_") for t in tables - {migrate.VERSION_TABLE})
    assert set(Base.metadata.tables) <= tables

    migrate.downgrade(empty_engine, "base")
    assert _tables(empty_engine) <= {migrate.VERSION_TABLE}

    migrate.upgrade(empty_engine)
    assert _diff(empty_engine) == []


def test_host_filter_hides_every_directory_table() -> None:
    for name in Base.metadata.tables:
        assert migrate.exclude_directory_tables(None, name, "table", True, None) is False
    assert (
        migrate.exclude_directory_tables(None, migrate.VERSION_TABLE, "table", True, None) is False
    )
    assert migrate.exclude_directory_tables(None, "users", "table", True, None) is True


# ----------------------------------------------------------------------------- the commands

VERSIONS = Path(__file__).resolve().parents[2] / "migrations" / "versions"


def _files() -> list[tuple[str, str]]:
    """(number from the file's name, revision id written in it) of each migration file."""
    found = []
    for path in sorted(VERSIONS.glob("*.py")):
        (revision,) = re.findall(r'^revision = "([^"]+)"$', path.read_text(), re.MULTILINE)
        found.append((path.name.split("_")[0], revision))
    return found


def test_db_commands_take_a_migrations_number_and_say_what_they_did(scratch_url) -> None:
    app = make_app(DIRECTORY_DATABASE_URL=scratch_url)
    engine = app.extensions["directory"].db.engine
    runner = app.test_cli_runner()
    files = _files()
    assert len(files) >= 8 and files[4] == ("0005", "pubs_1")  # ids do not follow the numbers
    (head_number, head), (_, one_before) = files[-1], files[-2]
    try:
        up = runner.invoke(args=["directory", "db", "upgrade"])
        assert up.exit_code == 0, up.output
        assert (
            f"Upgraded the directory's tables from nothing to {head_number} ({head})." in up.output
        )

        history = runner.invoke(args=["directory", "db", "history"]).output.splitlines()
        assert [line.split()[:2] for line in history] == [list(pair) for pair in files]
        assert [line.endswith("(current)") for line in history] == [False] * (len(files) - 1) + [
            True
        ]

        down = runner.invoke(args=["directory", "db", "downgrade", "0005"])
        assert down.exit_code == 0, down.output
        assert f"from {head_number} ({head}) to 0005 (pubs_1)." in down.output
        assert migrate.current_revisions(engine) == ("pubs_1",)
        assert "_import_drafts" in " ".join(_tables(engine))
        assert runner.invoke(args=["directory", "db", "current"]).output == "0005 (pubs_1)\n"
        assert (
            "already at 0005 (pubs_1)"
            in runner.invoke(args=["directory", "db", "downgrade", "5"]).output
        )

        # A relative step still works without `--`; an id as before.
        assert runner.invoke(args=["directory", "db", "upgrade", files[5][1]]).exit_code == 0
        assert migrate.current_revisions(engine) == (files[5][1],)
        assert runner.invoke(args=["directory", "db", "downgrade", "-1"]).exit_code == 0
        assert migrate.current_revisions(engine) == ("pubs_1",)

        for unknown in ("9999", "no_such_revision"):
            refused = runner.invoke(args=["directory", "db", "downgrade", unknown])
            assert refused.exit_code == 1
            assert unknown in refused.output.splitlines()[0]
            listing = refused.output[refused.output.index("The migrations") :]
            assert all(f"{n}  {r}" in listing for n, r in files)
            assert migrate.current_revisions(engine) == ("pubs_1",)

        up = runner.invoke(args=["directory", "db", "upgrade", str(int(head_number))])
        assert f"from 0005 (pubs_1) to {head_number} ({head})." in up.output
        assert files[-2][1] == one_before
    finally:
        migrate.downgrade(engine, "base")
        app.extensions["directory"].db.dispose()
