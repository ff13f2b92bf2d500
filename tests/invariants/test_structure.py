"""The structure's goals (docs/architecture.md, "Measuring the structure"), read from the source
by scripts/structure_figures.py, the same script anyone runs to print them: a module, function
or block that grows past its limit, a view that writes or catches a conflict, fails here."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.engine_independent

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "structure_figures.py"


def _figures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("structure_figures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FIGURES = _figures()


def test_no_block_is_too_complex() -> None:
    assert FIGURES.complex_blocks() == []


def test_at_most_three_long_functions() -> None:
    assert len(FIGURES.long_functions()) <= 3, FIGURES.long_functions()


def test_at_most_one_long_module() -> None:
    assert len(FIGURES.long_modules()) <= 1, FIGURES.long_modules()


def test_no_view_catches_a_conflict() -> None:
    """One blueprint error handler answers a conflict; no view catches it."""
    assert FIGURES.conflict_handlers() == []


def test_no_view_writes_to_the_session() -> None:
    """Views call operations; the operations write."""
    assert FIGURES.session_writes_in_web() == []


def test_field_labels_are_one_table() -> None:
    assert len(FIGURES.field_labels_definitions()) == 1


def test_the_measures_see_what_they_count(tmp_path: Path) -> None:
    """A throwaway view that writes, queries and catches a conflict is counted by each measure
    (so an empty figure above means none, not a measure that reads nothing)."""
    view = tmp_path / "view.py"
    view.write_text(
        "def view(session):\n"
        "    try:\n"
        "        session.add(1)\n"
        "    except (Conflict, StaleDataError):\n"
        "        pass\n"
        "    return select(x)\n" + "    x = 1\n" * 80
    )
    assert len(FIGURES.session_calls([view], FIGURES.SESSION_WRITES, with_select=True)) == 2
    assert len(FIGURES.conflict_handlers_in([view])) == 1
    assert len(FIGURES.long_functions_in([view])) == 1
