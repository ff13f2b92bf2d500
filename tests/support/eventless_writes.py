"""Finding, in source code, the writes that pass no ORM mapper event: SQL statements (Core or
ORM-enabled) and the bulk methods. Stored values derived from others (people's name orders,
typed student names, papers' title words) are kept by mapper events, so the tests that guard
them scan the package for such writes (tests/invariants/test_name_keys.py,
tests/invariants/test_title_words.py)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "directory"

#: Writes that pass no mapper event: SQL statements (Core or ORM-enabled) and the bulk methods.
EVENTLESS = ("insert", "update", "bulk_save_objects", "bulk_insert_mappings",
             "bulk_update_mappings")  # fmt: skip


def names(node: ast.AST) -> set[str]:
    """The names and attribute names in ``node``."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def eventless_writes(tree: ast.AST) -> Iterator[tuple[set, ast.Call, str, ast.AST]]:
    """Each eventless write in a simple statement of ``tree``, as (what its statement names:
    names, keyword arguments and constants; the call; the call's name; what it writes: the
    first argument, or the object ``.update()`` is called on)."""
    simple = (n for n in ast.walk(tree) if isinstance(n, ast.stmt) and not hasattr(n, "body"))
    for statement in simple:
        named = names(statement) | {
            getattr(n, "arg", None) or getattr(n, "value", None)
            for n in ast.walk(statement)
            if isinstance(n, ast.keyword | ast.Constant)
        }
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            # insert(m.Person), bulk_insert_mappings(Person, ...), m.Person.__table__.update()
            target = node.args[0] if node.args else getattr(node.func, "value", None)
            if name in EVENTLESS and target is not None:
                yield named, node, name, target


def package_offenders(scan: Callable[[ast.AST], list[int]]) -> list[str]:
    """``path:line`` of every line ``scan`` finds in the package's modules."""
    return [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in PACKAGE.rglob("*.py")
        for line in scan(ast.parse(path.read_text(), str(path)))
    ]
