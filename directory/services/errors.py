"""Why a change could not be made, for the views to tell the user."""

from __future__ import annotations


class Conflict(Exception):
    """The record changed since the form was loaded; nothing was written."""

    def __init__(self, kind: str, entity_id: int | None, base_version: int | None) -> None:
        super().__init__(f"{kind} {entity_id} changed since version {base_version}")
        self.kind = kind
        self.entity_id = entity_id
        self.base_version = base_version


class CannotApply(Exception):
    """A revert or approval that no longer makes sense (its record is gone); the message says
    why, for the user."""
