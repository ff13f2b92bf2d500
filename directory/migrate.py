"""The plugin's own Alembic lineage: its own version table, only ``directory_*`` tables.

Used by ``flask directory db ...`` and by tests; a host never needs its own Alembic
environment to know about these tables (see :func:`include_object` for the host filter).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Engine

from directory.resources import resource_dir

VERSION_TABLE = "alembic_version_directory"
TABLE_PREFIX = "directory_"
#: Full-text structures only one engine has (SQLite's FTS5 table and its shadow tables,
#: PostgreSQL's GIN expression index), created by the search migration with raw DDL and
#: therefore not in the metadata. See directory/search.py.
NATIVE_SEARCH_PREFIX = "directory_search_fts"


#: Indexes the migrations build in a form of each engine's own, left out of the models (whose
#: one form could not say both): the department's papers newest first, which PostgreSQL needs
#: built with the order's NULLS LAST and SQLite (which refuses NULLS LAST in an index) reads
#: backwards (migration ``speed_3``); and, on PostgreSQL only, the papers by DOI compared
#: case-blind, an index of an expression (migration ``dedup_1``).
ENGINE_SPECIFIC_INDEXES = frozenset(
    {"ix_directory_publications_newest", "ix_directory_publications_doi_folded"}
)


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    """Alembic filter keeping only the plugin's tables (and their indexes and constraints).

    The search migration's engine-specific structures (named ``directory_search_fts...``) and
    :data:`ENGINE_SPECIFIC_INDEXES` exist in the database but not in the models on purpose:
    when reflected without a counterpart in the metadata they are left out, so comparing the
    database with the models shows no diff."""
    if reflected and compare_to is None and name and name.startswith(NATIVE_SEARCH_PREFIX):
        return False
    if reflected and compare_to is None and name in ENGINE_SPECIFIC_INDEXES:
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


#: A migration file's name: its number, then what it does (``0005_import_drafts.py``).
_NUMBERED_FILE = re.compile(r"(\d+)_")


@dataclass(frozen=True)
class Migration:
    """One migration: ``number`` comes from its file's name (``0005_...py``: "0005"),
    ``revision`` is the Alembic revision id a database stores (``pubs_1``), ``description``
    the first line of its docstring. The ids were chosen by the branches that wrote them, so
    they do not follow the numbers; a deployed database stores them, so they never change."""

    number: str | None
    revision: str
    description: str


class BadRevision(ValueError):
    """A revision asked for that is neither a migration's number nor one Alembic can go to;
    :attr:`message` says why and lists the migrations."""

    def __init__(self, asked: str, migrations: list[Migration], reason: str) -> None:
        rows = "\n".join(f"  {_row(each)}" for each in migrations)
        self.message = f"{reason}\nThe migrations (number, revision id, what it does):\n{rows}"
        super().__init__(self.message)
        self.asked = asked


def _row(migration: Migration, current: bool = False) -> str:
    mark = "  (current)" if current else ""
    return f"{migration.number or '----'}  {migration.revision:<14} {migration.description}{mark}"


def _script(engine: Engine) -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config(engine))


def migrations(engine: Engine) -> list[Migration]:
    """Every migration, oldest first."""
    found = []
    for script in reversed(list(_script(engine).walk_revisions())):
        numbered = _NUMBERED_FILE.match(Path(script.path).name)
        description = (script.doc or "").strip().splitlines()
        found.append(
            Migration(
                numbered.group(1) if numbered else None,
                script.revision,
                description[0] if description else "",
            )
        )
    return found


def resolve(engine: Engine, revision: str) -> str:
    """The Alembic revision for ``revision``: a migration's number (``0005``, or ``5``)
    becomes its revision id; anything else (an id, ``heads``, ``base``, ``-1``, ``pubs_1+1``...)
    is left to Alembic."""
    if not (revision.isascii() and revision.isdigit()):
        return revision
    known = migrations(engine)
    matching = [each for each in known if each.number and int(each.number) == int(revision)]
    if len(matching) == 1:
        return matching[0].revision
    reason = (
        f"There is no migration number {revision}."
        if not matching
        else f"More than one migration is numbered {revision}: give its revision id."
    )
    raise BadRevision(revision, known, reason)


def _move(step: Any, engine: Engine, revision: str) -> None:
    """Alembic's ``step`` (upgrade or downgrade) to ``revision``; a revision Alembic cannot
    go to is a :class:`BadRevision` with the list of migrations."""
    target = resolve(engine, revision)
    try:
        step(alembic_config(engine), target)
    except CommandError as error:
        raise BadRevision(revision, migrations(engine), f"{error}.") from error


def history(engine: Engine) -> list[str]:
    """One line per migration, oldest first: number, revision id, what it does, and which
    the database is at."""
    current = set(current_revisions(engine))
    return [_row(each, each.revision in current) for each in migrations(engine)]


def describe(engine: Engine, revisions: tuple[str, ...]) -> str:
    """``revisions`` by number and id (``0005 (pubs_1)``), or "nothing" when empty."""
    numbers = {each.revision: each.number for each in migrations(engine)}
    named = [f"{numbers[r]} ({r})" if numbers.get(r) else r for r in revisions]
    return ", ".join(named) or "nothing"


def upgrade(engine: Engine, revision: str = "heads") -> None:
    _move(command.upgrade, engine, revision)


def downgrade(engine: Engine, revision: str = "base") -> None:
    _move(command.downgrade, engine, revision)


def revision(engine: Engine, message: str, autogenerate: bool = True) -> None:
    command.revision(alembic_config(engine), message=message, autogenerate=autogenerate)


def at_head(engine: Engine) -> bool:
    """Whether the directory's tables are at the newest migration (today's models fit them)."""
    return set(current_revisions(engine)) == set(_script(engine).get_heads())


def current_revisions(engine: Engine) -> tuple[str, ...]:
    """The revisions the database is at (empty: no directory tables yet)."""
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
        return tuple(sorted(context.get_current_heads()))
