"""What a harvest of the whole department costs: matching the works and writing candidates.

    python benchmarks/harvest.py [--people 1750] [--works 15] [--publications 25000]

Generates the department (tests/support/synthetic.py: 1,750 people and 25,000 papers by
default) into a fresh SQLite file, gives every person the four identifiers, and starts the
loopback harvest server (tests/support/harvest_server.py) in a child process serving ``--works``
works per person per source, under each person's own name. Then runs the harvest twice,
exactly as ``flask directory harvest`` does, and prints for each run: works harvested,
candidates written, wall time, this process's CPU split into fetching and parsing (inside the
sources' adapters) and matching and writing (the rest: the claim queue's work), the CPU per
harvested work of the latter (goal: at most 2 ms), and the rows each run wrote (the second,
with nothing new, none). Then the peak memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from directory import migrate  # noqa: E402
from directory import models as m  # noqa: E402
from directory.services.claims.harvest import run_harvest  # noqa: E402
from directory.services.harvest.sources import SOURCES, harvest_person  # noqa: E402
from directory.services.identity import Viewer  # noqa: E402
from tests.support.harvest_data import generated_people  # noqa: E402
from tests.support.harvest_server import SOURCE_PREFIXES  # noqa: E402
from tests.support.synthetic import Sizes, generate  # noqa: E402
from wsgi import create_app  # noqa: E402

ROBOT = Viewer(key=None, is_admin=True, name="command line")
COUNTED = (m.ClaimCandidate, m.HarvestRun, m.Publication, m.ProfilePublication, m.Authorship,
           m.ChangeRecord, m.ClaimRejection, m.HarvestLock)  # fmt: skip


def _rows(session: Session) -> int:
    return sum(session.scalar(select(func.count()).select_from(t)) for t in COUNTED)


def _identify(session: Session, count: int, folder: Path) -> Path:
    """Give the first ``count`` people the generated identifiers; the server's people file."""
    people = list(session.scalars(select(m.Person).order_by(m.Person.id).limit(count)))
    served = []
    for person, ids in zip(people, generated_people(len(people)), strict=True):
        person.orcid, person.dblp_pid = ids.orcid, ids.dblp
        person.openalex_id, person.semantic_scholar_id = ids.openalex, ids.semantic_scholar
        served.append({"key": person.slug, "name": person.full_name, "orcid": ids.orcid,
                       "dblp": ids.dblp, "openalex": ids.openalex,
                       "semantic_scholar": ids.semantic_scholar})  # fmt: skip
    session.commit()
    path = folder / "people.json"
    path.write_text(json.dumps(served))
    return path


def _run(app, engine, label: str) -> None:
    fetching = [0.0]
    works = [0]

    def timed_fetch(*args):
        start = time.process_time()
        outcomes = harvest_person(*args)
        fetching[0] += time.process_time() - start
        works[0] += sum(len(o.works) for o in outcomes)
        return outcomes

    with app.app_context(), Session(engine) as session:
        before = _rows(session)
        wall, cpu = time.perf_counter(), time.process_time()
        report = run_harvest(session, ROBOT, app.config, fetch=timed_fetch)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        written = _rows(session) - before
    matching = cpu - fetching[0]
    new = sum(line.new for line in report.lines)
    errors = sum(len(line.errors) for line in report.lines)
    per_work = matching / max(works[0], 1) * 1000
    print(
        f"{label}: {report.people} people, works harvested {works[0]}, new candidates {new}, "
        f"errors {errors}, rows written {written}"
    )
    print(
        f"  wall {wall:.1f} s, CPU {cpu:.1f} s = fetching and parsing {fetching[0]:.1f} s"
        f" + matching and writing {matching:.1f} s; {per_work:.3f} ms a harvested work"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=1750)
    parser.add_argument("--works", type=int, default=15)
    parser.add_argument("--publications", type=int, default=25_000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="harvest-bench-"))
    url = f"sqlite:///{folder / 'directory.sqlite3'}"
    app = create_app({"DIRECTORY_DATABASE_URL": url, "DIRECTORY_HARVEST_PAUSES": {}})
    engine = app.extensions["directory"].db.engine
    migrate.upgrade(engine)
    with Session(engine) as session:
        summary = generate(session, Sizes(publications=args.publications))
        session.commit()
        people_file = _identify(session, args.people, folder)
    print(f"department: {summary.people} people, {summary.publications} papers, "
          f"{args.people} harvested, {args.works} works per person per source")  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.harvest_server", "--people-file", str(people_file),
         "--works", str(args.works)],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        base = server.stdout.readline().split()[1]
        app.config["DIRECTORY_HARVEST_SOURCES"] = {n: base + SOURCE_PREFIXES[n] for n in SOURCES}
        _run(app, engine, "first run")
        _run(app, engine, "second run (nothing new)")
    finally:
        server.stdin.close()
        server.wait(10)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:.0f} MiB")


if __name__ == "__main__":
    main()
