"""Two versions of the code (or two databases) measured side by side, page by page, in turns.

On a shared virtual machine the CPU's speed changes within seconds: here the same fixed work
took 4.1 ms in one second and 7.8 ms in another, for minutes on end. Two ``run.py`` runs a
minute apart can therefore differ more than two codes do. Here each side is a worker process
(its own checkout, interpreter and database), and the driver asks them in turn for a block of
requests of one page: side A, side B, the next page, side B, side A... Every pair of blocks
is taken within a second or so, so whatever the machine does weighs on both alike; a page's
ratio is the median of its pairs' ratios.

Each block starts with a yardstick: the same fixed Python work in both workers, whatever
their code, timed three times (the least is kept). Its time is the machine's speed at that
moment. A block counts as taken *at full speed* when its yardstick is within 15 % of the
least of the run; each page's p50 is printed of all its requests and of those blocks alone.

    python benchmarks/side_by_side.py --a ../base --a-db sqlite:///base.sqlite3 \
        --b-db sqlite:///copy.sqlite3 --names before,after

``--a``/``--b``: a checkout (default this one) whose ``.venv/bin/python`` (or ``--a-python``)
runs the worker; the databases are ones ``run.py`` generated (``--reuse`` brings a copy to a
newer schema). To compare a department with a university, give both sides one checkout and
the two databases. A worker reads its checkout's own ``tests/support/measured_pages.py``;
pages that only one side has are named and left out. Prints Markdown; asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM_UP = 2  # requests of each page before the rounds: templates compiled, statements kept
YARDSTICKS = 3  # timings of the yardstick before each block; the least is kept
FULL_SPEED = 1.15  # a block whose yardstick is within this of the run's least


# ----------------------------------------------------------------------------- the worker


def yardstick() -> None:
    """A fixed piece of pure-Python work (sorting, dictionaries, strings), the same in both
    workers whatever their code: its CPU time is the machine's speed at that moment."""
    rows = [(i * 7919 % 1009, str(i)) for i in range(6000)]
    index: dict[int, list[str]] = {}
    for key, value in sorted(rows):
        index.setdefault(key, []).append(value.upper())
    "".join(f"<li>{k}:{','.join(v)}</li>" for k, v in index.items())


def serve(root: Path, url_db: str, collector: str) -> None:
    """Answer the driver's lines on stdin (a page's name and a number of requests) with a
    block's figures. The first line written names the pages this side has. ``collector``
    ``off``: Python's cyclic garbage collector disabled after the warm-up, so that two codes
    whose collections fall differently (``gc.freeze()`` or not) are compared on their work."""
    sys.path.insert(0, str(root))
    from sqlalchemy.orm import Session

    from benchmarks.app import make_app
    from benchmarks.run import prepare_viewers, signed_in
    from tests.support.measured_pages import PAGES
    from tests.support.synthetic import department_facts

    prepare_viewers(url_db)
    app = make_app(DIRECTORY_DATABASE_URL=url_db, DIRECTORY_CACHE_SECONDS=0)
    prefix = app.config["DIRECTORY_URL_PREFIX"].rstrip("/")
    with Session(app.extensions["directory"].db.engine) as session:
        facts = department_facts(session)
    clients = {}
    for page in PAGES:
        client = app.test_client()
        if page.viewer:
            with client.session_transaction() as sess:
                sess.update(signed_in(page.viewer))
        url = prefix + page.path(facts)
        if all(client.get(url).status_code == 200 for _ in range(WARM_UP)):
            clients[page.name] = (client, url)
    if collector == "off":
        gc.collect()
        gc.disable()
    print(json.dumps(list(clients)), flush=True)
    for line in sys.stdin:
        name, count = line.rsplit(" ", 1)
        ruler = []
        for _ in range(YARDSTICKS):
            started = time.process_time()
            yardstick()
            ruler.append((time.process_time() - started) * 1000)
        client, url = clients[name]
        spent, status = [], 200
        for _ in range(int(count)):
            started = time.process_time()
            status = client.get(url).status_code
            spent.append((time.process_time() - started) * 1000)
            if status != 200:
                break
        print(json.dumps({"yardstick": min(ruler), "ms": spent, "status": status}), flush=True)


# ----------------------------------------------------------------------------- the driver


@dataclass
class Block:
    yardstick: float
    ms: list[float]

    @property
    def p50(self) -> float:
        return statistics.median(self.ms)


