"""Every unique constraint an import can feed, repeated (issue 31): a BibTeX file, an ORCID
record and an interchange document each bring the same value twice, and once more against a
stored paper. None ends in an IntegrityError: two entries, or an entry and a stored paper,
claiming one unique identifier are a duplicate question in the preview (BibTeX, ORCID), or
a problem naming the entry (an interchange document, which is all or nothing).

The constraints are read from the metadata (every unique constraint, unique index and
composite primary key of the publication-side tables), so one added later without a
scenario here fails the first test."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import PrimaryKeyConstraint, UniqueConstraint, func, select

from directory import models as m
from directory.formats.identifiers import arxiv_problem, doi_problem
from tests.support.mendeley import SHARED_ARXIV, library

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

#: The tables an import of papers writes.
PUBLICATION_TABLES = {
    *(model.__table__.name
      for model in (m.Publication, m.Authorship, m.ProfilePublication, m.PublicationTitleWord,
                    m.PublicationLink, m.PublicationAward, m.ArtifactBadge,
                    m.PublicationRelation)),
    m.project_publications.name,
}  # fmt: skip


def unique_keys() -> set[tuple[str, tuple[str, ...]]]:
    keys = set()
    for table in m.Base.metadata.sorted_tables:
        if table.name not in PUBLICATION_TABLES:
            continue
        for constraint in table.constraints:
            columns = tuple(column.name for column in constraint.columns)
            if isinstance(constraint, UniqueConstraint) or (
                isinstance(constraint, PrimaryKeyConstraint) and len(columns) > 1
            ):
                keys.add((table.name, columns))
        for index in table.indexes:
            if index.unique:
                keys.add((table.name, tuple(column.name for column in index.columns)))
    return keys


# ----------------------------------------------------------------------------- the inputs


def bib_entry(key: str, title: str, year: int, **fields: str) -> str:
    body = {"title": title, "author": "Wei, Xingda and Smith, John", "journal": "Nature",
            "year": str(year), **fields}  # fmt: skip
    return f"@article{{{key},\n" + ",\n".join(f"  {k} = {{{v}}}" for k, v in body.items()) + "\n}\n"


def orcid_record(works: list[dict[str, Any]]) -> dict[str, Any]:
    """The fixture record with these works (title, year, doi, arxiv) in ORCID's shape."""
    record = json.loads((FIXTURES / "orcid" / "record.json").read_text(encoding="utf-8"))
    groups = []
    for i, work in enumerate(works):
        ids = [
            {"external-id-type": kind, "external-id-value": work[kind],
             "external-id-relationship": "self"}
            for kind in ("doi", "arxiv") if work.get(kind)
        ]  # fmt: skip
        summary = {
            "put-code": 9000 + i, "display-index": "0",
            "title": {"title": {"value": work["title"]}, "subtitle": None},
            "external-ids": {"external-id": ids}, "url": None, "type": "journal-article",
            "publication-date": {"year": {"value": str(work["year"])}, "month": None,
                                 "day": None},
            "journal-title": {"value": "Nature"}, "visibility": "public",
        }  # fmt: skip
        groups.append({"external-ids": {"external-id": ids}, "work-summary": [summary]})
    record["activities-summary"]["works"]["group"] = groups
    return record


def document(publications: list[dict[str, Any]], projects: list | None = None) -> dict:
    pubs = [
        {"ref": f"p{i}", "type": "journal", "status": "published", "venue": "Nature",
         "authors": [{"name": "Grace Hopper", "person": "grace-hopper"}], **pub}
        for i, pub in enumerate(publications)
    ]  # fmt: skip
    doc = {
        "format": "faculty-directory-profile", "format_version": 1,
        "person": {"slug": "grace-hopper", "full_name": "Grace Hopper", "role": "faculty"},
        "publications": pubs,
    }  # fmt: skip
    if projects is not None:
        doc["projects"] = projects
    return doc


