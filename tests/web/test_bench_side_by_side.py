"""benchmarks/side_by_side.py: two workers on a generated department answer the driver's blocks,
and the table names every page asked for with a figure for each side. It measures nothing here
(a tiny department, one request a block); it keeps the script from rotting between sittings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from directory import migrate
from directory.db import make_engine
from directory.services import search_index
from tests.support.synthetic import Sizes, generate

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["listing", "largest profile", "search"]
TINY = Sizes(faculty=3, members=10, alumni=2, publications=40, notices=3)


@pytest.mark.slow  # two worker processes
def test_both_sides_answer_every_page_asked_for(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bench.sqlite3'}"
    engine = make_engine(url)
    migrate.upgrade(engine)
    with Session(engine) as session:  # what benchmarks/run.py generates, much smaller
        generate(session, TINY)
        search_index.rebuild(session)
        session.commit()
    engine.dispose()
    python = ["--a-python", sys.executable, "--b-python", sys.executable]
    result = subprocess.run(
        [sys.executable, "benchmarks/side_by_side.py", *python, "--a-db", url, "--b-db", url]
        + ["--names", "one,two", "--rounds", "2", "--requests", "1", *PAGES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "| page | one ms p50 | two ms p50 | two ÷ one" in result.stdout
    cells = [line.split("|") for line in result.stdout.splitlines() if line.startswith("| ")]
    rows = {row[1].strip(): row[2:-1] for row in cells}
    for page in PAGES:
        one, two, ratio, *_rest, blocks = rows[page]
        assert float(one) > 0 and float(two) > 0 and float(ratio) > 0, rows[page]
        assert blocks.strip().endswith("/2"), rows[page]  # both rounds of both sides counted