class Side:
    def __init__(
        self, label: str, checkout: Path, python: str | None, url_db: str, collector: str
    ) -> None:
        self.label = label
        interpreter = python or str(checkout / ".venv" / "bin" / "python")
        script = str(Path(__file__).resolve())
        command = [interpreter, script, "--worker", str(checkout), url_db, collector]
        self.process = subprocess.Popen(
            command, cwd=checkout, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.pages: list[str] = json.loads(self._line())

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"side {self.label}: the worker stopped (its error is above)")
        return line

    def block(self, name: str, requests: int) -> Block:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{name} {requests}\n")
        self.process.stdin.flush()
        answer = json.loads(self._line())
        if answer["status"] != 200:
            sys.exit(f"side {self.label}: {name} answered {answer['status']}")
        return Block(answer["yardstick"], answer["ms"])

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def turns(pages: list[str], rounds: int) -> Iterator[tuple[int, str, bool]]:
    """(round, page, A first?): the order within a pair alternates, so neither side is
    always the one that runs right after the other."""
    for number in range(rounds):
        for position, name in enumerate(pages):
            yield number, name, (number + position) % 2 == 0


Pairs = dict[str, list[tuple[Block, Block]]]


def measure(a: Side, b: Side, pages: list[str], rounds: int, requests: int) -> Pairs:
    pairs: Pairs = {name: [] for name in pages}
    for number, name, a_first in turns(pages, rounds):
        first, second = (a, b) if a_first else (b, a)
        blocks = {first.label: first.block(name, requests)}
        blocks[second.label] = second.block(name, requests)
        pairs[name].append((blocks[a.label], blocks[b.label]))
        if name == pages[0]:
            print(f"  round {number + 1} of {rounds}", file=sys.stderr)
    return pairs


def _p50(blocks: list[Block]) -> str:
    times = [ms for block in blocks for ms in block.ms]
    return f"{statistics.median(times):.1f}" if times else "–"


def report(pairs: Pairs, labels: tuple[str, str]) -> str:
    a, b = labels
    least = min(block.yardstick for both in pairs.values() for pair in both for block in pair)
    full = least * FULL_SPEED
    lines = [
        f"Yardstick: least {least:.2f} ms; a block is at full speed when its yardstick is "
        f"at most {full:.2f} ms.",
        "",
        f"| page | {a} ms p50 | {b} ms p50 | {b} ÷ {a} (median of pairs) "
        f"| {a} at full speed | {b} at full speed | blocks at full speed |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, both in pairs.items():
        firsts, seconds = [x for x, _ in both], [y for _, y in both]
        ratio = statistics.median(y.p50 / x.p50 for x, y in both)
        fast = [[block for block in side if block.yardstick <= full] for side in (firsts, seconds)]
        lines.append(
            f"| {name} | {_p50(firsts)} | {_p50(seconds)} | {ratio:.2f} "
            f"| {_p50(fast[0])} | {_p50(fast[1])} "
            f"| {len(fast[0])}/{len(firsts)}, {len(fast[1])}/{len(seconds)} |"
        )
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--worker":
        serve(Path(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", type=Path, default=ROOT, help="side A's checkout")
    parser.add_argument("--b", type=Path, default=ROOT, help="side B's checkout")
    parser.add_argument("--a-python", help="side A's interpreter (default: its .venv)")
    parser.add_argument("--b-python", help="side B's interpreter (default: its .venv)")
    parser.add_argument("--a-db", required=True, help="side A's database URL")
    parser.add_argument("--b-db", required=True, help="side B's database URL")
    parser.add_argument("--names", default="A,B", help="the two sides' names in the table")
    parser.add_argument("--rounds", type=int, default=5, help="blocks of each page per side")
    parser.add_argument("--requests", type=int, default=6, help="requests per block")
    parser.add_argument(
        "--collector",
        choices=("on", "off"),
        default="on",
        help="off: no cyclic garbage collection in the workers after their warm-up",
    )
    parser.add_argument("--json", help="also write every block's figures to this file")
    parser.add_argument("pages", nargs="*", help="the pages' names (default: every common one)")
    args = parser.parse_args()
    labels = (*args.names.split(",", 1), "B")[:2]
    a = Side(labels[0], args.a.resolve(), args.a_python, args.a_db, args.collector)
    b = Side(labels[1], args.b.resolve(), args.b_python, args.b_db, args.collector)
    try:
        common = [name for name in a.pages if name in b.pages]
        for side, other in ((a, b), (b, a)):
            for name in side.pages:
                if name not in other.pages:
                    print(f"  {name}: only side {side.label} has it; left out", file=sys.stderr)
        pages = [name for name in args.pages if name in common] if args.pages else common
        started = time.perf_counter()
        pairs = measure(a, b, pages, args.rounds, args.requests)
    finally:
        a.close()
        b.close()
    seconds = time.perf_counter() - started
    print(f"{args.rounds} rounds of {args.requests} requests, {len(pages)} pages: {seconds:.0f} s")
    print(report(pairs, (labels[0], labels[1])))
    if args.json:
        raw = {name: [[x.__dict__, y.__dict__] for x, y in both] for name, both in pairs.items()}
        Path(args.json).write_text(json.dumps({"sides": labels, "pairs": raw}))


if __name__ == "__main__":
    main()
