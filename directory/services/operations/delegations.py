"""Operations on delegations: who else may edit a profile."""

from __future__ import annotations

from directory import models as m
from directory.services.kinds import DELEGATION
from directory.services.unit_of_work import UnitOfWork


def add(uow: UnitOfWork, person: m.Person, delegate_id: int, *, allowed: bool) -> str:
    """Let the person ``delegate_id`` edit ``person``'s profile. ``allowed`` is the result
    of :func:`directory.services.access.can_manage_delegates`."""
    changes = uow.change_set(person, allowed=allowed)
    changes.create(DELEGATION, m.Delegation(person_id=person.id, delegate_id=delegate_id))
    return changes.finish()


def remove(uow: UnitOfWork, person: m.Person, delegation: m.Delegation, *, allowed: bool) -> str:
    """End ``delegation``."""
    changes = uow.change_set(person, allowed=allowed)
    changes.delete(DELEGATION, delegation)
    return changes.finish()
