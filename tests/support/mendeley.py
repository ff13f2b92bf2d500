"""A reference manager's library, made here: BibTeX as Mendeley Desktop exports it.

Its quirks, each on many entries: ``arxivId`` and ``eprint`` (with ``archivePrefix =
{arXiv}``) holding values that are no arXiv id at all, the same NIH manuscript number on
unrelated papers (``NIHMS150003``); ``file = {:path/to/file.pdf:pdf}`` fields; ``{\\&}``
escapes in titles and journals; ``mendeley-groups``, ``pmid``, ``abstract`` fields; keys
written twice (``Smith2009`` for two papers); DOIs repeated on two entries (the same paper
in two groups), one bad DOI without its ``10.`` prefix; and good arXiv ids of both styles.

``library(n)`` returns (the file's text, each entry's (line, key, kind)); a kind is "ok",
"bad-arxiv", "bad-doi", "duplicate-key", "duplicate-doi" or "shared-arxiv"."""

from __future__ import annotations

import random

SURNAMES = ["Smith", "Garcia", "Chen", "Müller", "Okafor", "Ivanova", "Tanaka", "Rossi",
            "Nguyen", "Kowalski", "Haddad", "Silva", "Andersen", "Park", "Dubois"]  # fmt: skip
GIVEN = ["John", "Maria", "Wei", "Anna", "Chidi", "Olga", "Yuki", "Luca", "Thanh", "Piotr"]
WORDS = ["protein", "folding", "signalling", "cohort", "neural", "dynamics", "lattice",
         "inference", "tumour", "graph", "quantum", "sparse", "membrane", "kinase",
         "survey"]  # fmt: skip
JOURNALS = ["Nature", "Cell", "Journal of Biology {\\&} Medicine", "Physical Review B",
            "Science", "PLoS ONE", "Proceedings of the Royal Society A"]  # fmt: skip
#: The NIH manuscript numbers Mendeley puts in arxivId/eprint, each on several papers.
NIHMS = ["NIHMS150003", "NIHMS42017", "PMC2791734"]
#: Whose library it is (an author of every paper in it), as BibTeX writes the name.
OWNER = "Wei, Xingda"
#: A real arXiv id that a metadata look-up wrote on unrelated papers.
SHARED_ARXIV = "0901.00003"


def _entry(i: int, rng: random.Random, key: str, fields: dict[str, str]) -> str:
    lines = [f"@article{{{key},"]
    lines += [f"{name} = {{{value}}}," for name, value in fields.items()]
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join(lines) + "\n}\n"


def library(n: int = 933, seed: int = 31) -> tuple[str, list[tuple[int, str, str]]]:
    rng = random.Random(seed)
    out, kinds = [], []
    used_keys: set[str] = set()
    line = 1
    for i in range(n):
        first = rng.choice(SURNAMES)
        year = 1995 + i % 30
        # Mendeley's keys are author and year; now and then two papers get the same one.
        key = f"{first}{year}" + ("" if i % 25 == 0 else chr(97 + i % 26) + str(i // 26))
        kind = "ok"
        title = " ".join(rng.sample(WORDS, 4)).capitalize() + f" {{\\&}} study {i}"
        names = [f"{surname}, {rng.choice(GIVEN)}" for surname in [first, *rng.sample(SURNAMES, 2)]]
        names.insert(rng.randrange(len(names) + 1), OWNER)  # the library's owner's papers
        authors = " and ".join(names)
        fields = {
            "abstract": f"We report {title.lower()}.",
            "author": authors,
            "doi": f"10.{1000 + i % 9000}/ms.{i:05d}",
            "file": f":C$\\backslash$:/Users/me/Mendeley Desktop/{first} - {year} - {i}.pdf:pdf",
            "journal": rng.choice(JOURNALS),
            "mendeley-groups": "Thesis,Reading list",
            "pages": f"{i % 300 + 1}--{i % 300 + 9}",
            "pmid": str(19000000 + i),
            "title": f"{{{title}}}",
            "volume": str(i % 40 + 1),
            "year": str(year),
        }
        if i % 7 == 3:  # the NIH number Mendeley writes as an arXiv id
            fields["archivePrefix"] = "arXiv"
            fields["arxivId"] = fields["eprint"] = NIHMS[i % len(NIHMS)]
            kind = "bad-arxiv"
        elif i % 11 == 5:  # a real arXiv id, new style
            fields["archivePrefix"] = "arXiv"
            fields["arxivId"] = fields["eprint"] = f"{10 + i % 14:02d}{1 + i % 12:02d}.{i:05d}"
        elif i % 13 == 6:  # a real arXiv id, old style
            fields["archivePrefix"] = "arXiv"
            fields["arxivId"] = fields["eprint"] = f"hep-th/{i % 10:02d}01{i:03d}"[:14]
        if i % 60 == 9:  # a real arXiv id, looked up wrongly for several unrelated papers
            fields["archivePrefix"] = "arXiv"
            fields["arxivId"] = fields["eprint"] = SHARED_ARXIV
            kind = "shared-arxiv"
        if i % 97 == 10:
            fields["doi"] = f"{1000 + i}/missing.prefix"
            kind = "bad-doi"
        if i % 89 == 20 and i > 20:  # the same paper in a second group: its DOI again
            fields["doi"] = f"10.{1000 + (i - 1) % 9000}/ms.{i - 1:05d}"
            kind = "duplicate-doi"
        if key in used_keys and kind == "ok":
            kind = "duplicate-key"
        used_keys.add(key)
        out.append(_entry(i, rng, key, fields))
        kinds.append((line, key, kind))
        line += out[-1].count("\n") + 1  # the blank line between entries
    return "\n".join(out), kinds
