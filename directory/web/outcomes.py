"""What the user is told after a change set finishes: saved, waiting for approval, or
nothing changed."""

from __future__ import annotations

from flask import flash

from directory.services.changes import PENDING, SAVED, UNCHANGED

OUTCOME_MESSAGES = {
    SAVED: ("Saved.", "success"),
    PENDING: ("Saved for approval: your advisor or an admin will review it before it is public.",
              "info"),
    UNCHANGED: ("Nothing changed.", "info"),
}  # fmt: skip


def flash_outcome(outcome: str, what: str = "") -> None:
    message, category = OUTCOME_MESSAGES[outcome]
    flash(f"{what} {message}".strip() if what and outcome == SAVED else message, category)
