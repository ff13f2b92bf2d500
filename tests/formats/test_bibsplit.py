"""The quick splitter (directory.formats.bibtex.split) gives bibtexparser's own blocks, or
declines: on every test bibliography, the benchmark's file, hand-written corner cases, and
thousands of generated and mutated files."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest
from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ImplicitComment,
    ParsingFailedBlock,
    String,
)
from bibtexparser.splitter import Splitter

from directory.formats.bibtex.split import MAX_DEPTH, split_plain
from tests.support.bibtex_samples import make_bibtex

BIB = Path(__file__).resolve().parents[1] / "fixtures" / "bibtex"


def described(block) -> tuple:
    """Everything the importer reads of a block (and its raw text and line)."""
    common = (type(block).__name__, block.start_line, block.raw)
    if isinstance(block, DuplicateBlockKeyBlock):
        return (*common, block.key, described(block.ignore_error_block))
    if isinstance(block, DuplicateFieldKeyBlock):
        return (*common, sorted(block.duplicate_keys), described(block.ignore_error_block))
    if isinstance(block, ParsingFailedBlock):
        return common
    if isinstance(block, Entry):
        fields = [(f.key, f.value, f.start_line) for f in block.fields]
        return (*common, block.entry_type, block.key, fields)
    if isinstance(block, String):
        return (*common, block.key, block.value)
    if isinstance(block, ImplicitComment):
        return (*common, block.comment)
    return common


def reference(text: str) -> list[tuple]:
    return [described(b) for b in Splitter(text).split().blocks]


def agrees(text: str) -> bool:
    """Whether the quick splitter took ``text``; fails the test if it took it differently."""
    library = split_plain(text)
    if library is None:
        return False
    assert [described(b) for b in library.blocks] == reference(text), text[:400]
    return True


@cache
def fixture_texts() -> dict[str, str]:
    texts = {p.name: p.read_bytes().decode("utf-8", "replace") for p in sorted(BIB.glob("*.bib"))}
    texts["benchmark"] = make_bibtex(200)
    return texts


@pytest.mark.parametrize("name", sorted(fixture_texts()))
def test_every_test_bibliography_splits_as_bibtexparser_splits_it(name: str) -> None:
    agrees(fixture_texts()[name])


def test_the_usual_files_take_the_quick_way() -> None:
    texts = fixture_texts()
    taken = {name for name, text in texts.items() if agrees(text)}
    assert {"benchmark", "alfolio.bib", "latex.bib", "names.bib", "months.bib"} <= taken


CORNERS = [
    "",
    "   \n\n",
    "Free text before.\n\n@article{a, title = {T}}\ntrailing text\n",
    "@article{a, title = {T},}\n",
    "@article{a,\n  title = {T},\n\n}\n@article{a, title={again}}",
    "@article{a, title = {T}, title = {U}}",
    "@article{key}",
    '@article{a, title = "x {"} y", year = 2020}',
    '@article{a, title = "x {"}"}',
    '@article{a, title = "a \\" b", note = {c \\} d}}',
    "@article{a, title = {\\{escaped\\}}, note = x \\, y}",
    '@article{a, title = {x = y}, note = "a, b" # c # {d, e}}',
    "@article{a, title = {LeQua @ {CLEF}}, year = 2022}",
    "@article{a, title = {x\n@article{b, title = {y}}",
    '@article{a, title = {x},\n  note = "y\n  @misc{z}"}',
    "@article{a, title = {" + "{" * MAX_DEPTH + "deep" + "}" * MAX_DEPTH + "}}",
    "@article{a, title = {" + "{" * (MAX_DEPTH + 1) + "deep" + "}" * (MAX_DEPTH + 1) + "}}",
    "@article{a, title = {unclosed, year = 2020}\n@article{b, title={ok}}",
    '@article{a, title "x"}',
    "@article{a,, title = {x}}",
    "@article{a, title = {x} year = 2020}",
    "@article(a, title = {x})",
    "@comment{hello}\n@article{a, title={x}}",
    '@preamble{"\\newcommand{\\x}{y}"}',
    '@string{foo = "Foo"}\n@string{bar = {Bar {baz}}}\n@article{a, journal = foo # bar}',
    '@string{foo = "a } b"}',
    "@string{foo = {x}\n@article{a, title={y}}",
    "@STRING{Foo = {x}}\n@ARTICLE{A, Title = {y}}",
    "@string{foo = {x}} @string{foo = {y}}",
    "@inproceedings {a, title = {x}}",
    "@misc{a, title = {line\\\nbreak}}\n@misc{b, title = {after}}",
    "x@y{z} text@article{a, title={x}}",
    "@article{a, title = {x}}}}\n",
    "@article{a, author = {M{\\\"u}ller, J{\\'o}rg and {\\O}ystein}, title = {{B}ig {T}}}",
    "@article{a, title = {x}, key with space = {y}}",
    "@article{a, title = {x}, \n  % a comment\n  year = 2020}",
    "\ufeff@article{a, title = {x}}",
    "@article{a, title = {x}\r\n, year = 2020\r\n}\r\n",
    "@article{a, title = {unfinished",
    '@article{a, title = "unfinished',
    "@article{a, title = {x}",
    "@article",
    "@",
]


@pytest.mark.parametrize("text", CORNERS)
def test_corner_cases_split_as_bibtexparser_splits_them_or_go_to_it(text: str) -> None:
    agrees(text)


def test_what_the_quick_way_leaves_to_bibtexparser() -> None:
    for text in (
        "@comment{hello}",
        "@preamble{x}",
        "@article(a, title = {x})",
        "@article{a, title = {x\n@article{b, title = {y}}",
        "@article{a,, title = {x}}",
        "@article{a, title = {" + "{" * (MAX_DEPTH + 1) + "x" + "}" * (MAX_DEPTH + 1) + "}}",
        "@article{a, title = {unfinished",
    ):
        assert split_plain(text) is None, text


# Characters that change how a file splits, and pieces of entries.
SPECIALS = ["{", "}", '"', ",", "=", "#", "@", "\\", "\n", " ", "@misc{", '{"}', "\\\n", "%", "("]
PIECES = [
    "{T}", "{{N}ested {B}races}", '"quoted"', '"a {"} b"', "2020", "jan", 'foo # " bar"',
    "{x = y, z}", "{\\{x\\}}", '{M{\\"u}ller}', "{LeQua @ {CLEF}}", '"\\"q\\""', "{}",
]  # fmt: skip


def generated(rng: random.Random) -> str:
    out = []
    for i in range(rng.randint(1, 5)):
        if rng.random() < 0.2:
            out.append(rng.choice(["text ", "\n\n", "% note\n", "x@y "]))
        if rng.random() < 0.15:
            out.append(f"@string{{m{i} = {rng.choice(PIECES)}}}\n")
        fields = [
            f"{rng.choice(['title', 'author', 'note', 'Title', 'year'])} = "
            + " # ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 2)))
            for _ in range(rng.randint(0, 4))
        ]
        sep = rng.choice([",", ",\n  ", " ,\n"])
        tail = rng.choice(["", ",", ",\n"])
        key = rng.choice(["k1", "k2", "Wei23", "a b", ""])
        out.append(f"@{rng.choice(['article', 'misc', 'InProceedings'])}{{{key}{sep}"
                   + sep.join(fields) + f"{tail}}}\n")  # fmt: skip
    return "".join(out)


def mutated(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 3)):
        pos = rng.randrange(len(text) + 1)
        if rng.random() < 0.6 or not text:
            text = text[:pos] + rng.choice(SPECIALS) + text[pos:]
        else:
            text = text[:pos] + text[pos + 1 :]
    return text


def test_generated_and_mutated_files_split_as_bibtexparser_splits_them() -> None:
    rng = random.Random(20261202)
    sources = list(fixture_texts().values())
    taken = declined = 0
    for _ in range(3000):
        if rng.random() < 0.5:
            text = generated(rng)
        else:
            source = rng.choice(sources)
            start = rng.randrange(max(1, len(source) - 1500))
            text = source[start : start + 1500]
        for candidate in (text, mutated(text, rng)):
            if agrees(candidate):
                taken += 1
            else:
                declined += 1
    # Both ways are exercised: most files are taken, the broken ones are not.
    assert taken > 2000 and declined > 500, (taken, declined)
