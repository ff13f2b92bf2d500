"""How well "who works on X?" ranks people (docs/search.md): nDCG@5 and P@5 of the keyword
ranking alone, the semantic ranking alone and their fusion, on the judged questions of
tests/support/expertise_judgments.py — the demo department and topics planted in a generated
one — and how a Chinese question compares with its English counterpart.

    .venv/bin/python -m benchmarks.expertise_quality [--full]

Each department is built in a temporary SQLite database. ``--full``: the generated department
at full size (1,750 people, 25,000 papers) instead of a tenth of it.
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
from pathlib import Path

from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from directory import migrate
from directory import models as m
from directory.services import search_index
from directory.services.expertise import ranking, vectors
from directory.services.identity import ANONYMOUS
from tests.support.expertise_judgments import CHINESE, DEMO, OFF_TOPIC, Judged, plant
from tests.support.synthetic import SMALL, Sizes, generate
from wsgi import create_app

METHODS = (("keyword", "keyword"), ("semantic", "semantic"), ("fusion", None))
K = 5


def ndcg(found: list[str], grades: dict[str, int], k: int = K) -> float:
    gain = sum((2 ** grades.get(s, 0) - 1) / math.log2(i + 2) for i, s in enumerate(found[:k]))
    ideal = sorted(grades.values(), reverse=True)[:k]
    best = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return gain / best if best else 0.0


def precision(found: list[str], grades: dict[str, int], k: int = K) -> float:
    return sum(1 for s in found[:k] if grades.get(s, 0) > 0) / k


def ranked(session: Session, query: str, use: str | None) -> list[str]:
    slugs = dict(session.execute(select(m.Person.id, m.Person.slug)).all())
    return [slugs[i] for i in ranking.rank_people(session, query, ANONYMOUS, use=use).people]


def scores(session: Session, judged: tuple[Judged, ...]) -> dict[tuple[str, str], list[float]]:
    """(method, query kind) → [nDCG@5s, P@5s] averaged over the questions."""
    table: dict[tuple[str, str], list[list[float]]] = {}
    for item in judged:
        for method, use in METHODS:
            found = ranked(session, item.query, use)
            for kind in (item.kind, "all"):
                cell = table.setdefault((method, kind), [[], []])
                cell[0].append(ndcg(found, item.grades))
                cell[1].append(precision(found, item.grades))
    return {key: [statistics.mean(v[0]), statistics.mean(v[1])] for key, v in table.items()}


def demo_database(folder: Path) -> str:
    url = f"sqlite:///{folder / 'demo.sqlite3'}"
    app = create_app({"DIRECTORY_DATABASE_URL": url})
    migrate.upgrade(create_engine(url))
    result = app.test_cli_runner().invoke(args=["directory", "load-demo"])
    assert result.exit_code == 0, result.output
    return url


def planted_database(folder: Path, sizes: Sizes) -> tuple[str, tuple[Judged, ...]]:
    url = f"sqlite:///{folder / 'planted.sqlite3'}"
    engine = create_engine(url)
    migrate.upgrade(engine)
    with Session(engine) as session:
        generate(session, sizes)
        judged = plant(session)
        search_index.rebuild(session)
        vectors.rebuild(session)
        session.commit()
    return url, judged


def off_topic(session: Session) -> str:
    """How many people each ranking offers, on average, for a question on nothing here."""
    found = {
        method: statistics.mean(len(ranked(session, q, use)) for q in OFF_TOPIC)
        for method, use in METHODS
    }
    return ", ".join(f"{method} {n:.1f}" for method, n in found.items())


def print_table(title: str, table: dict, count: dict[str, int]) -> None:
    print(f"\n{title}\n")
    print("| questions | method | nDCG@5 | P@5 |")
    print("| --- | --- | --- | --- |")
    for kind in ("keyword", "paraphrase", "all"):
        for method, _use in METHODS:
            n, p = table[(method, kind)]
            print(f"| {kind} ({count[kind]}) | {method} | {n:.3f} | {p:.3f} |")


def chinese_judged() -> tuple[Judged, ...]:
    """The Chinese questions, judged as their English counterparts."""
    english = {j.query: j for j in DEMO}
    return tuple(
        Judged(chinese, english[question].grades, "chinese", english[question].topic)
        for chinese, question in CHINESE
    )


def languages(session: Session) -> None:
    print("\nChinese questions on the demo (top 5 compared with the English question's fusion)\n")
    print("| Chinese | English | semantic overlap | keyword overlap | fusion overlap |")
    print("| --- | --- | --- | --- | --- |")
    for chinese, english in CHINESE:
        target = set(ranked(session, english, None)[:K])
        semantic = ranked(session, chinese, "semantic")[:K]
        keyword = ranked(session, chinese, "keyword")[:K]
        shown = ranked(session, chinese, None)[:K]
        overlaps = [
            f"{len(target & set(found))}/{len(target)}" for found in (semantic, keyword, shown)
        ]
        print(f"| {chinese} | {english} | {' | '.join(overlaps)} |")


def _counted(judged: tuple[Judged, ...]) -> dict[str, int]:
    return {
        k: sum(1 for j in judged if k in (j.kind, "all")) for k in ("keyword", "paraphrase", "all")
    }


def demo_report(url: str) -> None:
    with Session(create_engine(url)) as session:
        print_table(
            f"Demo department: {len(DEMO)} questions", scores(session, DEMO), _counted(DEMO)
        )
        print(f"\nPeople offered for {len(OFF_TOPIC)} off-topic questions: {off_topic(session)}")
        languages(session)
        chinese = chinese_judged()
        table = scores(session, chinese)
        print(f"\n| Chinese questions ({len(chinese)}) | nDCG@5 | P@5 |\n| --- | --- | --- |")
        for method, _use in METHODS:
            n, p = table[(method, "chinese")]
            print(f"| {method} | {n:.3f} | {p:.3f} |")


def planted_report(url: str, judged: tuple[Judged, ...]) -> None:
    with Session(create_engine(url)) as session:
        people = session.scalar(select(func.count(m.Person.id)))
        title = f"Planted topics in a generated department of {people} people"
        print_table(f"{title}: {len(judged)} questions", scores(session, judged), _counted(judged))
        print(f"\nPeople offered for {len(OFF_TOPIC)} off-topic questions: {off_topic(session)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="the generated department at full size")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        demo_report(demo_database(Path(folder)))
        planted_report(*planted_database(Path(folder), Sizes() if args.full else SMALL))


if __name__ == "__main__":
    main()
