"""The plugin's own Alembic lineage: its own version table, only ``directory_*`` tables.

Used by ``flask directory db ...`` and by tests; a host never needs its own Alembic
environment to know about these tables (see :func:`include_object` for the host filter).
"""

from __future__ import annotations

from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine

from directory.resources import resource_dir

VERSION_TABLE = "alembic_version_directory"
TABLE_PREFIX = "directory_"
#: Full-text structures only one engine has (SQLite's FTS5 table and its shadow tables,
#: PostgreSQL's GIN expression index), created by the search migration with raw DDL and
#: therefore not in the metadata. See directory/search.py.
NATIVE_SEARCH_PREFIX = "directory_search_fts"


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    """Alembic filter keeping only the plugin's tables (and their indexes and constraints).

    The search migration's engine-specific structures (named ``directory_search_fts...``) exist
    in the database but not in the models on purpose: when reflected without a counterpart in
    the metadata they are left out, so comparing the database with the models shows no diff."""
    if reflected and compare_to is None and name and name.startswith(NATIVE_SEARCH_PREFIX):
        return False
    if type_ == "table":
        return bool(name and name.startswith(TABLE_PREFIX))
    table = getattr(obj, "table", None)
    if table is not None:
        return table.name.startswith(TABLE_PREFIX)
    return True


def exclude_directory_tables(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    """The one-line filter for a *host's* migration environment: pass it as
    ``include_object=exclude_directory_tables`` so the host's ``flask db migrate`` never sees
    the directory's tables or its version table."""
    if type_ == "table":
        return not (name and (name.startswith(TABLE_PREFIX) or name == VERSION_TABLE))
    table = getattr(obj, "table", None)
    if table is not None:
        return not table.name.startswith(TABLE_PREFIX)
    return True


def alembic_config(engine: Engine) -> Config:
    """An Alembic Config for the plugin's lineage bound to ``engine``."""
    config = Config()
    config.set_main_option("script_location", str(resource_dir("migrations")))
    config.set_main_option("version_table", VERSION_TABLE)
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine, revision: str = "heads") -> None:
    command.upgrade(alembic_config(engine), revision)


def downgrade(engine: Engine, revision: str = "base") -> None:
    command.downgrade(alembic_config(engine), revision)


def revision(engine: Engine, message: str, autogenerate: bool = True) -> None:
    command.revision(alembic_config(engine), message=message, autogenerate=autogenerate)


def current_revisions(engine: Engine) -> tuple[str, ...]:
    """The revisions the database is at (empty: no directory tables yet)."""
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
        return tuple(sorted(context.get_current_heads()))


def current(engine: Engine) -> None:
    command.current(alembic_config(engine), verbose=False)
