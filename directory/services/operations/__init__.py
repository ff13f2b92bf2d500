"""The operations: every change a person can make to the directory, one named verb each.

A view (or a command) loads what the request names, checks access, and calls one operation
with the unit of work and plain values (a form's ``data``, never the form). The operation
opens the change set of the profile concerned, tells it what it is about to change
(``changes.update(kind, obj, base_version)`` before changing it), changes the objects,
finishes the change set and returns its outcome ("saved", "pending" or "unchanged").

A stale version is refused as :class:`directory.services.errors.Conflict`, which the
operation lets through: one error handler of the blueprint answers it
(:mod:`directory.web.conflicts`). One module per subject: :mod:`.entries`, :mod:`.people`,
:mod:`.advising`, :mod:`.publications`, :mod:`.delegations`, :mod:`.areas`.
"""
