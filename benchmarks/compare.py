"""Two or more ``benchmarks/run.py --json`` files side by side: for each page, each run's CPU ms
p50 (and the ratio of each run to the first), statements, rows and HTML KiB. Prints Markdown.

    python benchmarks/compare.py before.json after.json
    python benchmarks/compare.py --names "before,after" before.json after.json

Runs of two codes on copies of one database, taken alternately in one session, are the
comparison to trust on a shared machine; the statement, row and byte counts do not depend on
its load.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path


def load(path: Path) -> dict[str, dict]:
    return {page["page"]: page for page in json.loads(path.read_text())["pages"]}


def p50(page: dict) -> float | None:
    return statistics.median(page["cpu_ms"]) if page.get("cpu_ms") else None


def _counts(pages: list[dict | None], key: str, scale: float = 1) -> str:
    """A count of every run, once when they agree."""
    values = [f"{page[key] / scale:,.0f}" for page in pages if page]
    return values[0] if len(set(values)) == 1 else " / ".join(values)


def table(runs: list[dict[str, dict]], names: list[str]) -> str:
    head = ["page", *(f"{n} ms" for n in names), *(f"{n} ÷ {names[0]}" for n in names[1:])]
    head += ["statements", "rows", "HTML KiB"]
    lines = ["| " + " | ".join(head) + " |", "| --- |" + " ---: |" * (len(head) - 1)]
    for name in runs[0]:
        pages = [run.get(name) for run in runs]
        times = [p50(page) if page else None for page in pages]
        cells = [f"{t:.1f}" if t is not None else "–" for t in times]
        cells += [f"{t / times[0]:.2f}" if t is not None and times[0] else "–" for t in times[1:]]
        cells += [_counts(pages, k) for k in ("statements", "rows")]
        cells.append(_counts(pages, "html_bytes", 1024))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--names", help="comma-separated column names (default: file names)")
    args = parser.parse_args()
    names = args.names.split(",") if args.names else [f.stem for f in args.files]
    print(table([load(f) for f in args.files], names))


if __name__ == "__main__":
    main()
