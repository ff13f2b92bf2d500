"""The bulk import writes papers below the ORM (``pubimport.bulk.create_publications``): a paper
it writes must read back exactly like one the ORM writes, for every column of the table."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from directory import models as m
from directory.formats.bibtex.parse import parse_bibtex
from directory.services.pubimport.bulk import _PUBLICATION_COLUMNS, _insert_plain_rows
from directory.services.pubimport.planning import plan_import
from directory.services.pubimport.writing import apply_plan

BIB = r"""
@inproceedings{zhuo2024,
  title = {Scheduling with {\"U}ber Labels},
  author = {Zhuo, Danyang and Lovelace, Ada},
  booktitle = {Proceedings of OSDI}, year = {2024}, month = {jul},
  doi = {10.1000/Bulk.Rows}, pages = {1--12}, labels = {systems, scheduling},
  selected = {true},
}
"""


def import_bib(db, person: m.Person) -> m.Person:
    """Import BIB into ``person``'s profile, committed, and forget every loaded object."""
    parsed = parse_bibtex(BIB)
    apply_plan(db, plan_import(db, person, parsed.entries), person)
    db.commit()
    db.expire_all()
    return person


def test_every_column_of_a_paper_is_given_by_the_bulk_row() -> None:
    # Plain driver SQL applies no column default: a column added to the model and not to the
    # bulk row would be left NULL on every imported paper.
    columns = set(m.Publication.__table__.c.keys())
    assert set(_PUBLICATION_COLUMNS) == columns - {"id"}


def test_a_bulk_imported_paper_reads_back_like_one_the_orm_wrote(db, make_person) -> None:
    import_bib(db, make_person("Ada Lovelace"))
    bulk = db.scalar(select(m.Publication).where(m.Publication.doi == "10.1000/bulk.rows"))
    # The same values through the ORM (a DOI of its own: DOIs are unique).
    orm = m.Publication(**{
        name: getattr(bulk, name)
        for name in _PUBLICATION_COLUMNS
        if name not in ("uid", "created_at", "updated_at")
    } | {"doi": "10.1000/orm.rows"})  # fmt: skip
    db.add(orm)
    db.commit()
    db.expire_all()

    assert bulk.labels == ["systems", "scheduling"]
    assert bulk.month == 7 and bulk.authors_incomplete is False and bulk.version == 1
    for name in _PUBLICATION_COLUMNS:
        ours, theirs = getattr(bulk, name), getattr(orm, name)
        assert type(ours) is type(theirs), name
        if isinstance(ours, datetime):
            assert ours.tzinfo == theirs.tzinfo, name
            assert abs((theirs - ours).total_seconds()) < 60, name
        elif name not in ("uid", "doi"):
            assert ours == theirs, name


def test_the_flags_of_bulk_rows_read_back_as_written(db, make_person) -> None:
    # Given to the driver as it takes them (0/1 on SQLite, booleans on PostgreSQL).
    ada = import_bib(db, make_person("Ada Lovelace"))
    row = db.get(m.ProfilePublication, (ada.id, db.scalar(select(m.Publication.id))))
    assert (row.selected, row.hidden) == (True, False)
    flags = db.execute(select(m.Authorship.co_first, m.Authorship.corresponding)).all()
    assert flags == [(False, False), (False, False)]


def test_plain_rows_keep_every_character_and_null(db, make_publication) -> None:
    # On PostgreSQL the rows go by COPY, whose text format escapes tabs, newlines and
    # backslashes: they must come back as written, and None as NULL.
    pid = make_publication("Awarded").id
    names = ["tab\there", "line\nbreak", "back\\slash \\N", "魏星达 «ü»", "\\.", ""]
    rows = [(pid, name, pos) for pos, name in enumerate(names)]
    _insert_plain_rows(
        db, m.PublicationAward.__table__, ("publication_id", "name", "position"), rows
    )
    links = [(pid, "pdf", "https://example.org/a\tb", None, 0)]
    _insert_plain_rows(
        db, m.PublicationLink.__table__, ("publication_id", "kind", "url", "label", "position"),
        links,
    )  # fmt: skip
    db.commit()
    award = m.PublicationAward
    stored = db.scalars(
        select(award.name).where(award.publication_id == pid).order_by(award.position)
    )
    assert list(stored) == names
    link = db.execute(select(m.PublicationLink.url, m.PublicationLink.label)).one()
    assert tuple(link) == ("https://example.org/a\tb", None)


def test_a_row_the_database_refuses_is_its_integrity_error(db, make_publication) -> None:
    # The same exception on every engine and path (COPY included), for the callers' handlers.
    pid = make_publication("Refused").id
    names = ("publication_id", "name", "position")
    with pytest.raises(IntegrityError):
        _insert_plain_rows(db, m.PublicationAward.__table__, names, [(pid + 999, "x", 0)])
    db.rollback()
