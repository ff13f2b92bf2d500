"""Operations on a profile's history: undoing a recorded change."""

from __future__ import annotations

from sqlalchemy.orm.exc import StaleDataError

from directory import models as m
from directory.models import ChangeRecord
from directory.services.errors import Conflict
from directory.services.history import revert
from directory.services.unit_of_work import UnitOfWork


def undo(uow: UnitOfWork, person: m.Person, record: ChangeRecord) -> str:
    """Put back ``record``'s before-state (see :func:`directory.services.changes.revert`).
    The entry changing at the same moment is a :class:`Conflict`; a change that cannot be
    undone raises :class:`~directory.services.errors.CannotApply`."""
    try:
        return revert(uow, person, record)
    except StaleDataError:
        raise Conflict(record.entity_kind, record.entity_id, None) from None
