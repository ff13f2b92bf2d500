"""What ranking people by what they work on costs (docs/search.md): a generated department
(tests/support/synthetic.py, the issue's sizes: 1,750 people and 25,000 papers) with the
judged topics planted in it, then

* a full reindex's wall time (the search index, then every vector);
* the CPU a question takes (time.process_time; p50 and p95 over the questions, each asked
  five times), ranking alone and with the reasons of a page of people, and its statements;
* the cost a write adds: the expertise component's CPU and wall time per paper, one paper
  a write and 200 a write;
* the memory a worker holds: resident set size before and after loading the model and the
  matrices, and the matrices' own bytes.

    .venv/bin/python -m benchmarks.expertise                  # SQLite file, one department
    .venv/bin/python -m benchmarks.expertise --small          # a tenth of that
    .venv/bin/python -m benchmarks.expertise --university 10 \\
        --db postgresql+psycopg://postgres@127.0.0.1:5432/bench
    .venv/bin/python -m benchmarks.expertise --reuse \\
        --db postgresql+psycopg://postgres@127.0.0.1:5432/bench_copy

The database given with --db is emptied (its directory tables are dropped and re-created),
unless --reuse: then it holds a department or university generated before (a copy of one
benchmarks/run.py built: generating a university takes half an hour), upgraded to the head
first; the judged topics are planted into it (once: a copy planted before is measured as it
is), what was planted is indexed, and every vector is rebuilt and timed. --reuse does not
rebuild the search index, so that time is not reported.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import event, func, select, update
from sqlalchemy.orm import Session

from directory import migrate
from directory import models as m
from directory.db import make_engine
from directory.services import search_index
from directory.services.expertise import model, ranking, vectors
from directory.services.identity import ANONYMOUS
from tests.support.expertise_judgments import DEMO, OFF_TOPIC, TOPICS, Judged, plant
from tests.support.synthetic import SMALL, Sizes, generate

#: Questions asked: the planted topics', the demo's (on nothing planted: a long tail of
#: weak matches, the costliest case) and some on nothing at all.
REPEATS = 5


def rss_mib() -> float:
    """This process's resident set size now (Linux /proc), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build(engine, sizes: Sizes, departments: int) -> tuple:
    migrate.downgrade(engine, "base")
    migrate.upgrade(engine)
    print("Generating...", file=sys.stderr)
    with Session(engine) as session:
        generate(session, sizes)
        judged = plant(session)
        for n in range(1, departments):
            print(f"  department {n + 1} of {departments}...", file=sys.stderr)
            generate(session, sizes, prefix=f"d{n}-")
        session.commit()
        started = time.perf_counter()
        search_index.rebuild(session)
        indexed = time.perf_counter() - started
        session.commit()
    return judged, indexed, *rebuild_vectors(session)


def rebuild_vectors(session: Session) -> tuple[int, tuple[float, float]]:
    """Every vector rebuilt and committed: how many, and the (wall, CPU) seconds it took."""
    started, cpu = time.perf_counter(), time.process_time()
    embedded = vectors.rebuild(session)
    session.commit()
    return embedded, (time.perf_counter() - started, time.process_time() - cpu)


def reuse(engine) -> tuple:
    """The database as it is (upgraded to the head), the judged topics planted once, what was
    planted indexed, and every vector rebuilt."""
    migrate.upgrade(engine)
    with Session(engine) as session:
        planted = session.scalar(
            select(func.count(m.Publication.id)).where(m.Publication.uid.like("planted-%"))
        )
        if planted:
            judged = tuple(Judged(q, {}, "", t.name) for t in TOPICS for q in topic_questions(t))
        else:
            print("Planting the judged topics...", file=sys.stderr)
            judged = plant(session)
            pubs = session.scalars(
                select(m.Publication.id).where(m.Publication.uid.like("planted-%"))
            ).all()
            authors = session.scalars(
                select(m.Authorship.person_id).where(m.Authorship.publication_id.in_(pubs))
            ).all()
            search_index.reindex(session, "publication", pubs)
            search_index.reindex(session, "person", {a for a in authors if a is not None})
            session.commit()
    return judged, None, *rebuild_vectors(session)


