"""The stored words of every paper's title (``directory_publication_title_words``).

An import compares each entry's title with the directory's papers that share one of its rare
words (:class:`directory.services.publications.PublicationIndex`). How rare a word is, and
which papers have it, are read from this table, so that an import reads the few papers its
titles can match, not every paper of the directory.

One function says what the words of a title are (``services.publications.title_words``,
beside the index that looks papers up by them). They are written:

* on every ORM insert and update of a title, by any session (``services.write_gates`` listens);
* by the bulk import beside its own rows (``pubimport.bulk.create_publications``), which inserts
  papers below the ORM;
* for the papers already there, by migration ``dedup_1``.

The tests' autouse check compares every paper's stored words with :func:`title_words` after
each test, so a write path that forgets them fails its own test.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, delete, insert, inspect

from directory import models as m
from directory.services.publications import title_words

__all__ = ["title_changed", "title_words", "word_rows", "write_title_words"]

TABLE = m.PublicationTitleWord.__table__


def word_rows(pairs: Iterable[tuple[int, str | None]]) -> list[tuple[str, int]]:
    """(word, publication id) rows for (publication id, title) pairs."""
    return [(word, pid) for pid, title in pairs for word in title_words(title)]


def write_title_words(connection: Connection, pid: int, title: str | None, *, new: bool) -> None:
    """Store the words of paper ``pid``'s ``title`` (replacing its old ones unless ``new``)."""
    if not new:
        connection.execute(delete(TABLE).where(TABLE.c.publication_id == pid))
    rows = [{"word": word, "publication_id": pid} for word in title_words(title)]
    if rows:
        connection.execute(insert(TABLE), rows)


def title_changed(pub: Any) -> bool:
    """Whether the flush under way changes ``pub``'s title."""
    return inspect(pub).attrs.title.history.has_changes()
