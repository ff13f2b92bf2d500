"""The bulk SQL writer of an import: new papers and their child rows written below the ORM
(:func:`create_publications`), so that a file of thousands of entries imports in seconds.

Rows are handed to the driver as plain tuples (COPY on PostgreSQL, one executemany elsewhere);
a test (tests/services/test_bulk_rows.py) proves such a paper reads back as one written through the
ORM.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from directory import models as m
from directory.services.pubimport.plan import PlannedEntry
from directory.services.title_words import word_rows

#: The columns of a new paper's row, in the order of :func:`_publication_row`'s tuple; the
#: others (the id) take the database's default.
_PUBLICATION_COLUMNS = (
    "uid", "title", "venue", "venue_short", "year", "month", "type", "status", "abstract",
    "doi", "arxiv_id", "volume", "number", "pages", "article", "publisher", "location", "note",
    "labels", "authors_incomplete", "citation_key", "bibtex", "visibility", "created_by_id",
    "version", "created_at", "updated_at",
)  # fmt: skip


def _publication_row(
    data: dict[str, Any], raw: str, owner_id: int, labels: Callable[[list], Any], now: Any,
    flag: tuple[Any, Any],
) -> tuple:  # fmt: skip
    """A new paper's row in the order of ``_PUBLICATION_COLUMNS``, as the driver takes it:
    ``labels`` converts the label list for the JSON column, ``now`` is the time already so,
    ``flag`` is (false, true) so (see :func:`_driver_flags`)."""
    get = data.get
    return (
        m.new_uid(), data["title"], get("venue"), get("venue_short"), get("year"),
        get("month"), get("type") or "other", get("status") or "published", get("abstract"),
        get("doi"), get("arxiv_id"), get("volume"), get("number"), get("pages"),
        get("article"), get("publisher"), get("location"), get("note"),
        labels(list(get("labels") or [])), flag[bool(get("authors_incomplete"))], get("key"),
        raw or None, "public", owner_id, 1, now, now,
    )  # fmt: skip


def create_publications(
    session: Session, items: list[PlannedEntry], owner_id: int, position: int
) -> list[int]:
    """Bulk-write new papers with their authors, links, awards, badges and profile rows."""
    # One executemany without RETURNING (with it, SQLite inserts row by row when the order
    # of the returned ids must match), then the ids by the uids just generated.
    table = m.Publication.__table__
    convert = _converters(session, table, ("labels", "created_at"))
    labels, now = convert["labels"], convert["created_at"](m.utcnow())
    flag = _driver_flags(session)
    rows = [_publication_row(e.data, e.raw, owner_id, labels, now, flag) for e in items]
    _insert_plain_rows(session, table, _PUBLICATION_COLUMNS, rows)
    uids = [row[0] for row in rows]
    found = session.execute(select(table.c.uid, table.c.id).where(table.c.uid.in_(uids)))
    id_of = {uid: pid for uid, pid in found}
    ids = [id_of[uid] for uid in uids]
    # Child rows as tuples in the column order of _PLAIN_COLUMNS.
    authorships: list[tuple] = []
    links: list[tuple] = []
    awards: list[tuple] = []
    badges: list[tuple] = []
    profile_rows: list[tuple] = []
    # The title's words too: these papers pass no ORM event (services/title_words.py).
    words = word_rows((pid, row[1]) for pid, row in zip(ids, rows, strict=True))
    for offset, (pid, entry) in enumerate(zip(ids, items, strict=True)):
        data = entry.data
        for pos, (author, planned) in enumerate(zip(data["authors"], entry.authors, strict=True)):
            person_id = planned.person_id
            authorships.append(
                (pid, pos, author["name"], person_id, flag[bool(author.get("co_first"))],
                 flag[bool(author.get("corresponding"))], author.get("given"),
                 author.get("particle"), author.get("family"), author.get("suffix"),
                 author.get("role") or "author", planned.suggested_id)
            )  # fmt: skip
        for pos, k in enumerate(data.get("links") or ()):
            links.append((pid, k["kind"], k["url"], k.get("label"), pos))
        for pos, name in enumerate(data.get("awards") or ()):
            awards.append((pid, name, pos))
        for pos, b in enumerate(data.get("badges") or ()):
            badges.append((pid, b["name"], b.get("issuer"), pos))
        selected = flag[bool(data.get("selected"))]
        profile_rows.append((owner_id, pid, selected, flag[False], position + offset))
    for model, rows in (
        (m.Authorship, authorships),
        (m.PublicationLink, links),
        (m.PublicationAward, awards),
        (m.ArtifactBadge, badges),
        (m.ProfilePublication, profile_rows),
        (m.PublicationTitleWord, words),
    ):
        if rows:
            _insert_plain_rows(session, model.__table__, _PLAIN_COLUMNS[model], rows)
    return ids


_PLAIN_COLUMNS = {
    m.Authorship: (
        "publication_id",
        "position",
        "name",
        "person_id",
        "co_first",
        "corresponding",
        "given",
        "particle",
        "family",
        "suffix",
        "role",
        "suggested_person_id",
    ),  # fmt: skip
    m.PublicationLink: ("publication_id", "kind", "url", "label", "position"),
    m.PublicationAward: ("publication_id", "name", "position"),
    m.ArtifactBadge: ("publication_id", "name", "issuer", "position"),
    m.ProfilePublication: ("person_id", "publication_id", "selected", "hidden", "position"),
    m.PublicationTitleWord: ("word", "publication_id"),
}


def _insert_plain_rows(
    session: Session, table: Any, names: tuple[str, ...], rows: list[tuple]
) -> None:
    """INSERT many rows of plain values (int, str, None; booleans as :func:`_driver_flags`
    gives them) in one go: PostgreSQL's COPY through psycopg, else one DBAPI executemany.

    SQLAlchemy's Core executemany still processes every parameter of every row in Python,
    which for the tens of thousands of author rows of a large import costs more than the
    database does. So the rows are handed to the driver as they are, and a value whose
    column type converts it (JSON, a date on SQLite) must come converted: see
    :func:`_converters`. On PostgreSQL even psycopg's executemany spends about a millisecond
    of the client's CPU per ten rows on its pipeline; COPY takes the rows in one stream (a
    fourth of the write's CPU time), checks the same constraints and runs in the same
    transaction. COPY passes no SQLAlchemy execute event (nothing here relies on one); its
    errors are raised as SQLAlchemy's own (IntegrityError, OperationalError...), as the
    executemany's are.
    """
    connection = session.connection()
    preparer = connection.dialect.identifier_preparer
    columns = ", ".join(preparer.quote(n) for n in names)
    target = f"{preparer.format_table(table)} ({columns})"
    if connection.dialect.driver == "psycopg":
        sql = f"COPY {target} FROM STDIN"
        dbapi_error = connection.dialect.loaded_dbapi.Error
        cursor = connection.connection.cursor()
        try:
            with cursor, cursor.copy(sql) as copy:
                for row in rows:
                    copy.write_row(row)
        except dbapi_error as error:  # as SQLAlchemy raises it for any statement it runs
            raise DBAPIError.instance(sql, None, error, dbapi_error) from error
        return
    style = connection.dialect.paramstyle
    if style == "qmark":
        marks = ", ".join("?" for _ in names)
    elif style in ("format", "pyformat"):
        marks = ", ".join("%s" for _ in names)
    else:  # named / numeric drivers: let SQLAlchemy do it
        session.execute(insert(table), [dict(zip(names, row, strict=True)) for row in rows])
        return
    connection.exec_driver_sql(f"INSERT INTO {target} VALUES ({marks})", rows)  # noqa: S608


def _converters(session: Session, table: Any, names: tuple[str, ...]) -> dict[str, Callable]:
    """For each column named, the function that turns a Python value into what this
    session's driver takes for it (the column type's bind processor for this dialect, or the
    value itself): what SQLAlchemy would do per parameter, for :func:`_insert_plain_rows`."""
    dialect = session.connection().dialect
    converters = {}
    for name in names:
        column_type = table.c[name].type
        processor = column_type.dialect_impl(dialect).bind_processor(dialect)
        converters[name] = processor or (lambda value: value)
    return converters


def _driver_flags(session: Session) -> tuple[Any, Any]:
    """(false, true) as this session's driver takes them for a Boolean column: 0 and 1 on
    SQLite, whose driver binds an int at once but looks up an adapter for every bool (a
    tenth of an import's write went there), and the bools themselves where the database has
    a boolean type (PostgreSQL refuses an int for one)."""
    table = m.Authorship.__table__
    convert = _converters(session, table, ("co_first",))["co_first"]
    return convert(False), convert(True)
