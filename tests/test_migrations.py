"""The plugin's Alembic lineage builds exactly the models' schema, and goes down and up again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect

from directory import migrate
from directory.db import make_engine
from directory.models import Base

from .conftest import scratch_database


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