# ----------------------------------------------------------------------------- running them


def run_bibtex(runner, tmp_path, entries: list[str], decision: str = "new"):
    path = tmp_path / "library.bib"
    path.write_text("\n".join(entries), encoding="utf-8")
    return runner.invoke(args=["directory", "import-bibtex", "--person", "xingda-wei", "--yes",
                               "--duplicates", decision, str(path)])  # fmt: skip


def run_orcid(runner, tmp_path, works: list[dict[str, Any]], decision: str = "new"):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(orcid_record(works)), encoding="utf-8")
    return runner.invoke(args=["directory", "import-orcid", "--person", "xingda-wei", "--yes",
                               "--duplicates", decision, str(path)])  # fmt: skip


def run_document(runner, tmp_path, doc: dict):
    path = tmp_path / "grace.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return runner.invoke(args=["directory", "import-profile", str(path)])


def no_traceback(result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )


def answered(db, result, words: str, column, value: str) -> None:
    """The import ran to its end, said ``words``, and one paper has ``value``."""
    no_traceback(result)
    assert words in result.output and result.exit_code == 0, result.output
    assert papers_with(db, column, value) == 1


def papers_with(db, column, value) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(m.Publication).where(column == value))


# ----------------------------------------------------------------------------- the scenarios
# Each takes (runner, tmp_path, db, stored) where stored is a paper of another member, with
# DOI 10.9999/stored, arXiv id 2101.00001 and the title "Stored paper on lattices".

STORED = {"doi": "10.9999/stored", "arxiv_id": "2101.00001", "title": "Stored paper on lattices"}


def arxiv_twice_in_a_file(runner, tmp_path, db, stored) -> None:
    for n, decision in enumerate(("new", "link", "skip")):
        arxiv_id = f"2001.0123{n}"
        result = run_bibtex(runner, tmp_path, [
            bib_entry(f"a{n}", f"First on graphs {n}", 2020, eprint=arxiv_id,
                      archivePrefix="arXiv", doi=f"10.1000/aaa{n}"),
            bib_entry(f"b{n}", f"Other topic entirely {n}", 2021, eprint=arxiv_id,
                      archivePrefix="arXiv", doi=f"10.1000/bbb{n}"),
        ], decision)  # fmt: skip
        no_traceback(result)
        assert "1 possible duplicates" in result.output, result.output
        assert f"arXiv id {arxiv_id} is also the entry on line 1's" in result.output
        assert result.exit_code == 0, result.output
        assert papers_with(db, m.Publication.arxiv_id, arxiv_id) == 1


def arxiv_of_a_stored_paper_in_a_file(runner, tmp_path, db, stored) -> None:
    result = run_bibtex(runner, tmp_path, [
        bib_entry("c", "Something unrelated", 2022, eprint=STORED["arxiv_id"],
                  archivePrefix="arXiv", doi="10.1000/ccc"),
    ])  # fmt: skip
    answered(db, result, "1 possible duplicates", m.Publication.arxiv_id, STORED["arxiv_id"])


def doi_twice_in_a_file(runner, tmp_path, db, stored) -> None:
    result = run_bibtex(runner, tmp_path, [
        bib_entry("d", "Paper one", 2020, doi="10.1000/DDD"),
        bib_entry("e", "Paper two", 2021, doi="10.1000/ddd"),
    ])  # fmt: skip
    answered(db, result, "1 repeated", m.Publication.doi, "10.1000/ddd")


def doi_of_a_stored_paper_in_a_file(runner, tmp_path, db, stored) -> None:
    result = run_bibtex(runner, tmp_path, [
        bib_entry("f", "A new title", 2023, doi=STORED["doi"].upper(), eprint="2301.00002",
                  archivePrefix="arXiv"),
    ])  # fmt: skip
    no_traceback(result)
    assert "1 matching department papers (linked)" in result.output, result.output
    assert papers_with(db, m.Publication.doi, STORED["doi"]) == 1


