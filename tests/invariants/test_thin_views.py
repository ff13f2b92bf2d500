"""The web layer loads, checks, calls one operation and responds: read from the source of
every module of directory/web/ (an AST walk, nothing imported), so that the next view
someone writes is held to it too.

- no session write (``add``, ``add_all``, ``delete``, ``merge``, ``flush``, ``commit``,
  ``execute`` on a session) and no assignment to an attribute of a loaded model: a view that
  changes the model is an operation not yet written (directory/services/operations/);
- no handler naming ``Conflict`` or ``StaleDataError``: the one conflict handler answers
  (directory/web/conflicts.py);
- no query (``select(``, ``session.get/scalar/scalars/execute``): a read a page needs is
  named in services. :data:`STILL_QUERYING` lists the modules that still hold queries, with
  how many; it may only shrink (the test fails when a count goes up, a module is missing
  from it, or a count went down without the list following).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from directory import models as m

WEB = Path(__file__).resolve().parents[2] / "directory" / "web"
SESSION_WRITES = {"add", "add_all", "delete", "merge", "flush", "commit", "execute"}
SESSION_READS = {"get", "execute", "scalar", "scalars"}
CONFLICTS = {"Conflict", "StaleDataError"}

#: Modules of directory/web/ that still hold queries, and how many (none now: keep it so).
STILL_QUERYING: dict[str, int] = {}

#: Names that hold forms, fields, responses or Flask's globals, never a loaded model.
_NOT_MODELS = {"self", "form", "field", "response", "g", "request", "app", "state"}

#: What WTForms fields have (a field's `data`, `errors`...), never a model's change here.
_FIELD_ATTRIBUTES = {"data", "errors", "choices", "label", "description", "render_kw", "default"}


def _modules() -> list[Path]:
    return sorted(p for p in WEB.rglob("*.py") if "__pycache__" not in p.parts)


def _name(path: Path) -> str:
    return path.relative_to(WEB.parent.parent).as_posix()


def _owner(node: ast.Attribute) -> str:
    owner = node.value
    if isinstance(owner, ast.Name):
        return owner.id
    if isinstance(owner, ast.Attribute):
        return owner.attr
    if isinstance(owner, ast.Call):
        func = owner.func
        return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return ""


def _session_calls(tree: ast.AST, methods: set[str]) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in methods
        and "session" in _owner(node.func)
    ]


def _model_attributes() -> set[str]:
    """Every column and relationship name of the directory's models."""
    keys = {attr.key for mapper in m.Base.registry.mappers for attr in mapper.attrs}
    return keys - {"id"} - _FIELD_ATTRIBUTES


def _root(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _chain(node: ast.Attribute) -> list[str]:
    names = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        names.append(current.attr)
        current = current.value
    return names


def _model_assignments(tree: ast.AST, attributes: set[str]) -> list[int]:
    """Assignments such as ``person.active = False`` or ``person.photo.focus_x = x``: the
    target's attribute is a model's and its root is not a form (``form.version.data``)."""
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if not isinstance(part, ast.Attribute) or not isinstance(part.ctx, ast.Store):
                    continue
                root = _root(part)
                if not root or root in _NOT_MODELS or root.endswith("form"):
                    continue
                if part.attr in attributes and "form" not in "".join(_chain(part)):
                    found.append(part.lineno)
    return found


def _conflict_handlers(tree: ast.AST) -> list[int]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            names = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
            names |= {n.attr for n in ast.walk(node.type) if isinstance(n, ast.Attribute)}
            if names & CONFLICTS:
                found.append(node.lineno)
    return found


def _queries(tree: ast.AST) -> int:
    selects = sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "select"
    )
    return selects + len(_session_calls(tree, SESSION_READS))


def test_no_view_writes_to_the_session() -> None:
    found = {
        f"{_name(p)}:{line}"
        for p in _modules()
        for line in _session_calls(ast.parse(p.read_text()), SESSION_WRITES)
    }
    assert found == set(), "write through an operation (directory/services/operations/)"


def test_no_view_assigns_to_a_model() -> None:
    attributes = _model_attributes()
    found = {
        f"{_name(p)}:{line}"
        for p in _modules()
        for line in _model_assignments(ast.parse(p.read_text()), attributes)
    }
    assert found == set(), "change the model in an operation (directory/services/operations/)"


def test_no_view_catches_a_conflict() -> None:
    found = {
        f"{_name(p)}:{line}"
        for p in _modules()
        for line in _conflict_handlers(ast.parse(p.read_text()))
    }
    assert found == set(), "let it through: directory/web/conflicts.py answers (@on_conflict)"


def test_queries_live_in_services() -> None:
    counts = Counter({_name(p): _queries(ast.parse(p.read_text())) for p in _modules()})
    holding = {name: n for name, n in counts.items() if n}
    assert holding == STILL_QUERYING, "name the read in services; keep STILL_QUERYING exact"


def test_the_checks_see_what_they_look_for() -> None:
    """Each check finds its offence in a made-up view (so that an empty answer means
    something)."""
    view = ast.parse(
        "def v(person, session, form):\n"
        "    session.add(person)\n"
        "    person.active = False\n"
        "    person.photo.focus_x = 5\n"
        "    form.version.data = person.version\n"
        "    try:\n"
        "        pass\n"
        "    except (Conflict, StaleDataError):\n"
        "        pass\n"
        "    return session.scalar(select(person))\n"
    )
    assert _session_calls(view, SESSION_WRITES) == [2]
    assert _model_assignments(view, _model_attributes()) == [3, 4]
    assert _conflict_handlers(view) == [8]
    assert _queries(view) == 2
