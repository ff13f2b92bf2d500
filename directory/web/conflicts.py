"""One place answers a conflict: a save refused because the record changed since the user's
form was loaded (:class:`directory.services.errors.Conflict`, which the change set also
raises for SQLAlchemy's ``StaleDataError``), or because other writers kept it from going
through (:class:`directory.services.unit_of_work.SaveNotCommitted`).

Operations raise; no view catches. :func:`answer_conflict`, the blueprint's error handler,
rolls the request back and answers with what the view declared with :func:`on_conflict`:
usually the view's own page again, built from what the user sent (a Flask-WTF form reads
``request.form``), with a 409 status and what changed meanwhile; or a message and a redirect
for a one-button action (:func:`redirect_with`). A view that declares nothing, and every
``SaveNotCommitted``, gets the page that keeps every value the user typed, ready to send
again with a fresh token.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import current_app, flash, redirect, render_template, request
from flask.typing import ResponseReturnValue

from directory.services.errors import Conflict
from directory.services.unit_of_work import SaveNotCommitted, current_unit_of_work
from directory.web.blueprint import blueprint
from directory.web.forms import ActionForm

#: How a view answers a conflict: called with the conflict and the view's URL arguments.
ConflictAnswer = Callable[..., ResponseReturnValue]

_ANSWER = "conflict_answer"


def on_conflict(answer: ConflictAnswer) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare how the decorated view answers a conflict (put it below ``@blueprint.route``,
    which wraps the view and keeps the declaration)."""

    def declare(view: Callable[..., Any]) -> Callable[..., Any]:
        setattr(view, _ANSWER, answer)
        return view

    return declare


def redirect_with(message: Callable[[], str], to: Callable[..., str]) -> ConflictAnswer:
    """An answer for an action without a form of its own: flash ``message()`` (called in
    the request, so that it is translated) and redirect to ``to(**view_args)``."""

    def answer(_conflict: Conflict, **view_args: Any) -> ResponseReturnValue:
        flash(message(), "error")
        return redirect(to(**view_args))

    return answer


def conflict_answer(endpoint: str | None) -> ConflictAnswer | None:
    """What the view of ``endpoint`` declared with :func:`on_conflict` (None if nothing)."""
    view = current_app.view_functions.get(endpoint or "")
    return getattr(view, _ANSWER, None)


@blueprint.errorhandler(Conflict)
@blueprint.errorhandler(SaveNotCommitted)
def answer_conflict(error: Conflict | SaveNotCommitted) -> ResponseReturnValue:
    """Roll the request back (nothing of it is written) and answer as its view declared."""
    current_unit_of_work().rollback()
    answer = conflict_answer(request.endpoint)
    if isinstance(error, SaveNotCommitted) or answer is None:
        return not_saved_page()
    return answer(error, **(request.view_args or {}))


def not_saved_page() -> ResponseReturnValue:
    """Nothing was written: a page that keeps every value the user sent, ready to send
    again with a fresh token."""
    typed = [
        (name, value)
        for name, values in request.form.lists()
        if name != "csrf_token"
        for value in values
    ]
    return render_template(
        "directory/edit/not_saved.html", typed=typed, action=request.full_path.rstrip("?"),
        lost_files=[name for name, upload in request.files.items() if upload.filename],
        action_form=ActionForm(),
    ), 409  # fmt: skip
