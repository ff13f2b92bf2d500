"""A realistic generated .bib file (al-folio extras, ``@string`` macros, LaTeX accents, month
macros, co-authors who are department members): the BibTeX import's benchmark file
(benchmarks/bench_bibtex_import.py) and a corpus of the quick splitter's tests."""

from __future__ import annotations

import random

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
