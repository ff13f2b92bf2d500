"""The owner's order of a profile's papers: ``<prefix>/people/<slug>/edit/publications/<id>/move``
moves a paper up or down within the heading it is listed under (Selected, Under review, a year,
a section of the owner's), without JavaScript, like every other entry of the editor.

How a profile lists a paper is part of the paper's snapshot ("listing"), so a move is an update
of every paper under that heading, through one change set: recorded in the history, held for
approval when the owner's changes need it, and refused when the list changed meanwhile."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect
from sqlalchemy import select
from sqlalchemy.orm import selectinload
from sqlalchemy.orm.exc import StaleDataError

from directory import models as m
from directory.db import get_session
from directory.i18n import gettext as _
from directory.services.changes import PENDING, Conflict
from directory.services.profiles import group_publications, listing_heading
from directory.services.snapshots import apply_snapshot
from directory.services.unit_of_work import current_unit_of_work
from directory.web import forms
from directory.web.blueprint import blueprint
from directory.web.outcomes import flash_outcome
from directory.web.views.editing import editable_person_or_abort, editor_url


def listing_rows(person: m.Person) -> list[m.ProfilePublication]:
    """Every paper on the profile, hidden ones too, in the order the profile shows them."""
    rows = get_session().scalars(
        select(m.ProfilePublication)
        .join(m.Publication)
        .where(m.ProfilePublication.person_id == person.id)
        .options(selectinload(m.ProfilePublication.publication))
        .order_by(
            m.Publication.year.desc().nulls_last(),
            m.ProfilePublication.position,
            m.Publication.id,
        )
    )
    groups = group_publications(list(rows), unpublished_in_year=person.unpublished_in_year)
    return [row for group in groups for row in group.items]


@blueprint.route("/people/<slug>/edit/publications/<int:pub_id>/move", methods=["POST"])
def move_publication(slug: str, pub_id: int) -> Any:
    person = editable_person_or_abort(slug)
    row = get_session().get(m.ProfilePublication, (person.id, pub_id))
    if row is None:
        abort(404)
    form = forms.MoveForm()
    if not form.validate_on_submit():
        abort(400)
    in_year = person.unpublished_in_year
    heading = listing_heading(row, in_year)
    group = [r for r in listing_rows(person) if listing_heading(r, in_year) == heading]
    index = group.index(row)
    other = index - 1 if form.direction.data == "up" else index + 1
    if not 0 <= other < len(group):
        return redirect(editor_url(person, f"publications-{pub_id}"))
    group[index], group[other] = group[other], group[index]
    session = get_session()
    changes = current_unit_of_work().change_set(person)
    try:
        changes.update("publication", row.publication, form.base_version())
        for item in group:
            if item is not row:
                changes.update("publication", item.publication)
        for position, item in enumerate(group):
            apply_snapshot(session, "publication", item.publication,
                           {"listing": {"position": position}}, person.id)  # fmt: skip
        outcome = changes.finish()
    except (Conflict, StaleDataError):
        session.rollback()
        flash(_("This list changed since you loaded the page; here it is as it is now."), "error")
        return redirect(editor_url(person, "publications"))
    if outcome == PENDING:
        flash_outcome(outcome)
    return redirect(editor_url(person, f"publications-{pub_id}"))


@blueprint.record_once
def _order_globals(state: Any) -> None:
    """The editor lists papers under the headings the profile shows."""
    state.app.jinja_env.globals.update(directory_publication_groups=group_publications)
