"""Every paper's title words are stored (services/title_words.py), whatever wrote the paper, and
the duplicate index reads what an import's entries can match, not the directory.

The check after every test (conftest ``wrong_title_words``) enumerates the write paths the
suite exercises; here: that it catches a write which forgets the words, that the package has
no such write, that the migration fills the words of the papers already there, and that an
import preview reads the same rows in a department four times larger.
"""

from __future__ import annotations

import ast

from sqlalchemy import insert, select, update

from directory import migrate
from directory import models as m
from directory.db import make_engine
from directory.formats.bibtex.parse import parse_bibtex
from directory.services.pubimport.planning import plan_import
from directory.services.publications import PublicationIndex
from directory.services.title_words import title_words
from tests.conftest import scratch_database, wrong_title_words
from tests.support.eventless_writes import eventless_writes, names, package_offenders
from tests.support.statements import count_rows, count_statements
from tests.support.synthetic import Sizes, generate


def _words(db, pid: int) -> set[str]:
    word = m.PublicationTitleWord
    return set(db.scalars(select(word.word).where(word.publication_id == pid)))


def test_a_title_s_words_are_its_compared_words() -> None:
    assert title_words("Jörg's  Fast-RDMA: fast, FAST!") == {"jorg", "s", "fast", "rdma"}
    assert title_words("分布式 事务") == {"分布式", "事务"}
    assert title_words("") == set() and title_words(None) == set()


def test_any_session_keeps_the_words_on_insert_rename_and_delete(db) -> None:
    pub = m.Publication(title="Fast Distributed Transactions")
    db.add(pub)
    db.commit()
    assert _words(db, pub.id) == {"fast", "distributed", "transactions"}
    pub.venue = "OSDI"  # not the title: the words stay as they are
    db.commit()
    assert _words(db, pub.id) == {"fast", "distributed", "transactions"}
    pub.title = "Slow Transactions"
    db.commit()
    assert _words(db, pub.id) == {"slow", "transactions"}
    pid = pub.id
    db.delete(pub)
    db.commit()
    assert _words(db, pid) == set()


def test_the_check_after_each_test_finds_a_write_that_forgets_the_words(db, connection) -> None:
    """A Core insert or update of a title (no ORM event) leaves words that do not match: the
    check that runs after every test reports the paper."""
    table = m.Publication.__table__
    pid = connection.execute(
        insert(table).values(uid="bypass", title="Bypassed Title", type="other",
                             status="published", visibility="public", labels=[], version=1)
    ).inserted_primary_key[0]  # fmt: skip
    assert wrong_title_words(connection) == [(pid, set(), {"bypassed", "title"})]
    connection.execute(
        insert(m.PublicationTitleWord.__table__),
        [{"word": w, "publication_id": pid} for w in ("bypassed", "title")],
    )
    assert wrong_title_words(connection) == []
    connection.execute(update(table).where(table.c.id == pid).values(title="Other Title"))
    assert wrong_title_words(connection) == [(pid, {"bypassed", "title"}, {"other", "title"})]
    connection.execute(table.delete().where(table.c.id == pid))
    assert wrong_title_words(connection) == []