def arxiv_twice_in_a_record(runner, tmp_path, db, stored) -> None:
    result = run_orcid(runner, tmp_path, [
        {"title": "Graphs one", "year": 2020, "doi": "10.1000/ooa", "arxiv": "2002.01234"},
        {"title": "Lattices two", "year": 2021, "doi": "10.1000/oob", "arxiv": "2002.01234"},
    ])  # fmt: skip
    answered(db, result, "1 possible duplicates", m.Publication.arxiv_id, "2002.01234")


def identifiers_of_a_stored_paper_in_a_record(runner, tmp_path, db, stored) -> None:
    result = run_orcid(runner, tmp_path, [
        {"title": "Unrelated one", "year": 2020, "doi": "10.1000/ooc",
         "arxiv": STORED["arxiv_id"]},
        {"title": "Unrelated two", "year": 2021, "doi": STORED["doi"]},
    ])  # fmt: skip
    answered(db, result, "1 possible duplicates", m.Publication.arxiv_id, STORED["arxiv_id"])
    assert papers_with(db, m.Publication.doi, STORED["doi"]) == 1


def doi_twice_in_a_record(runner, tmp_path, db, stored) -> None:
    result = run_orcid(runner, tmp_path, [
        {"title": "Same paper", "year": 2020, "doi": "10.1000/ood"},
        {"title": "Same paper again", "year": 2020, "doi": "10.1000/OOD"},
    ])  # fmt: skip
    no_traceback(result)
    assert result.exit_code == 0, result.output
    assert papers_with(db, m.Publication.doi, "10.1000/ood") == 1


def refused(result, path: str, words: str) -> None:
    no_traceback(result)
    assert result.exit_code == 1
    assert path in result.output and words in result.output, result.output


def identifiers_twice_in_a_document(runner, tmp_path, db, stored) -> None:
    uid = "0123456789abcdef0123456789abcdef"
    for name, value, words in (("doi", "10.1000/XX", "DOI"), ("arxiv_id", "2001.07777", "arXiv"),
                               ("uid", uid, "record id")):  # fmt: skip
        doc = document([{"title": "One", name: value}, {"title": "Two", name: value.lower()}])
        refused(run_document(runner, tmp_path, doc), f"$.publications[1].{name}", words)
    assert db.scalar(select(m.Person).where(m.Person.slug == "grace-hopper")) is None


def identifiers_of_stored_papers_in_a_document(runner, tmp_path, db, stored) -> None:
    other = db.scalar(select(m.Publication).where(m.Publication.title == "Other stored"))
    for pub in (
        {"title": "Both", "doi": other.doi, "arxiv_id": STORED["arxiv_id"]},
        {"title": "Matches by uid", "uid": stored.uid, "doi": other.doi},
    ):
        refused(run_document(runner, tmp_path, document([pub])), "$.publications[0]", "stored")
    assert db.scalar(select(m.Person).where(m.Person.slug == "grace-hopper")) is None


def a_paper_twice_on_a_project(runner, tmp_path, db, stored) -> None:
    doc = document([{"title": "One"}], [{"title": "Lattice project", "publications": ["p0", "p0"]}])
    refused(run_document(runner, tmp_path, doc), "$.projects[0].publications[1]", "twice")


def an_author_and_a_title_word_twice(runner, tmp_path, db, stored) -> None:
    title = "Graph graph graphs: graph"
    result = run_bibtex(runner, tmp_path, [bib_entry(
        "g", title, 2020, author="Wei, Xingda and Wei, Xingda and Smith, John")])  # fmt: skip
    no_traceback(result)
    assert result.exit_code == 0, result.output
    result = run_orcid(runner, tmp_path, [{"title": title + " again", "year": 2021}])
    assert result.exit_code == 0, result.output
    doc = document(
        [
            {
                "title": title + " once more",
                "authors": [{"name": "Grace Hopper", "person": "grace-hopper"}] * 2,
            }
        ]
    )
    result = run_document(runner, tmp_path, doc)
    no_traceback(result)
    assert result.exit_code == 0, result.output


