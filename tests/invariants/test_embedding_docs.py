"""What docs/embedding.md and the README tell a host developer holds: every URL prefix they
suggest gives clean profile URLs (no /people/people/...), the flaskr recipe applies the
directory's settings before the host's test configuration and has the viewport meta tag, and
``flask directory db upgrade`` says what it did."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from flask import url_for

from directory import migrate
from tests.conftest import make_app

ROOT = Path(__file__).resolve().parents[2]
DOCS = {name: (ROOT / name).read_text() for name in ("docs/embedding.md", "README.md")}
SUGGESTED = re.compile(r'DIRECTORY_URL_PREFIX\s*=\s*"([^"]*)"')
PREFIXES = sorted({prefix for text in DOCS.values() for prefix in SUGGESTED.findall(text)})


def test_the_docs_suggest_prefixes() -> None:
    assert "/directory" in PREFIXES and len(PREFIXES) >= 3


@pytest.mark.parametrize("prefix", PREFIXES)
def test_every_suggested_prefix_gives_profile_urls_without_a_repeated_segment(prefix) -> None:
    app = make_app(DIRECTORY_URL_PREFIX=prefix)
    with app.test_request_context():
        path = url_for("directory.profile", slug="ada-lovelace")
    segments = [s for s in path.split("/") if s]
    assert len(segments) == len(set(segments)), path


def test_the_flaskr_recipe_sets_the_directory_before_the_test_config() -> None:
    text = DOCS["docs/embedding.md"]
    recipe = text[text.index("### 4.2") : text.index("### 4.3")]
    assert recipe.index('DIRECTORY_IDENTITY_SOURCE="g"') < recipe.index("from_mapping(test_config)")
    assert recipe.index("from_mapping(test_config)") < recipe.index("Directory(app)")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in recipe
    assert 'DIRECTORY_LOGIN_URL="/auth/login"' in recipe


def test_db_upgrade_says_what_it_did(scratch_url) -> None:
    app = make_app(DIRECTORY_DATABASE_URL=scratch_url)
    engine = app.extensions["directory"].db.engine
    (head,) = ScriptDirectory.from_config(migrate.alembic_config(engine)).get_heads()
    runner = app.test_cli_runner()
    first = runner.invoke(args=["directory", "db", "upgrade"])
    assert first.exit_code == 0, first.output
    assert "Upgraded the directory's tables from nothing to " in first.output
    assert first.output.rstrip().endswith(f"({head}).")
    again = runner.invoke(args=["directory", "db", "upgrade"])
    assert "The directory's tables are already at " in again.output
    assert again.output.rstrip().endswith(f"({head}).")
    migrate.downgrade(engine, "base")
    app.extensions["directory"].db.dispose()
