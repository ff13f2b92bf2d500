"""The package's layers, read from its source: models import nothing else of the plugin,
services and formats never import the web layer or the CLI, and no import cycle exists, not
even one held apart by an import inside a function or under ``if TYPE_CHECKING:`` (a module
that needs another's names only for its annotations still depends on it)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

PACKAGE = Path(__file__).resolve().parents[2] / "directory"

#: Imports inside functions allowed, with the reason (none other: such an import usually
#: hides a cycle).
LAZY_IMPORTS = {
    "directory": "PEP 562 __getattr__: `import directory.models` must not load the web layer",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


class Import(NamedTuple):
    target: str
    #: Inside a function (run when it is called).
    lazy: bool
    #: Under ``if TYPE_CHECKING:`` (for annotations only, never run).
    typing: bool


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks (not imports at run time)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            skip.update(id(child) for child in ast.walk(node))
    return skip


def _imports(name: str, path: Path) -> list[Import]:
    """Every import of another module of the plugin, at run time or for type checking."""
    tree = ast.parse(path.read_text(), str(path))
    typing = _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function.update(id(child) for child in ast.walk(node) if child is not node)
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parents = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parents, base] if base else parents)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                targets.append(candidate if candidate in MODULES else base)
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        for target in targets:
            if target in MODULES and target != name:
                found.append(Import(target, id(node) in in_function, id(node) in typing))
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}
#: What each module loads when it is imported or its functions run.
RUN_TIME = {name: [i for i in imports if not i.typing] for name, imports in GRAPH.items()}


def _layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_graph_is_read() -> None:
    assert len(MODULES) > 40
    assert Import("directory.models", False, False) in GRAPH["directory.services.changes"]
    assert Import("directory.services.identity", False, True) in GRAPH["directory.services.changes"]


def test_models_import_nothing_else_of_the_plugin() -> None:
    upward = [
        (name, target)
        for name, imports in RUN_TIME.items()
        if _layer(name) == "models"
        for target, _lazy, _typing in imports
        if _layer(target) != "models"
    ]
    assert upward == []


def test_services_and_formats_never_import_the_web_layer_or_the_cli() -> None:
    upward = [
        (name, target)
        for name, imports in RUN_TIME.items()
        if _layer(name) in ("services", "formats")
        for target, _lazy, _typing in imports
        if _layer(target) in ("web", "cli", "extension") or target == "directory"
    ]
    assert upward == []


#: What a format module (a pure codec: text in, plain data out, and back) may import of the
#: plugin: other formats, the models, and i18n (the reader's language, for its messages).
FORMATS_MAY_IMPORT = ("formats", "models", "i18n")
#: The frameworks a codec never touches: no request, no application, no session.
FRAMEWORKS = ("flask", "flask_babel", "flask_wtf", "werkzeug", "sqlalchemy")


def _external_imports(path: Path) -> set[str]:
    """The top-level names of the packages ``path`` imports (absolute imports only)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found


def test_formats_are_pure_codecs() -> None:
    """formats/ knows no service, database session, web layer or framework."""
    plugin = [
        (name, target)
        for name, imports in GRAPH.items()
        if _layer(name) == "formats"
        for target, *_ in imports
        if _layer(target) not in FORMATS_MAY_IMPORT
    ]
    frameworks = [
        (name, package)
        for name, path in MODULES.items()
        if _layer(name) == "formats"
        for package in sorted(_external_imports(path) & set(FRAMEWORKS))
    ]
    assert (plugin, frameworks) == ([], [])


def test_no_import_inside_a_function() -> None:
    lazy = [
        (name, target)
        for name, imports in RUN_TIME.items()
        for target, inside, _typing in imports
        if inside and name not in LAZY_IMPORTS
    ]
    assert lazy == []


def test_no_import_cycle() -> None:
    """Counting imports under ``if TYPE_CHECKING:``: a cycle of annotations is a cycle of
    modules that cannot be understood (or moved) one without the other."""
    edges = {name: {i.target for i in imports} for name, imports in GRAPH.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in edges[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in edges:
        if node not in index:
            visit(node)
    assert cycles == []


def test_importing_the_models_loads_no_service() -> None:
    code = (
        "import sys, directory.models\n"
        "print(sorted(m for m in sys.modules if m.startswith('directory.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=PACKAGE.parent,
    ).stdout  # fmt: skip
    loaded = eval(out)  # noqa: S307 - our own subprocess's repr of a list of names
    assert loaded and all(name.startswith("directory.models") for name in loaded), loaded


#: What reaches the network: a codec reads text it is given, a service fetches it.
NETWORK = ("urllib.request", "http.client", "httpx", "requests", "socket")


def test_formats_never_reach_the_network() -> None:
    fetching = [
        (name, alias.name if isinstance(node, ast.Import) else node.module)
        for name, path in MODULES.items()
        if _layer(name) == "formats"
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
        if (alias.name if isinstance(node, ast.Import) else node.module or "").startswith(NETWORK)
    ]
    assert fetching == []


def test_the_database_module_is_only_the_engine_and_the_session() -> None:
    """db.py sits under services: the gates every write passes are a service
    (services/write_gates.py), installed by the extension."""
    assert {imp.target for imp in GRAPH["directory.db"]} <= {"directory.models"}


def test_no_test_imports_the_benchmarks() -> None:
    """The benchmarks measure what the tests build (tests/support), never the other way."""
    tests = Path(__file__).resolve().parents[1]
    offenders = [
        str(path.relative_to(tests))
        for path in tests.rglob("*.py")
        if "benchmarks" in _external_imports(path)
    ]
    assert offenders == []
