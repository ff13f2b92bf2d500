"""The owner's order of a profile's papers: ``<prefix>/people/<slug>/edit/publications/<id>/move``
moves a paper up or down within the heading it is listed under (Selected, Under review, a year,
a section of the owner's), without JavaScript, like every other entry of the editor.

How a profile lists a paper is part of the paper's snapshot ("listing"), so a move is an update
of every paper under that heading, through one change set: recorded in the history, held for
approval when the owner's changes need it, and refused when the list changed meanwhile."""

from __future__ import annotations

from typing import Any

from flask import abort, redirect

from directory.db import get_session
from directory.i18n import gettext as _
from directory.services import editor
from directory.services.changes import PENDING
from directory.services.operations import publications as paper_operations
from directory.services.profiles import group_publications
from directory.services.unit_of_work import current_unit_of_work
from directory.web import forms
from directory.web.blueprint import blueprint
from directory.web.conflicts import on_conflict, redirect_with
from directory.web.outcomes import flash_outcome
from directory.web.views.editing import editable_person_or_abort, editor_url, editor_url_of


@blueprint.route("/people/<slug>/edit/publications/<int:pub_id>/move", methods=["POST"])
@on_conflict(
    redirect_with(
        lambda: _("This list changed since you loaded the page; here it is as it is now."),
        editor_url_of("publications"),
    )
)
def move_publication(slug: str, pub_id: int) -> Any:
    person = editable_person_or_abort(slug)
    row = editor.profile_publication(get_session(), person, pub_id)
    if row is None:
        abort(404)
    form = forms.MoveForm()
    if not form.validate_on_submit():
        abort(400)
    outcome = paper_operations.move_in_listing(
        current_unit_of_work(), person, row, form.direction.data, form.base_version()
    )
    if outcome == PENDING:
        flash_outcome(outcome)
    return redirect(editor_url(person, f"publications-{pub_id}"))


@blueprint.record_once
def _order_globals(state: Any) -> None:
    """The editor lists papers under the headings the profile shows."""
    state.app.jinja_env.globals.update(directory_publication_groups=group_publications)
