"""How long a BibTeX import of a few thousand entries takes, next to bibtexparser alone.

    python benchmarks/bench_bibtex_import.py [--entries 3000] [--repeat 3]

Generates a realistic .bib file (al-folio extras, @string macros, LaTeX accents, month macros,
co-authors who are department members), then times, best of ``--repeat``:

* bibtexparser's own parse (``bibtexparser.parse_string`` with its default middlewares), and
  its bare split (no middleware), for reference; with ``--with-middlewares``, once, the
  middlewares it needs for output comparable to ours (LaTeX decoding, names, months), which
  still leave ``@string`` concatenations unresolved;
* the full import: ``parse_bibtex`` + ``plan_import`` (the preview) + ``apply_plan`` (the
  write) into a fresh SQLite database with the department's people in it.

With ``--limits``, each hostile or huge input instead runs in a fresh process (so that its
peak memory is its own): a 1 KB macro-expansion bomb, 50,000 tiny entries, a 5 MiB file and a
2,720-entry TeX-heavy journal bibliography; for each it prints the CPU time and peak memory
of parse + preview, the bytes read, and what the person is told.

The goal is a full import at most 3 times bibtexparser's default parse. Both wall-clock and CPU
time are printed (best of the rounds, which alternate): on a busy machine CPU time is the
steadier of the two.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bibtexparser  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from directory import migrate  # noqa: E402
from directory import models as m  # noqa: E402
from directory.db import make_engine  # noqa: E402
from directory.formats.bibtex.parse import parse_bibtex  # noqa: E402
from directory.services.pubimport.planning import plan_import  # noqa: E402
from directory.services.pubimport.writing import apply_plan  # noqa: E402
from tests.support.bibtex_samples import SYLLABLES, make_bibtex  # noqa: E402


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


def clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> tuple[float, float]:
    """(wall-clock, CPU) seconds since ``start``."""
    wall, cpu = clock()
    return wall - start[0], cpu - start[1]


def import_once(text: str, entries: int) -> dict[str, tuple[float, float]]:
    """Parse, preview and write ``text`` into a fresh database; the times of each phase."""
    with tempfile.TemporaryDirectory() as folder:
        session = fresh_database(Path(folder))  # set-up, not timed
        person = session.query(m.Person).filter_by(slug="xingda-wei").one()
        times = {}
        start = phase = clock()
        result = parse_bibtex(text)
        times["parse"] = since(phase)
        phase = clock()
        plan = plan_import(session, person, result.entries, result.problems)
        times["preview"] = since(phase)
        phase = clock()
        summary = apply_plan(session, plan, person)
        session.commit()
        times["write"] = since(phase)
        times["total"] = since(start)
        assert summary.created == entries, summary
        session.close()
        session.get_bind().dispose()
    return times


# ------------------------------------------------------------------------ --limits cases

LOGOS = ["\\TeX", "{\\LaTeX}", "{\\LaTeXe}", "{\\AmS}", "\\MF", "{\\METAFONT}", "\\ConTeXt{}"]


def make_tex_heavy(n: int) -> str:
    """A TeX users' group journal style bibliography: logos, @string venue, \\noopsort."""
    rng = random.Random(11)
    out = ['@preamble{"\\newcommand{\\noopsort}[1]{}"}', '@string{TUB = "TUGboat"}']
    for i in range(n):
        logo = rng.choice(LOGOS)
        words = " ".join(rng.choice(SYLLABLES) + rng.choice(SYLLABLES) for _ in range(4))
        out.append(
            f"@article{{tb{i},\n  author = {{Ann {rng.choice(SYLLABLES).title()}son and "
            f"Bo {rng.choice(SYLLABLES).title()}berg}},\n  title = {{{words} with {logo}}},\n"
            f"  journal = TUB, volume = {i // 100 + 1}, number = {i % 3 + 1},\n"
            f"  pages = {{{i % 90 + 1}--{i % 90 + 5}}},\n"
            f"  year = {{{{\\noopsort{{a}}}}{1980 + i % 40}}}\n}}"
        )
    return "\n".join(out) + "\n"