def topic_questions(topic) -> list[str]:
    """A planted topic's questions, in the order :func:`plant` judges them."""
    return [topic.keyword, *topic.paraphrases]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def questions_cost(session: Session, questions: list[str]) -> dict[str, float]:
    statements: list[int] = [0]

    def count(*_args) -> None:
        statements[0] += 1

    engine = session.get_bind()
    ranking.rank_people(session, questions[0], ANONYMOUS)  # load the model and the matrices
    rank_only, with_reasons, counts = [], [], []
    event.listen(engine, "before_cursor_execute", count)
    try:
        for question in questions:
            for _ in range(REPEATS):
                statements[0] = 0
                cpu = time.process_time()
                found = ranking.rank_people(session, question, ANONYMOUS)
                rank_only.append(time.process_time() - cpu)
                shown = ranking.people_in_order(session, found.people[:10])
                ranking.reasons(session, found, shown)
                with_reasons.append(time.process_time() - cpu)
                counts.append(statements[0])
    finally:
        event.remove(engine, "before_cursor_execute", count)
    return {
        "rank p50": statistics.median(rank_only) * 1000,
        "rank p95": percentile(rank_only, 0.95) * 1000,
        "page p50": statistics.median(with_reasons) * 1000,
        "page p95": percentile(with_reasons, 0.95) * 1000,
        "statements": statistics.median(counts),
    }


def write_cost(session: Session, batch: int, rounds: int) -> tuple[float, float]:
    """CPU and wall ms per paper of :func:`vectors.write` after the titles of ``batch``
    papers changed (what the unit of work's component does at commit)."""
    ids = list(session.scalars(select(m.Publication.id).order_by(m.Publication.id).limit(2000)))
    cpu_total = wall_total = 0.0
    for r in range(rounds):
        chosen = ids[r * batch % len(ids) :][:batch]
        session.execute(
            update(m.Publication)
            .where(m.Publication.id.in_(chosen))
            .values(title=m.Publication.title + f" (rev {r})")
        )
        wall, cpu = time.perf_counter(), time.process_time()
        vectors.write(session, "publication", chosen)
        session.flush()
        cpu_total += time.process_time() - cpu
        wall_total += time.perf_counter() - wall
    session.rollback()
    papers = batch * rounds
    return cpu_total / papers * 1000, wall_total / papers * 1000


def worker_memory(url: str) -> None:
    """What a fresh worker holds: the model, then the matrices of the database at ``url``."""
    before = rss_mib()
    model.embed(["warm up"])
    loaded = rss_mib()
    with Session(make_engine(url)) as session:
        found = vectors.matrices(session)
        ranking.rank_people(session, "LLM serving", ANONYMOUS)
    held = rss_mib()
    nbytes = sum(found[k].vectors.nbytes for k in vectors.KINDS) / 2**20
    print(
        f"memory of a worker: RSS {before:.0f} MiB after imports, +{loaded - before:.0f} MiB "
        f"the model, +{held - loaded:.0f} MiB the matrices and a question "
        f"({nbytes:.1f} MiB of float32 vectors)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLAlchemy URL (default: a temporary SQLite file)")
    parser.add_argument("--small", action="store_true", help="a tenth of the issue's sizes")
    parser.add_argument("--university", type=int, default=1, help="departments (default 1)")
    parser.add_argument(
        "--reuse", action="store_true", help="plant into the existing database --db (see above)"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker_memory(args.worker)
        return
    with tempfile.TemporaryDirectory() as folder:
        url = args.db or f"sqlite:///{Path(folder) / 'expertise.sqlite3'}"
        engine = make_engine(url)
        sizes = SMALL if args.small else Sizes()
        if args.reuse and not args.db:
            parser.error("--reuse needs --db")
        judged, indexed, embedded, (wall, cpu) = (
            reuse(engine) if args.reuse else build(engine, sizes, args.university)
        )
        with Session(engine) as session:
            people = session.scalar(select(func.count(m.Person.id)))
            papers = session.scalar(select(func.count(m.Publication.id)))
            print(f"{engine.dialect.name}: {people} people, {papers} papers")
            index = "not rebuilt (--reuse)" if indexed is None else f"{indexed:.1f} s"
            print(f"full reindex: search index {index}; {embedded} vectors {wall:.1f} s")
            print(f"  (embedding CPU {cpu:.1f} s)")
            # A worker of its own: this process holds the generator's leftovers.
            worker = [sys.executable, "-m", "benchmarks.expertise", "--worker", url]
            print(subprocess.run(worker, capture_output=True, text=True, check=True).stdout.strip())
            questions = [j.query for j in judged] + [j.query for j in DEMO] + list(OFF_TOPIC)
            cost = questions_cost(session, questions)
            print(
                f"question CPU over {len(questions)} questions x {REPEATS}: ranking p50 "
                f"{cost['rank p50']:.1f} ms, p95 {cost['rank p95']:.1f} ms; with the reasons of "
                f"10 people p50 {cost['page p50']:.1f} ms, p95 {cost['page p95']:.1f} ms; "
                f"{cost['statements']:.0f} statements"
            )
            for batch, rounds in ((1, 50), (200, 3)):
                cpu_ms, wall_ms = write_cost(session, batch, rounds)
                print(
                    f"write cost, {batch} paper(s) a write: {cpu_ms:.2f} ms CPU, "
                    f"{wall_ms:.2f} ms wall per paper"
                )


if __name__ == "__main__":
    main()
