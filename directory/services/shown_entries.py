"""A profile's entries (every declared kind's, not its papers) read as plain values: each row
one value carrying every column of the kind's model under the model's attribute names, read
on the session's connection without an ORM object for each (as
:mod:`~directory.services.shown_papers` and :mod:`~directory.services.shown_cards` read
papers and person cards). A profile shows some sixty entries in a dozen statements; as ORM
objects, each statement cost half a millisecond of the page's CPU, mostly the ORM's loading.

The entry partials (``templates/directory/entries/<kind>.html``), the CV, the API and the
access helpers read these exactly as they read the mapped objects, and the models' own
properties come with them (a notice's ``term_label``, an advising relation's
``student_display``). What a value links to is a value too: an award's paper and a project's
papers (:class:`~directory.services.shown_papers.ShownTarget`), an advising relation's
people (:class:`~directory.services.shown_papers.ShownPerson`), a notice's areas
(:class:`~directory.services.shown_cards.CardArea`). The values are read-only: the editor
and the operations load the entries they change as objects. Which rows are read is the
caller's statement, with its filters from :mod:`directory.services.access`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field, fields, make_dataclass
from functools import cache
from typing import Any

from sqlalchemy import Select, inspect, select
from sqlalchemy.orm import Session

from directory import models as m


class _NoticeParts:
    """A recruiting notice's properties, the model's own (its intake and how it is named)."""

    __slots__ = ()
    intake = m.RecruitingNotice.intake
    is_rolling = m.RecruitingNotice.is_rolling
    term_unreadable = m.RecruitingNotice.term_unreadable
    term_label = m.RecruitingNotice.term_label
    is_open = m.RecruitingNotice.is_open


class _AdvisingParts:
    """An advising relation's properties, the model's own (each side's name)."""

    __slots__ = ()
    advisor_display = m.AdvisingRelation.advisor_display
    student_display = m.AdvisingRelation.student_display
    confirmed = m.AdvisingRelation.confirmed


#: What a kind's value holds besides its model's columns: (its properties, the attributes
#: the loader fills in, each with the default of a value that links to nothing).
_MORE: dict[type, tuple[type, tuple[tuple[str, Callable[[], Any] | None], ...]]] = {
    m.RecruitingNotice: (_NoticeParts, (("areas", list), ("owner", None))),
    m.AdvisingRelation: (_AdvisingParts, (("advisor", None), ("student", None))),
    m.Award: (object, (("publication", None),)),
    m.ResearchProject: (object, (("visible_publications", list), ("visible_children", list))),
}


@cache
def entry_names(model: type) -> tuple[str, ...]:
    """The attribute names of ``model``'s columns, in the mapper's order: a value's fields."""
    return tuple(attr.key for attr in inspect(model).column_attrs)


def entry_columns(model: type) -> list[Any]:
    """The table's columns of :func:`entry_names`: a statement that selects them first gives
    :func:`shown_entries` (or :func:`with_parts`) its values. The table's, not the mapped
    attributes': a result of a statement selecting these needs no matching of the mapped
    attributes' annotated columns to the cached statement's (a tenth of a millisecond for
    twenty columns, each time)."""
    return [attr.columns[0] for attr in inspect(model).column_attrs]


@cache
def entry_select(model: type) -> Select:
    """A statement of ``model``'s entries as values (:func:`entry_columns`), built once (a
    select of some twenty columns costs more to build than to run): the caller adds which
    rows (its ``where``, from :mod:`~directory.services.access`) and their order."""
    return select(*entry_columns(model))


def link_columns(table: Any, link: type) -> list[Any]:
    """The columns of ``table`` (a model's table or an alias of it, as for
    :func:`entry_columns`) that make a ``link`` value: a linked value's fields are its
    columns' names, its id first."""
    return [table.c[f.name] for f in fields(link)]


@cache
def entry_class(model: type) -> type:
    """The plain value class of ``model``'s entries (one per model, made once): a slotted
    dataclass of its columns, with what :data:`_MORE` adds for the kinds that link."""
    parts, more = _MORE.get(model, (object, ()))
    linked = [
        (name, Any, field(default=None) if default is None else field(default_factory=default))
        for name, default in more
    ]
    return make_dataclass(
        f"Shown{model.__name__}", [*entry_names(model), *linked], bases=(parts,), slots=True,
        eq=False, module=__name__,
    )  # fmt: skip


def shown_entries(
    session: Session,
    model: type,
    stmt: Select,
    parameters: dict[str, Any],
    *links: tuple[str, type],
) -> list[Any]:
    """The entries ``stmt`` selects (given ``parameters``), in its order, as values of
    :func:`entry_class`. The statement selects :func:`entry_columns`, then for each of
    ``links`` (attribute, value class) the columns of one linked row (:func:`link_columns`,
    outer-joined: all None when there is none), which becomes the entry's ``attribute``.
    Read on the session's connection: plain columns need none of the ORM's work on their
    rows (the pages that show a profile have written nothing that is not flushed)."""
    value, own = entry_class(model), len(entry_names(model))
    spans, start = [], own
    for attribute, link in links:
        spans.append((attribute, link, start, start + len(fields(link))))
        start += len(fields(link))
    entries = []
    for row in session.connection().execute(stmt, parameters):
        entry = value(*row[:own])
        for attribute, link, first, end in spans:
            if row[first] is not None:  # the linked row's id: there is one
                setattr(entry, attribute, link(*row[first:end]))
        entries.append(entry)
    return entries


def with_parts(
    session: Session,
    model: type,
    stmt: Select,
    parameters: dict[str, Any],
    attribute: str,
    part: type,
) -> list[Any]:
    """The entries ``stmt`` selects (given ``parameters``), each with its linked rows as
    ``part`` values in its list ``attribute``: the statement selects :func:`entry_columns`,
    then ``part``'s (:func:`link_columns`) outer-joined, a row per entry and linked row, in
    the entries' order and the linked rows' order within each entry. One statement for the
    entries and all they link to."""
    value, own = entry_class(model), len(entry_names(model))
    ids = entry_names(model).index("id")
    entries: dict[int, Any] = {}
    for row in session.connection().execute(stmt, parameters):
        entry = entries.get(row[ids])
        if entry is None:
            entry = entries[row[ids]] = value(*row[:own])
        if row[own] is not None:  # the linked row's id: there is one
            getattr(entry, attribute).append(part(*row[own:]))
    return list(entries.values())
