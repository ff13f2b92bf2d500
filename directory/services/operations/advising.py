"""Operations on advising relations that are not their owner's editing (that is
:mod:`.entries`): the other side confirming a relation someone else entered."""

from __future__ import annotations

from directory import models as m
from directory.services.kinds import ADVISING
from directory.services.unit_of_work import UnitOfWork


def confirm(uow: UnitOfWork, person: m.Person, relation: m.AdvisingRelation) -> str:
    """``person``'s side of ``relation`` confirms it; then it shows on both profiles.
    Confirming one's own side of a relation someone else entered changes the owner's entry,
    which the confirming side may do without editing the owner's profile (the caller has
    checked :func:`directory.services.access.can_confirm_advising`)."""
    owner = uow.session.get(m.Person, relation.owner_id)
    changes = uow.change_set(owner, approval_exempt=True, allowed=True)
    changes.update(ADVISING, relation)
    if relation.student_id == person.id:
        relation.student_confirmed = True
    if relation.advisor_id == person.id:
        relation.advisor_confirmed = True
    return changes.finish()