def limit_case(name: str) -> str:
    if name == "bomb":
        macros = "".join(f"@string{{s{i} = s{i - 1} # s{i - 1}}}\n" for i in range(1, 41))
        return f'@string{{s0 = "ab"}}\n{macros}@misc{{x, title = s40, year = 2020}}\n'
    if name == "50000 tiny entries":
        return "".join(f"@misc{{k{i}, title={{T{i}}}}}\n" for i in range(50_000))
    if name == "5 MiB file":
        abstract = "lorem ipsum dolor sit amet " * 40
        entry = "@misc{{k{0}, title={{Paper {0}}}, author={{A. Author}}, abstract={{{1}}}}}\n"
        size = len(entry.format(9999, abstract))  # the longest key
        return "".join(entry.format(i, abstract) for i in range((5 << 20) // size))
    if name == "TeX-heavy 2720 entries":
        return make_tex_heavy(2720)
    raise SystemExit(f"unknown case {name!r}")


LIMIT_CASES = ("bomb", "50000 tiny entries", "5 MiB file", "TeX-heavy 2720 entries")


def run_limit_case(name: str) -> None:
    """In this (fresh) process: parse and preview one case, print a JSON line of figures."""
    from directory.formats.bibtex.results import BibtexTooLarge

    text = limit_case(name)
    with tempfile.TemporaryDirectory() as folder:
        session = fresh_database(Path(folder))
        person = session.query(m.Person).filter_by(slug="xingda-wei").one()
        start = time.process_time()
        try:
            result = parse_bibtex(text)
        except BibtexTooLarge as exc:
            entries, said = 0, str(exc)
        else:
            plan = plan_import(session, person, result.entries, result.problems)
            entries = len(result.entries)
            said = "; ".join(e.reason for e in plan.errors[:2]) or "no errors"
        cpu = time.process_time() - start
        session.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"case": name, "bytes": len(text.encode()), "cpu": cpu, "peak_mib": peak,
                      "entries": entries, "said": said}))  # fmt: skip


def limits() -> None:
    print(f"{'input':26s}{'bytes':>10s}{'CPU':>9s}{'peak RSS':>10s}{'entries':>9s}  message")
    for name in LIMIT_CASES:
        out = subprocess.run(
            [sys.executable, __file__, "--case", name], capture_output=True, text=True, check=True
        ).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(
            f"{r['case']:26s}{r['bytes']:10d}{r['cpu']:8.2f}s{r['peak_mib']:7.0f}MiB"
            f"{r['entries']:9d}  {r['said'][:110]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limits", action="store_true", help="hostile and huge inputs")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--entries", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--with-middlewares",
        action="store_true",
        help="also time bibtexparser with the middlewares that give comparable output "
        "(LaTeX decoding, names, months; about 20 s for 3000 entries)",
    )
    args = parser.parse_args()
    if args.case:
        return run_limit_case(args.case)
    if args.limits:
        return limits()
    text = make_bibtex(args.entries)
    assert len(bibtexparser.parse_string(text).entries) == args.entries

    # Rounds alternate the measurements, so that a busy machine slows all of them alike.
    bibtexparser_times, split_times, imports = [], [], []
    for _ in range(args.repeat):
        start = clock()
        bibtexparser.parse_string(text)
        bibtexparser_times.append(since(start))
        start = clock()
        bibtexparser.parse_string(text, parse_stack=[])
        split_times.append(since(start))
        imports.append(import_once(text, args.entries))

    def best(values: list[tuple[float, float]]) -> tuple[float, float]:
        return min(v[0] for v in values), min(v[1] for v in values)

    bp = best(bibtexparser_times)
    full = best([t["total"] for t in imports])
    print(f"entries: {args.entries} ({len(text) / 1024:.0f} KiB); best of {args.repeat} rounds")
    print(f"{'':34s}{'wall-clock':>12s}{'CPU':>10s}")
    print(f"{'bibtexparser.parse_string':34s}{bp[0]:11.3f}s{bp[1]:9.3f}s")
    split = best(split_times)
    print(f"{'  (bare split, no middleware)':34s}{split[0]:11.3f}s{split[1]:9.3f}s")
    print(f"{'full import (parse+preview+write)':34s}{full[0]:11.3f}s{full[1]:9.3f}s")
    for name in ("parse", "preview", "write"):
        phase = best([t[name] for t in imports])
        print(f"{'  ' + name:34s}{phase[0]:11.3f}s{phase[1]:9.3f}s")
    if args.with_middlewares:
        from bibtexparser import middlewares as mw
        from bibtexparser.middlewares.names import SeparateCoAuthors, SplitNameParts

        stack = [
            mw.ResolveStringReferencesMiddleware(True),
            mw.RemoveEnclosingMiddleware(True),
            mw.LatexDecodingMiddleware(True),
            mw.MonthIntMiddleware(True),
            SeparateCoAuthors(True),
            SplitNameParts(True),
        ]
        start = clock()
        bibtexparser.parse_string(text, parse_stack=stack)
        full_mw = since(start)
        print(f"{'bibtexparser + middlewares (once)':34s}{full_mw[0]:11.3f}s{full_mw[1]:9.3f}s")
        print(
            f"{'ratio import / that':34s}{full[0] / full_mw[0]:11.2f}x{full[1] / full_mw[1]:9.2f}x"
        )
    print(
        f"{'ratio import / bibtexparser':34s}{full[0] / bp[0]:11.2f}x{full[1] / bp[1]:9.2f}x"
        "   (goal: at most 3x)"
    )


if __name__ == "__main__":
    main()
