"""Operations on a profile's entries (news, projects, advising, education, …): create or
update one from the values of its form, delete it, move it up or down its list.

``values`` is a form's ``data``: a value per field name. Most fields are columns of the
entry's model, copied as they are (text stripped; empty text is None where the column allows
it); a few kinds read some values their own way (:data:`OWN_FIELDS`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.orm import selectinload

from directory import models as m
from directory.formats.placements import structure_placement
from directory.services.changes import SAVED
from directory.services.unit_of_work import UnitOfWork

#: The term choice that keeps a notice's stored intake text as it was written.
KEEP_TERM_TEXT = "keep"

#: What is never copied from a form onto an entry.
_NOT_COPIED = frozenset({"version", "id", "owner_id"})


def save(
    uow: UnitOfWork,
    person: m.Person,
    kind: str,
    entry: Any | None,
    values: dict[str, Any],
    base_version: int | None = None,
) -> tuple[str, Any]:
    """Add an entry of ``kind`` (``entry`` None: first in its list) or change ``entry`` to
    ``values``. Returns the outcome and the entry."""
    changes = uow.change_set(person)
    if entry is None:
        model = m.ENTRY_MODELS[kind]
        entry = model(owner_id=person.id, position=first_position(uow, model, person))
        _apply(uow, kind, entry, values)
        changes.create(kind, entry)
    else:
        changes.update(kind, entry, base_version)
        _apply(uow, kind, entry, values)
    return changes.finish(), entry


def delete(
    uow: UnitOfWork, person: m.Person, kind: str, entry: Any, base_version: int | None
) -> str:
    """Delete ``entry`` (restorable from the history)."""
    changes = uow.change_set(person)
    changes.delete(kind, entry, base_version)
    return changes.finish()


@dataclass
class Moved:
    """What a move did: its outcome (None when the entry was already at that end of its list)
    and every entry's version after it, for the page's script."""

    outcome: str | None
    versions: dict[str, int] = field(default_factory=dict)


def move(
    uow: UnitOfWork,
    person: m.Person,
    kind: str,
    entry: Any,
    direction: str,
    base_version: int | None,
) -> Moved:
    """Swap ``entry`` with its neighbour above (``direction`` "up") or below in its list."""
    model = type(entry)
    entries = list_of(uow, model, person)
    index = entries.index(entry)
    other = index - 1 if direction == "up" else index + 1
    if not 0 <= other < len(entries):
        return Moved(None)
    changes = uow.change_set(person)
    changes.update(kind, entry, base_version)
    for item in entries:
        if item is not entry:
            changes.update(kind, item)
    entries[index], entries[other] = entries[other], entries[index]
    for position, item in enumerate(entries):
        item.position = position
    outcome = changes.finish()
    versions = {str(e.id): e.version for e in entries} if outcome == SAVED else {}
    return Moved(outcome, versions)


# ----------------------------------------------------------------------------- reads


def list_of(uow: UnitOfWork, model: type[Any], person: m.Person, *load: str) -> list[Any]:
    """``person``'s entries of ``model`` in their order, with the relationships ``load``."""
    return list(
        uow.session.scalars(
            select(model)
            .where(model.owner_id == person.id)
            .options(*(selectinload(getattr(model, name)) for name in load))
            .order_by(model.position, model.id)
        )
    )


def owned(uow: UnitOfWork, model: type[Any], person: m.Person, entry_id: int) -> Any | None:
    """The entry ``entry_id`` of ``model`` if it is on ``person``'s profile."""
    entry = uow.session.get(model, entry_id)
    return entry if entry is not None and entry.owner_id == person.id else None


def first_position(uow: UnitOfWork, model: type[Any], person: m.Person) -> int:
    """The position that puts a new entry first in ``person``'s list."""
    lowest = uow.session.scalar(
        select(model.position).where(model.owner_id == person.id).order_by(model.position).limit(1)
    )
    return (lowest if lowest is not None else 1) - 1


# ----------------------------------------------------------------------------- the values


def _apply(uow: UnitOfWork, kind: str, entry: Any, values: dict[str, Any]) -> None:
    own = OWN_FIELDS.get(kind)
    _copy_columns(entry, values, own.names if own else ())
    if own is not None:
        own.apply(uow, entry, values)


def _copy_columns(entry: Any, values: dict[str, Any], skip: tuple[str, ...]) -> None:
    columns = {c.key: c for c in inspect(type(entry)).columns}
    for name, value in values.items():
        if name not in columns or name in _NOT_COPIED or name in skip:
            continue
        if isinstance(value, str):
            value = value.strip()
            if value == "" and columns[name].nullable:
                value = None
        setattr(entry, name, value)


def _project_parent(_uow: UnitOfWork, project: m.ResearchProject, values: dict[str, Any]) -> None:
    parent = values.get("parent_id")
    project.parent_id = int(parent) if parent else None


def _notice_term_and_areas(
    uow: UnitOfWork, notice: m.RecruitingNotice, values: dict[str, Any]
) -> None:
    season = values.get("term_season")
    if season == KEEP_TERM_TEXT and notice.term_unreadable:
        pass  # kept as it was written
    elif season in ("", KEEP_TERM_TEXT, None):
        notice.set_intake(m.ROLLING)
    else:
        notice.set_intake(m.Term(season, values.get("term_year")))
    notice.areas = areas_by_id(uow, values.get("areas") or [])


def _advising_sides(uow: UnitOfWork, relation: m.AdvisingRelation, values: dict[str, Any]) -> None:
    """Who is on the other side: a member (``other_id``) or a name (``other_name``); the
    owner is the advisor when ``side`` is "student"."""
    structure_placement(relation)
    other = int(values["other_id"]) if values.get("other_id") else None
    name = None if other else (values.get("other_name") or "").strip() or None
    owner = relation.owner_id
    owner_advises = values.get("side") == "student"
    if owner_advises:
        changed = relation.student_id != other
        relation.advisor_id, relation.advisor_name = owner, None
        relation.student_id, relation.student_name = other, name
    else:
        changed = relation.advisor_id != other
        relation.student_id, relation.student_name = owner, None
        relation.advisor_id, relation.advisor_name = other, name
    # A department member on the other side sees the relation on their profile only after
    # they confirm it; the owner's side is confirmed by entering it.
    if changed or relation.id is None:
        other_confirmed = other is None
        if owner_advises:
            relation.advisor_confirmed, relation.student_confirmed = True, other_confirmed
        else:
            relation.student_confirmed, relation.advisor_confirmed = True, other_confirmed


def areas_by_id(uow: UnitOfWork, ids: list[int]) -> list[m.ResearchArea]:
    """The research areas ``ids`` names (for an entry's or a profile's list of areas)."""
    if not ids:
        return []
    return list(uow.session.scalars(select(m.ResearchArea).where(m.ResearchArea.id.in_(ids))))


@dataclass(frozen=True)
class OwnFields:
    """Values a kind reads its own way: not copied as columns, applied by ``apply``."""

    names: tuple[str, ...]
    apply: Callable[[UnitOfWork, Any, dict[str, Any]], None]


OWN_FIELDS: dict[str, OwnFields] = {
    "projects": OwnFields(("parent_id",), _project_parent),
    "recruiting": OwnFields(("areas", "term_season", "term_year"), _notice_term_and_areas),
    "advising": OwnFields(("side", "other_id", "other_name"), _advising_sides),
}
