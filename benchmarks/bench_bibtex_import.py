"""How long a BibTeX import of a few thousand entries takes, next to bibtexparser alone.

    python benchmarks/bench_bibtex_import.py [--entries 3000] [--repeat 3]

Generates a realistic .bib file (al-folio extras, @string macros, LaTeX accents, month macros,
co-authors who are department members), then times, best of ``--repeat``:

* bibtexparser's own parse (``bibtexparser.parse_string`` with its default middlewares), and
  its bare split (no middleware), for reference;
* the full import: ``parse_bibtex`` + ``plan_import`` (the preview) + ``apply_plan`` (the
  write) into a fresh SQLite database with the department's people in it.

The goal is a full import at most 3 times bibtexparser's parse.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bibtexparser  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from directory import migrate  # noqa: E402
from directory import models as m  # noqa: E402
from directory.bibtex import parse_bibtex  # noqa: E402
from directory.db import make_engine  # noqa: E402
from directory.pubimport import apply_plan, plan_import  # noqa: E402

# Titles: a few common words and a larger vocabulary of specific ones, as real titles have.
COMMON = [
    "for",
    "a",
    "the",
    "of",
    "in",
    "with",
    "systems",
    "efficient",
    "scalable",
    "towards",
    "using",
]
SYLLABLES = [
    "ra",
    "to",
    "mi",
    "ne",
    "ko",
    "sa",
    "lu",
    "ve",
    "di",
    "pa",
    "zo",
    "ri",
    "ka",
    "te",
    "no",
    "gu",
]


def _vocabulary(rng: random.Random, size: int = 1500) -> list[str]:
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


FIRST = [
    "Xingda",
    "Rong",
    "Haibo",
    "Jane",
    "John",
    "María",
    "Wei",
    "Li",
    "Yun",
    "Ana",
    "Pierre",
    "Jörg",
    "Zoë",
    "Kai",
    "Ming",
]
LAST = [
    "Wei",
    "Chen",
    "Doe",
    "Smith",
    "Müller",
    "García",
    "Zhang",
    "Wang",
    "Liu",
    "Dubois",
    "Kim",
    "Novak",
]
VENUES = ("OSDI", "SOSP", "EuroSys", "NSDI", "ATC", "ASPLOS", "VLDB", "SIGMOD")


def make_bibtex(entries: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng)
    out = ["Publications of the example lab, generated for the benchmark.\n"]
    for venue in VENUES:
        out.append(f'@string{{{venue.lower()} = "Proceedings of {venue}"}}\n')
    for i in range(entries):
        year = 2000 + i % 25
        words = rng.sample(vocabulary, 4) + rng.sample(COMMON, 3)
        rng.shuffle(words)
        title = " ".join(words).capitalize()
        authors = ["Wei, Xingda"] + [
            f"{rng.choice(LAST)}, {rng.choice(FIRST)}" for _ in range(rng.randint(2, 6))
        ]
        rng.shuffle(authors)
        author_field = " and ".join(a.replace("ü", '{\\"u}').replace("é", "\\'e") for a in authors)
        venue = rng.choice(VENUES)
        extras = ""
        if i % 3 == 0:
            extras += f"  code = {{https://github.com/example/p{i}}},\n"
        if i % 5 == 0:
            extras += "  selected = {true},\n  award = {Best Paper Award},\n"
        if i % 5 < 3:  # most entries have a DOI, not all
            extras += f"  doi = {{10.1145/{3000000 + i}}},\n"
        if i % 4 == 0:
            extras += f"  eprint = {{{year % 100:02d}{1 + i % 12:02d}.{10000 + i}}},\n"
            extras += "  archivePrefix = {arXiv},\n"
        out.append(
            f"@inproceedings{{p{i},\n"
            f"  title = {{{{{title[0]}}}{title[1:]}}},\n"
            f"  author = {{{author_field}}},\n"
            f'  booktitle = {venue.lower()} # " {year}",\n'
            f"  year = {year},\n"
            f"  month = {('jan', 'apr', 'jul', 'oct')[i % 4]},\n"
            f"  pages = {{{i}--{i + 12}}},\n"
            f"  abbr = {{{venue}}},\n"
            f"  pdf = {{p{i}.pdf}},\n"
            f"{extras}"
            "}\n"
        )
    return "\n".join(out)


def fresh_database(folder: Path) -> Session:
    engine = make_engine(f"sqlite:///{folder / 'bench.sqlite3'}")
    migrate.upgrade(engine)
    session = Session(engine)
    for full, variants in (("Xingda Wei", ["X. Wei"]), ("Rong Chen", []), ("Jane Doe", [])):
        session.add(
            m.Person(
                slug=full.lower().replace(" ", "-"), full_name=full, sort_name=full,
                role="faculty", name_variants=variants,
            )
        )  # fmt: skip
    session.commit()
    return session


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = make_bibtex(args.entries)

    library = bibtexparser.parse_string(text)
    assert len(library.entries) == args.entries, len(library.entries)
    t_bibtexparser = best(lambda: bibtexparser.parse_string(text), args.repeat)
    t_split = best(lambda: bibtexparser.parse_string(text, parse_stack=[]), args.repeat)

    phases: dict[str, list[float]] = {"parse": [], "preview": [], "write": []}

    def full_import() -> None:
        with tempfile.TemporaryDirectory() as folder:
            session = fresh_database(Path(folder))
            person = session.query(m.Person).filter_by(slug="xingda-wei").one()
            t0 = time.perf_counter()
            result = parse_bibtex(text)
            t1 = time.perf_counter()
            plan = plan_import(session, person, result.entries, result.problems)
            t2 = time.perf_counter()
            summary = apply_plan(session, plan, person)
            session.commit()
            t3 = time.perf_counter()
            assert summary.created == args.entries, summary
            phases["parse"].append(t1 - t0)
            phases["preview"].append(t2 - t1)
            phases["write"].append(t3 - t2)
            session.close()
            session.get_bind().dispose()

    t_import = best(full_import, args.repeat)
    ratio = t_import / t_bibtexparser
    print(f"entries:                         {args.entries} ({len(text) / 1024:.0f} KiB)")
    print(f"bibtexparser.parse_string:       {t_bibtexparser:.3f} s")
    print(f"  (bare split, no middleware:    {t_split:.3f} s)")
    print(f"full import (parse+preview+write into SQLite): {t_import:.3f} s")
    for name, values in phases.items():
        print(f"  {name:8s} best {min(values):.3f} s")
    print(f"ratio import / bibtexparser:     {ratio:.2f}x (goal: at most 3x)")


if __name__ == "__main__":
    main()
