"""The claim queue on the editor ("Found for you"): accept or reject each candidate, accept
all that one identifier found, and "check now". Each answer is a POST with a CSRF token,
for the owner, their delegates and admins (``access.can_answer_claims``); accepting goes
through a change set (history, approval for students), as every write does."""

from __future__ import annotations

from typing import Any

from flask import abort, current_app, flash, redirect, render_template, url_for

from directory.db import get_session
from directory.i18n import gettext as _
from directory.services import access, editor
from directory.services.changes import PENDING
from directory.services.claims.digest import slug_for
from directory.services.claims.evidence import source_name
from directory.services.claims.harvest import harvest_status
from directory.services.identity import current_viewer
from directory.services.operations import claims
from directory.services.unit_of_work import current_unit_of_work
from directory.web import forms
from directory.web.blueprint import blueprint
from directory.web.views.editing import editable_person_or_abort, editor_url

#: The identifiers "accept all" may name (what a source found under one of the person's).
IDENTIFIER_SOURCES = ("orcid", "dblp", "openalex", "semantic_scholar")


def _answerable(slug: str, candidate_id: int | None = None) -> tuple[Any, Any]:
    """Load → check: the person (404/403), a pending candidate of theirs (404), the form."""
    person = editable_person_or_abort(slug)
    if not access.can_answer_claims(current_viewer(), person):
        abort(403)
    candidate = None
    if candidate_id is not None:
        candidate = editor.claim_candidate(get_session(), person, candidate_id)
        if candidate is None:
            abort(404)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    return person, candidate


@blueprint.route("/people/<slug>/edit/found/<int:candidate_id>/accept", methods=["POST"])
def accept_candidate(slug: str, candidate_id: int) -> Any:
    """The candidate is the person's: the paper goes on the profile (or waits for approval)."""
    person, candidate = _answerable(slug, candidate_id)
    outcome = claims.accept(current_unit_of_work(), person, candidate)
    if outcome == PENDING:
        flash(_("Sent for approval: the paper shows once it is approved."), "success")
    else:
        flash(_("Added to the profile: “%(title)s”.", title=candidate.title), "success")
    return redirect(editor_url(person, "found"))


@blueprint.route("/people/<slug>/edit/found/<int:candidate_id>/reject", methods=["POST"])
def reject_candidate(slug: str, candidate_id: int) -> Any:
    """The candidate is not the person's: it is never suggested again."""
    person, candidate = _answerable(slug, candidate_id)
    claims.reject(current_unit_of_work(), person, candidate)
    flash(_("Not yours: “%(title)s” will not be suggested again.", title=candidate.title),
          "success")  # fmt: skip
    return redirect(editor_url(person, "found"))


@blueprint.route("/people/<slug>/edit/found/<source>/accept-all", methods=["POST"])
def accept_all_candidates(slug: str, source: str) -> Any:
    """Every pending candidate found under one identifier of the person is theirs."""
    if source not in IDENTIFIER_SOURCES:
        abort(404)
    person, _candidate = _answerable(slug)
    count = claims.accept_all_found_by(current_unit_of_work(), person, source)
    flash(_("%(count)s papers found by %(source)s accepted.", count=count,
            source=source_name(source)), "success")  # fmt: skip
    return redirect(editor_url(person, "found"))


@blueprint.route("/people/<slug>/edit/found/check-now", methods=["POST"])
def check_now(slug: str) -> Any:
    """Ask for a harvest of this person: the next run takes them first (never done here, so
    the request answers at once)."""
    person, _candidate = _answerable(slug)
    claims.request_harvest(current_unit_of_work(), person)
    flash(_("Asked: the next harvest run looks for your new papers first."), "success")
    return redirect(editor_url(person, "found"))


@blueprint.route("/admin/harvest")
def admin_harvest() -> Any:
    """What the last harvest runs fetched, found and failed at, per person and source."""
    viewer = current_viewer()
    if not viewer.is_authenticated or not access.can_see_harvest_status(viewer):
        abort(403)
    status = harvest_status(get_session())
    sources = sorted(current_app.config["DIRECTORY_HARVEST_SOURCES"] or {})
    return render_template("directory/admin/harvest.html", sources=sources, **status)


@blueprint.route("/found/<token>")
def found_link(token: str) -> Any:
    """The link of a digest e-mail: the person's claim queue (their editor, once signed in);
    an altered or expired link gets a page saying so."""
    slug = slug_for(current_app.config["SECRET_KEY"], token)
    if slug is None:
        return render_template("directory/still_current.html",
                               problem=_("This link is no longer valid.")), 410  # fmt: skip
    return redirect(url_for("directory.edit_person", slug=slug, _anchor="found"))
