"""Counting the SQL statements a request sends, and the rows it fetches, for the benchmark and
the query-count tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.engine import cursor as _cursor

#: Transaction control is not a query: SQLite's explicit BEGIN (see directory/db.py) and the
#: test suite's savepoints would otherwise be counted on one database and not the other.
_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


class StatementLog:
    def __init__(self) -> None:
        self.statements: list[str] = []
        #: Rows the database sent back (every fetch of every result), when counted.
        self.rows = 0

    def __len__(self) -> int:
        return len(self.statements)

    def __str__(self) -> str:
        return "\n".join(f"{i + 1:3}. {s[:160]}" for i, s in enumerate(self.statements))


@contextmanager
def count_statements(engine: Engine) -> Iterator[StatementLog]:
    """Collect every statement ``engine`` executes inside the block (transaction control aside)."""
    log = StatementLog()

    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if not statement.lstrip().upper().startswith(_CONTROL):
            log.statements.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield log
    finally:
        event.remove(engine, "before_cursor_execute", before)


#: The strategies through which every result's rows pass from the driver's cursor.
_STRATEGIES = (
    _cursor.CursorFetchStrategy,
    _cursor.BufferedRowCursorFetchStrategy,
    _cursor.FullyBufferedCursorFetchStrategy,
)


@contextmanager
def count_rows(log: StatementLog) -> Iterator[StatementLog]:
    """Add to ``log.rows`` every row any result fetches inside the block (benchmark only: it
    wraps SQLAlchemy's fetch strategies for the duration, in this process)."""
    saved = []

    def wrap(cls: type, name: str) -> None:
        original = cls.__dict__[name]
        saved.append((cls, name, original))

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            found = original(self, *args, **kwargs)
            if name == "fetchone":
                log.rows += found is not None
            else:
                log.rows += len(found)
            return found

        setattr(cls, name, counted)

    for cls in _STRATEGIES:
        for name in ("fetchone", "fetchmany", "fetchall"):
            if name in cls.__dict__:
                wrap(cls, name)
    try:
        yield log
    finally:
        for cls, name, original in reversed(saved):
            setattr(cls, name, original)