#: Every unique key of the publication-side tables, and the scenarios that repeat it (each
#: through the inputs that can bring it).
SCENARIOS = {
    ("directory_publications", ("doi",)): [
        doi_twice_in_a_file, doi_of_a_stored_paper_in_a_file, doi_twice_in_a_record,
        identifiers_of_a_stored_paper_in_a_record, identifiers_twice_in_a_document,
        identifiers_of_stored_papers_in_a_document,
    ],
    ("directory_publications", ("arxiv_id",)): [
        arxiv_twice_in_a_file, arxiv_of_a_stored_paper_in_a_file, arxiv_twice_in_a_record,
        identifiers_of_a_stored_paper_in_a_record, identifiers_twice_in_a_document,
        identifiers_of_stored_papers_in_a_document,
    ],
    # A record id comes only in an interchange document (BibTeX and ORCID have none).
    ("directory_publications", ("uid",)): [
        identifiers_twice_in_a_document, identifiers_of_stored_papers_in_a_document,
    ],
    # Two entries that are one paper on one profile: a repeat, or a refused document.
    ("directory_profile_publications", ("person_id", "publication_id")): [
        doi_twice_in_a_file, doi_twice_in_a_record, identifiers_twice_in_a_document,
    ],
    ("directory_project_publications", ("project_id", "publication_id")): [
        a_paper_twice_on_a_project,
    ],
    ("directory_authorships", ("publication_id", "position")): [an_author_and_a_title_word_twice],
    ("directory_publication_title_words", ("word", "publication_id")): [
        an_author_and_a_title_word_twice,
    ],
}  # fmt: skip


def test_every_unique_key_an_import_writes_has_its_scenarios() -> None:
    assert set(SCENARIOS) == unique_keys()


@pytest.fixture
def stored(demo, db, make_publication) -> m.Publication:
    make_publication("Other stored", authors=("Someone Else",), doi="10.9999/other")
    return make_publication(STORED["title"], authors=("Danyang Zhuo",), doi=STORED["doi"],
                            arxiv_id=STORED["arxiv_id"])  # fmt: skip


@pytest.mark.parametrize(
    "scenario",
    sorted({s for scenarios in SCENARIOS.values() for s in scenarios}, key=lambda s: s.__name__),
    ids=lambda s: s.__name__,
)
def test_a_repeated_unique_value_is_a_question_or_a_problem_never_a_crash(
    scenario, runner, tmp_path, db, stored
) -> None:
    scenario(runner, tmp_path, db, stored)


# ----------------------------------------------------------------------------- syntax


@pytest.mark.engine_independent
@pytest.mark.parametrize(
    ("text", "ok"),
    [("2401.01234", True), ("arXiv:2401.01234v2", True), ("hep-th/9901001", True),
     ("math.GT/0309136", True), ("https://arxiv.org/abs/2401.01234", True),
     ("NIHMS150003", False), ("PMC2791734", False), ("2413.01234", False), ("12345", False)],
)  # fmt: skip
def test_arxiv_ids_are_checked_for_their_syntax(text, ok) -> None:
    assert (arxiv_problem(text) is None) is ok


@pytest.mark.engine_independent
@pytest.mark.parametrize(
    ("text", "ok"),
    [("10.1145/3600006", True), ("https://doi.org/10.1038/nature08000", True),
     ("1145/3600006", False), ("doi:nature08000", False)],
)  # fmt: skip
def test_dois_are_checked_for_their_prefix(text, ok) -> None:
    assert (doi_problem(text) is None) is ok


