"""Print the structure figures of the package (docs/architecture.md, "Measuring the structure").

    python scripts/structure_figures.py [--list]

Everything is read from the source, nothing is imported or run:

- modules over 800 lines, functions over 80 lines (an AST walk; a function's lines run from its
  ``def`` to its last statement);
- blocks of cyclomatic complexity over 30 (radon's ``cc_visit``, when radon is installed);
- in ``directory/web/``: handlers that catch ``Conflict`` or ``StaleDataError``, session writes
  (``add``, ``add_all``, ``delete``, ``merge``, ``flush``, ``commit``, ``execute``) and queries
  (``select(``, ``session.get``, ``session.execute``, ``session.scalar(s)``), also in ``cli.py``;
- how many times ``FIELD_LABELS`` is assigned at a module's top level.

``--list`` names every place counted, a line each.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "directory"

LONG_MODULE = 800
LONG_FUNCTION = 80
COMPLEX_BLOCK = 30
SESSION_WRITES = {"add", "add_all", "delete", "merge", "flush", "commit", "execute"}
SESSION_READS = {"get", "execute", "scalar", "scalars"}


def _files(under: Path) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if "__pycache__" not in p.parts)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def long_modules() -> list[str]:
    found = []
    for path in _files(PACKAGE):
        lines = len(path.read_text().splitlines())
        if lines > LONG_MODULE:
            found.append(f"{_rel(path)} {lines}")
    return found


def long_functions() -> list[str]:
    return long_functions_in(_files(PACKAGE))


def long_functions_in(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > LONG_FUNCTION:
                    found.append(f"{_rel(path)}:{node.lineno} {node.name} {length}")
    return found


def complex_blocks() -> list[str] | None:
    try:
        from radon.complexity import cc_visit
    except ImportError:
        return None
    found = []
    for path in _files(PACKAGE):
        for block in cc_visit(path.read_text()):
            items = [block, *getattr(block, "methods", [])]
            for item in items:
                if item.complexity > COMPLEX_BLOCK:
                    found.append(f"{_rel(path)}:{item.lineno} {item.name} {item.complexity}")
    return sorted(set(found))


def _catches_conflict(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return False
    nodes = list(ast.walk(handler.type))
    names = {n.id for n in nodes if isinstance(n, ast.Name)}
    names |= {n.attr for n in nodes if isinstance(n, ast.Attribute)}
    return bool(names & {"Conflict", "StaleDataError"})


def conflict_handlers() -> list[str]:
    return conflict_handlers_in(_files(PACKAGE / "web"))


def conflict_handlers_in(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ExceptHandler) and _catches_conflict(node):
                found.append(f"{_rel(path)}:{node.lineno}")
    return found


def session_calls(paths: list[Path], methods: set[str], with_select: bool) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if with_select and isinstance(func, ast.Name) and func.id == "select":
                found.append(f"{_rel(path)}:{node.lineno} select")
            if isinstance(func, ast.Attribute) and func.attr in methods:
                owner = func.value
                owner_name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
                if "session" in owner_name:
                    found.append(f"{_rel(path)}:{node.lineno} {owner_name}.{func.attr}")
    return found


def session_writes_in_web() -> list[str]:
    return session_calls(_files(PACKAGE / "web"), SESSION_WRITES, with_select=False)


def queries_in_web_and_cli() -> list[str]:
    paths = [*_files(PACKAGE / "web"), PACKAGE / "cli.py"]
    return session_calls([p for p in paths if p.exists()], SESSION_READS, with_select=True)


def field_labels_definitions() -> list[str]:
    found = []
    for path in _files(PACKAGE):
        for node in ast.parse(path.read_text()).body:
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            if any(isinstance(t, ast.Name) and t.id == "FIELD_LABELS" for t in targets):
                found.append(f"{_rel(path)}:{node.lineno}")
    return found


FIGURES = [
    (f"modules over {LONG_MODULE} lines", long_modules),
    (f"functions over {LONG_FUNCTION} lines", long_functions),
    (f"blocks of complexity over {COMPLEX_BLOCK} (radon)", complex_blocks),
    ("conflict handlers in web/", conflict_handlers),
    ("session writes in web/", session_writes_in_web),
    ("queries in web/ and cli.py", queries_in_web_and_cli),
    ("FIELD_LABELS definitions", field_labels_definitions),
]


def main(argv: list[str]) -> int:
    show = "--list" in argv
    for title, measure in FIGURES:
        places = measure()
        if places is None:
            print(f"{title}: not measured (pip install radon)")
            continue
        print(f"{title}: {len(places)}")
        if show:
            for place in places:
                print(f"    {place}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
