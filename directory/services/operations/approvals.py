"""Operations on proposals held for approval: approving (the change is carried out) and
rejecting (with a reason the author sees)."""

from __future__ import annotations

from directory.models import PendingChange
from directory.services.history import apply_pending, decide
from directory.services.unit_of_work import UnitOfWork


def approve(uow: UnitOfWork, pending: PendingChange, reason: str | None) -> None:
    """Carry out ``pending``; raises :class:`~directory.services.errors.CannotApply` when it
    no longer makes sense."""
    pending.reason = reason or None
    apply_pending(uow, pending)


def reject(uow: UnitOfWork, pending: PendingChange, reason: str) -> None:
    decide(uow, pending, "rejected", reason)
