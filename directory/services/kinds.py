"""The names of the kinds of change, and what a kind's hooks may ask of a change set.

A kind's name is what the history stores (``ChangeRecord.entity_kind``,
``PendingChange.entity_kind``) and what a service passes to a change set
(``changes.update(PERSON, person)``). This is the one place the names are written; what the
write path does with each kind is in :mod:`directory.services.change_kinds`.

The module sits below everything of the write path (snapshots, importing, the kinds'
registry, the change set), so that each of them can name a kind without importing the others.
For the same reason it describes the change set a kind's hooks act through as a protocol,
:class:`Changes`, instead of importing :class:`directory.services.changes.ChangeSet` (which
dispatches through those hooks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from directory import models as m

# -- records: each change is one record's before and after (services/snapshots.py)
PERSON = "person"
PUBLICATION = "publication"
#: A research area: the department's own record (changed by admins, in no profile).
AREA = "area"
#: Someone allowed to edit another person's profile.
DELEGATION = "delegation"

# -- a profile's entries that the code names (every declared entry kind is a kind of change:
#    directory.models.entry_kinds)
NEWS = "news"
PROJECTS = "projects"
ADVISING = "advising"
RECRUITING = "recruiting"

# -- grouped changes: one history record (or proposal) for something written in bulk
#: A publication import (BibTeX, ORCID) into a profile.
IMPORT = "import"
#: An interchange profile import (command line only).
PROFILE_IMPORT = "profile_import"
#: An invitation to claim a profile.
INVITATION = "invitation"
#: People onboarded from a file (the department's record of the batch).
ONBOARDING = "onboarding"


class Changes(Protocol):
    """What a kind's hooks and the import may ask of the change set they act through: the
    public face of :class:`directory.services.changes.ChangeSet`."""

    session: Session
    person: m.Person | None

    @property
    def held(self) -> bool: ...

    def create(self, kind: str, obj: Any) -> None: ...

    def update(self, kind: str, obj: Any, base_version: int | None = None) -> None: ...

    def delete(
        self, kind: str, obj: Any, base_version: int | None = None, *, remove: bool = True
    ) -> None: ...

    def group(
        self,
        kind: str,
        action: str,
        summary: str,
        after: dict[str, Any] | None,
        before: dict[str, Any] | None = None,
    ) -> None: ...

    def finish(self) -> str: ...