def _title_writes_without_words(tree: ast.AST) -> list[int]:
    """Lines of eventless writes of papers (an insert, or an update naming ``title``; the
    table also by a local name given to it) in a function that does not write the words."""
    found = []
    for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.Module)):
        body = ast.Module(body=list(getattr(function, "body", [])), type_ignores=[])
        if {"PublicationTitleWord", "word_rows", "write_title_words"} & names(body):
            continue
        aliases = {"Publication"} | {
            target.id
            for node in ast.walk(body)
            if isinstance(node, ast.Assign) and "Publication" in names(node.value)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for named, node, name, target in eventless_writes(body):
            if aliases & names(target) and (name != "update" or "title" in named):
                found.append(node.lineno)
    return sorted(set(found))


def test_the_package_writes_titles_with_their_words() -> None:
    """No Core insert of papers, or update of their titles, in the package without the words
    (the bulk import writes them beside its rows; the benchmark's generator too, below)."""
    assert package_offenders(_title_writes_without_words) == []
    # The scan finds such a statement, also through a local name of the table.
    scan = _title_writes_without_words
    assert scan(ast.parse("session.execute(update(m.Publication).values(title='x'))")) == [1]
    assert scan(ast.parse("t = m.Publication.__table__\nconn.execute(insert(t), rows)")) == [2]
    assert scan(ast.parse("conn.execute(m.Publication.__table__.update().values(title=1))"))
    # An update of other columns changes no word; a function writing the words is fine.
    assert scan(ast.parse("session.execute(update(m.Publication).values(year=1))")) == []
    both = "def f():\n  conn.execute(insert(m.Publication), rows)\n  write(word_rows(rows))"
    assert scan(ast.parse(both)) == []


def test_the_benchmark_department_carries_the_words(db, connection) -> None:
    generate(db, Sizes(faculty=3, members=6, alumni=2, publications=12, notices=2))
    db.flush()
    assert wrong_title_words(connection) == []


def test_the_migration_fills_the_words_of_the_papers_already_there(tmp_path) -> None:
    with scratch_database(tmp_path) as url:
        engine = make_engine(url)
        try:
            migrate.upgrade(engine, "alumni_2")
            table = m.Publication.__table__
            with engine.begin() as conn:
                for uid, title in (("a", "Fast RDMA Transactions"), ("b", "Über Straße")):
                    conn.execute(
                        insert(table).values(uid=uid, title=title, type="other",
                                             status="published", visibility="public",
                                             labels=[], version=1)
                    )  # fmt: skip
            migrate.upgrade(engine)
            with engine.connect() as conn:
                assert wrong_title_words(conn) == []
                word = m.PublicationTitleWord.__table__.c
                assert set(conn.scalars(select(word.word))) == {
                    "fast", "rdma", "transactions", "uber", "strasse",
                }  # fmt: skip
            migrate.downgrade(engine, "alumni_2")
            migrate.upgrade(engine)
        finally:
            migrate.downgrade(engine, "base")
            engine.dispose()


def _department(db, prefix: str, papers: int) -> None:
    """``papers`` papers whose titles share common words with the file's, and none of its
    rare ones."""
    db.add_all(
        m.Publication(title=f"Efficient systems for {prefix} topic {i}", year=2000 + i % 20,
                      doi=f"10.9/{prefix}.{i}")
        for i in range(papers)
    )  # fmt: skip
    db.flush()


BIB = "\n".join(
    f"@inproceedings{{k{i}, title = {{Efficient systems for zorblat{i} quux{i}}}, "
    f"author = {{Ada Lovelace}}, year = {2005 + i}, doi = {{10.1234/file.{i}}}}}"
    for i in range(6)
)


def test_an_import_preview_reads_what_its_file_can_match(app, db) -> None:
    """The preview of one file reads the same rows in a department of 80 papers and in one of
    320 (their words common to the file's), and still finds the paper the file shares a DOI
    with and a near-duplicate title."""
    owner = m.Person(slug="ada", full_name="Ada Lovelace", sort_name="Lovelace, Ada",
                     role="faculty")  # fmt: skip
    db.add(owner)
    known = m.Publication(title="Efficient systems for zorblat2 quux2", year=2007)
    same_doi = m.Publication(title="Whatever it was called", doi="10.1234/FILE.4", year=2009)
    db.add_all([known, same_doi])
    db.flush()
    db.add(m.Authorship(publication_id=known.id, position=0, name="A. Lovelace"))
    db.flush()
    parsed = parse_bibtex(BIB)
    engine = app.extensions["directory"].db.engine
    rows = []
    for prefix, papers in (("small", 80), ("large", 240)):
        _department(db, prefix, papers)
        with count_statements(engine) as log, count_rows(log):
            plan = plan_import(db, owner, parsed.entries, parsed.problems)
        rows.append(log.rows)
        by_key = {e.key: e for e in plan.entries}
        assert by_key["k4"].status == "department" and by_key["k4"].target_id == same_doi.id
        assert [c.publication_id for c in by_key["k2"].candidates] == [known.id]
    assert rows[0] == rows[1], rows


def test_an_index_made_for_nothing_reads_what_it_is_asked_about(db) -> None:
    """Asked about a paper it was not made for, the index reads what that one can match."""
    pub = m.Publication(title="Zorblat quux frobnication", year=2020, doi="10.1/Mixed.Case")
    db.add(pub)
    db.flush()
    index = PublicationIndex(db)
    assert index.paper_with_doi("10.1/mixed.CASE") == pub.id
    assert index.match({"title": "x", "doi": "10.1/MIXED.case", "authors": []}).same == pub.id
    db.add(m.Authorship(publication_id=pub.id, position=0, name="Ada Lovelace"))
    db.flush()
    near = {"title": "Zorblat quux frobnications", "year": 2021, "authors": [{"name": "Lovelace"}]}
    assert [c.publication_id for c in index.candidates(near)] == [pub.id]
