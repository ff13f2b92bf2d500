"""What every write to the directory's tables passes, whatever path brought it (a form, an
import, the command line, the API, a host's own session on our models):

- the characters no text may hold are stripped before each flush of a directory session;
- a person's stored name orders, an advising relation's typed-name keys and a paper's title
  words are computed from the values as written, on every insert and update by any session.

:func:`install` registers them; the extension calls it at ``init_app`` (registering twice
changes nothing). They are the one place those stored values are computed
(``tests/invariants/test_name_keys.py`` and the tests' autouse checks compare every row against
them).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.orm import Session, sessionmaker

from directory import models as m
from directory.formats.names import name_keys, typed_name_keys
from directory.formats.text import strip_control_characters_deep
from directory.services.title_words import title_changed, write_title_words


def strip_unstorable_text(session: Session, _context: Any = None, _instances: Any = None) -> None:
    """Before every flush of a directory session: strip the characters no text may hold
    (:mod:`directory.formats.text`) from every new or changed text or JSON column, whatever
    path brought them (importers, the command line, the API). Forms refuse them earlier, with a
    message; this is the gate that makes the rule hold on SQLite and PostgreSQL alike."""
    for obj in (*session.new, *session.dirty):
        state = inspect(obj)
        changed = state.committed_state if obj not in session.new else state.dict
        for attr in state.mapper.column_attrs:
            value = state.dict.get(attr.key) if attr.key in changed else None
            if isinstance(value, str | list | dict):
                cleaned = strip_control_characters_deep(value)
                if cleaned != value:
                    setattr(obj, attr.key, cleaned)


def fill_name_keys(_mapper: Any, _connection: Any, person: m.Person) -> None:
    """On every insert and update of a person, by any session: the stored name orders
    (``name_key``, ``name_key_zh``: formats.names.name_keys) of the name as it is written, so
    that the listing sorts, pages and counts its letters in SQL. The one place they are
    computed (``tests/invariants/test_name_keys.py`` checks every test's people against it)."""
    for column, key in name_keys(person.sort_name, person.full_name, person.native_name).items():
        if getattr(person, column, None) != key:
            setattr(person, column, key)


def fill_typed_name_keys(_mapper: Any, _connection: Any, relation: m.AdvisingRelation) -> None:
    """On every insert and update of an advising relation: the stored forms of its typed
    student name (``student_fold``, ``student_key``: formats.names.typed_name_keys), so that
    the alumni outputs merge typed names, order and page in SQL. The one place they are
    computed (the tests' autouse check compares every relation against it)."""
    for column, key in typed_name_keys(relation.student_name).items():
        if getattr(relation, column, None) != key:
            setattr(relation, column, key)


def store_title_words(_mapper: Any, connection: Any, pub: m.Publication) -> None:
    """On every insert of a paper, by any session: the words of its title
    (``services.title_words``), which imports look near-duplicates up by."""
    write_title_words(connection, pub.id, pub.title, new=True)


def restore_title_words(_mapper: Any, connection: Any, pub: m.Publication) -> None:
    """On every update of a paper's title: its stored words replaced (a deleted paper's go
    with it: ON DELETE CASCADE)."""
    if title_changed(pub):
        write_title_words(connection, pub.id, pub.title, new=False)


#: (target, event, listener) of every gate on a mapped class: they hold for any session.
_MAPPER_GATES = (
    (m.Person, "before_insert", fill_name_keys),
    (m.Person, "before_update", fill_name_keys),
    (m.AdvisingRelation, "before_insert", fill_typed_name_keys),
    (m.AdvisingRelation, "before_update", fill_typed_name_keys),
    (m.Publication, "after_insert", store_title_words),
    (m.Publication, "after_update", restore_title_words),
)


def install(sessions: sessionmaker[Session]) -> None:
    """Register the gates: on the models (every session) and on ``sessions``."""
    for target, name, listener in (
        *_MAPPER_GATES,
        (sessions, "before_flush", strip_unstorable_text),
    ):
        if not event.contains(target, name, listener):
            event.listen(target, name, listener)
