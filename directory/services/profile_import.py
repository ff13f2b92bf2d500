"""Interchange documents imported through the write path (``flask directory import-profile``,
``load-demo``).

Apart from :mod:`directory.services.importing` (publication files, which the history's import
kind applies and undoes): a profile import takes the whole unit of work and opens a change set
per profile, so it sits above :mod:`directory.services.unit_of_work`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from directory.services.interchange import ImportResult, import_documents
from directory.services.kinds import PROFILE_IMPORT

if TYPE_CHECKING:
    from directory.services.unit_of_work import UnitOfWork


def import_profiles(
    uow: UnitOfWork, documents: list[tuple[str, object]], *, list_named: bool = False
) -> ImportResult:
    """Import interchange documents: all checked first, then all written (raises
    ImportRefused, writing nothing). Each profile's history gets one record naming the
    document it came from."""
    result = import_documents(uow.session, documents, list_named=list_named)
    for (source, _doc), person in zip(documents, result.people, strict=True):
        changes = uow.change_set(person, approval_exempt=True)
        changes.group(PROFILE_IMPORT, PROFILE_IMPORT, f"Profile imported from {source}",
                      {"source": source})  # fmt: skip
        changes.finish()
    return result
