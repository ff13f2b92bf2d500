"""Counting the SQL statements a request sends, for the benchmark and the query-count tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event

#: Transaction control is not a query: SQLite's explicit BEGIN (see directory/db.py) and the
#: test suite's savepoints would otherwise be counted on one database and not the other.
_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


class StatementLog:
    def __init__(self) -> None:
        self.statements: list[str] = []

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