def test_a_bad_identifier_is_reported_per_entry_and_not_stored(runner, tmp_path, db, demo) -> None:
    result = run_bibtex(runner, tmp_path, [
        bib_entry("n1", "Mendeley paper one", 2010, arxivId="NIHMS150003",
                  eprint="NIHMS150003", archivePrefix="arXiv"),
        bib_entry("n2", "Mendeley paper two", 2011, arxivId="NIHMS150003",
                  eprint="NIHMS150003", archivePrefix="arXiv", doi="1038/nature08000"),
    ])  # fmt: skip
    no_traceback(result)
    assert result.exit_code == 0, result.output
    assert result.output.count("eprint and arxivId: 'NIHMS150003' is not an arXiv identifier") == 2
    assert "doi '1038/nature08000' is not a DOI" in result.output
    assert papers_with(db, m.Publication.arxiv_id, "NIHMS150003") == 0
    result = run_orcid(runner, tmp_path, [
        {"title": "ORCID paper", "year": 2012, "arxiv": "NIHMS42017", "doi": "nature.123"},
    ])  # fmt: skip
    no_traceback(result)
    assert "external id arxiv: 'NIHMS42017' is not an arXiv identifier" in result.output
    assert "external id doi: 'nature.123' is not a DOI" in result.output


# ----------------------------------------------------------------------------- a whole library


def on_profile(db) -> int:
    db.expire_all()
    mine = select(m.Person.id).where(m.Person.slug == "xingda-wei").scalar_subquery()
    rows = select(func.count()).select_from(m.ProfilePublication)
    return db.scalar(rows.where(m.ProfilePublication.person_id == mine))


def test_a_reference_managers_library_imports_with_every_entrys_outcome(
    runner, tmp_path, db, demo
) -> None:
    """933 entries as Mendeley Desktop exports them (tests/support/mendeley.py): the NIH
    numbers in arxivId/eprint, a real arXiv id on unrelated papers, file = {…} fields, {\\&}
    escapes, keys and DOIs written twice, DOIs without their 10. prefix."""
    text, kinds = library(933)
    path = tmp_path / "My Collection.bib"
    path.write_text(text, encoding="utf-8")
    args = ["directory", "import-bibtex", "--person", "xingda-wei", "--duplicates", "new",
            "--skip-invalid", "--yes", str(path)]  # fmt: skip
    before = on_profile(db)
    result = runner.invoke(args=args)
    no_traceback(result)
    assert result.exit_code == 0, result.output[-2000:]
    preview = result.output.splitlines()[0]
    counts = {
        word: int(n) for n, word in re.findall(r"(\d+) (new|possible duplicates|repeated)", preview)
    }
    said_on: dict[int, list[str]] = {}  # line -> what the preview says of that entry
    for found in re.finditer(r"^  \w+: line (\d+) \S+: (.*)$", result.output, re.M):
        said_on.setdefault(int(found.group(1)), []).append(found.group(2))
    shared = [line for line, _key, kind in kinds if kind == "shared-arxiv"]
    expected = {
        "bad-arxiv": ("is not an arXiv identifier", "not stored"),
        "bad-doi": ("is not a DOI",),
        "duplicate-doi": ("Same paper as the entry on line",),
        "duplicate-key": ("is already used on line",),
        "shared-arxiv": (f"arXiv id {SHARED_ARXIV} is also the entry on line {shared[0]}'s",),
    }
    for line, key, kind in kinds:
        said = " ".join(said_on.get(line, []))
        if kind == "shared-arxiv" and line == shared[0]:
            continue  # the first to claim it keeps it
        for words in expected.get(kind, ()):
            assert words in said, (line, key, kind, said)
    assert sum(counts.values()) == len(kinds)
    assert "Imported for Xingda Wei:" in result.output
    db.expire_all()
    assert on_profile(db) - before == len(kinds) - counts["repeated"]
    assert papers_with(db, m.Publication.arxiv_id, SHARED_ARXIV) == 1
    arxiv_ids = select(m.Publication.arxiv_id).where(m.Publication.arxiv_id.isnot(None))
    assert not [value for value in db.scalars(arxiv_ids) if arxiv_problem(value)]
