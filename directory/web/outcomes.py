"""What the user is told after a change set finishes: saved, waiting for approval, or
nothing changed."""

from __future__ import annotations

from flask import flash

from directory.i18n import gettext as _
from directory.models.vocabularies import N_
from directory.services.changes import PENDING, SAVED, UNCHANGED

OUTCOME_MESSAGES = {
    SAVED: (N_("Saved."), "success"),
    PENDING: (N_("Saved for approval: your advisor or an admin will review it before it is "
                 "public."), "info"),
    UNCHANGED: (N_("Nothing changed."), "info"),
}  # fmt: skip


def flash_outcome(outcome: str, what: str = "") -> None:
    message, category = OUTCOME_MESSAGES[outcome]
    if what and outcome == SAVED:
        flash(_("%(what)s saved.", what=str(what).capitalize()), category)
    else:
        flash(_(message), category)
