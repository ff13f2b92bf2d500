"""Self-service editing: ``<prefix>/me``, the profile editor of each person, every kind of
entry through one set of views driven by :data:`directory.web.entry_kinds.KINDS`, the photo,
the history with reverts, delegates, and confirmations.

Every view reads load → check → act → respond: load the person (404 when missing, and when
the viewer could not even see it), ask :mod:`directory.services.access` (403), call one
operation of :mod:`directory.services.operations` with the form's plain values, then flash
its outcome and redirect. A stale save raises a conflict, which the view does not catch:
:mod:`directory.web.conflicts` answers it as the view declared with ``@on_conflict``
(usually this same form again, with the user's input kept and what changed meanwhile).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from sqlalchemy.exc import IntegrityError
from werkzeug.wrappers import Response

from directory import models as m
from directory.db import get_session
from directory.formats.markdown import render_markdown
from directory.i18n import gettext as _
from directory.services import access, editor, profiles
from directory.services.changes import PENDING, SAVED
from directory.services.department.filters import PaperListFilters
from directory.services.errors import CannotApply
from directory.services.history import (
    changes_since,
    display_rows,
    proposal_fields,
    revertable,
)
from directory.services.identity import current_viewer
from directory.services.kinds import PERSON, PUBLICATION
from directory.services.operations import advising, delegations, entries, people
from directory.services.operations import history as history_operations
from directory.services.operations import publications as paper_operations
from directory.services.photos import PhotoRejected, photo_from_bytes
from directory.services.profiles import (
    group_publications,
    paginate_groups,
    profile_rows,
    with_edited_papers,
)
from directory.services.snapshots import diff
from directory.services.unit_of_work import current_unit_of_work
from directory.web import forms
from directory.web.blueprint import blueprint
from directory.web.conflicts import on_conflict, redirect_with
from directory.web.entry_kinds import KINDS
from directory.web.outcomes import OUTCOME_MESSAGES, flash_outcome
from directory.web.publication_form import PublicationForm

# ----------------------------------------------------------------------------- loading + checks


def editable_person_or_abort(slug: str) -> m.Person:
    """The person at ``slug`` if the viewer may edit their profile. A profile the viewer could
    not even see is a 404, so the refusal tells nothing about it."""
    viewer = current_viewer()
    if not viewer.is_authenticated:
        abort(403)
    person = profiles.person_by_slug(get_session(), slug)
    if person is None or not access.person_visible(viewer, person):
        abort(404)
    if not access.can_edit_person(viewer, person):
        abort(403)
    return person


def kind_or_404(kind: str) -> Any:
    spec = KINDS.get(kind)
    if spec is None:
        abort(404)
    return spec


def owned_entry(spec: Any, person: m.Person, entry_id: int) -> Any:
    return entries.owned(current_unit_of_work(), spec.model, person, entry_id)


def entry_or_abort(slug: str, kind: str, entry_id: int) -> tuple[m.Person, Any, Any]:
    """Load → check for one stored entry: the editable person, the kind, the entry (404 when
    the entry is not on that person's profile, whatever the form claims)."""
    person = editable_person_or_abort(slug)
    spec = kind_or_404(kind)
    entry = owned_entry(spec, person, entry_id)
    if entry is None:
        abort(404)
    return person, spec, entry


def editor_url(person: m.Person, anchor: str | None = None) -> str:
    """The editor of ``person``; at the page of its paper list that the request came from
    (an action posted from page 3 of the papers carries ``papers=3`` and returns there)."""
    viewer = current_viewer()
    papers = PaperListFilters.from_args(request.args).with_page_of_papers()
    if viewer.person_id == person.id:
        return url_for("directory.me", _anchor=anchor, **papers)
    return url_for("directory.edit_person", slug=person.slug, _anchor=anchor, **papers)


def editor_url_of(anchor: str | None = None) -> Any:
    """``editor_url`` for a conflict answer: the person is the URL's ``slug``."""

    def url(slug: str, **_view_args: Any) -> str:
        return editor_url(editable_person_or_abort(slug), anchor)

    return url


def markdown_previews(form: Any) -> dict[str, Any]:
    """Rendered previews of the form's Markdown fields (the "Preview" button, no JS needed)."""
    return {
        field.name: render_markdown(field.data)
        for field in form
        if (field.render_kw or {}).get("data-markdown") and field.data
    }


def wants_preview() -> bool:
    return request.method == "POST" and "preview" in request.form


def form_status() -> int:
    """The status of a form page shown again: 400 for a refused POST, 200 otherwise."""
    return 400 if request.method == "POST" and not wants_preview() else 200


def conflict_context(
    kind: str, entity_id: int, base_version: int | None, form: Any
) -> dict[str, Any]:
    """What changed since the user's version, for the conflict message, in the words of the
    form the user is looking at."""
    session = get_session()
    records = changes_since(session, kind, entity_id, base_version)
    people_names = editor.actor_names(session, records)
    conflict = []
    for record in records:
        rows = diff(record.before, record.after)
        for row in rows:
            if row["field"] in form:
                row["label"] = form[row["field"]].label.text
        conflict.append({"record": record, "who": people_names[record.id], "rows": rows})
    return {"conflict": conflict}


def render_edit_form(
    form: Any,
    *,
    person: m.Person,
    title: str,
    action: str,
    status: int = 200,
    template: str = "directory/edit/form.html",
    **extra: Any,
) -> tuple[str, int]:
    return (
        render_template(
            template,
            form=form,
            person=person,
            title=title,
            action=action,
            cancel_url=extra.pop("cancel_url", editor_url(person)),
            previews=markdown_previews(form) if wants_preview() else {},
            **extra,
        ),
        status,
    )


def render_conflict(
    form: Any,
    *,
    kind: str,
    current: Any,
    gone_action: str | None = None,
    **page: Any,
) -> tuple[str, int]:
    """The form as the user sent it, refused (409): with what changed since the version it
    was loaded from, or, when the record ``current`` is gone, an offer to add it anew (at
    ``gone_action``). The next save is a deliberate overwrite of what the user has now seen."""
    if current is None:
        page["action"] = gone_action or page["action"]
        return render_edit_form(form, status=409, gone=True, **page)
    context = conflict_context(kind, current.id, form.base_version(), form)
    form.version.data = current.version
    return render_edit_form(form, status=409, **page, **context)


# ----------------------------------------------------------------------------- the editor page


@blueprint.route("/me")
def me() -> Any:
    viewer = current_viewer()
    if not viewer.is_authenticated:
        abort(403)
    if viewer.person_id is None:
        return render_template("directory/edit/no_profile.html")
    return editor_page(profiles.person_by_id(get_session(), viewer.person_id))


@blueprint.route("/people/<slug>/edit")
def edit_person(slug: str) -> Any:
    person = editable_person_or_abort(slug)
    if current_viewer().person_id == person.id:
        return redirect(url_for("directory.me"))
    return editor_page(person)


def editor_page(person: m.Person) -> str:
    session = get_session()
    viewer = current_viewer()
    listed = profiles.editor_entries(session, person)
    sections = [(spec, listed[spec.name]) for spec in KINDS.values()]
    pending = editor.recent_proposals(session, person)
    own = viewer.person_id == person.id
    return render_template(
        "directory/edit/editor.html",
        person=person,
        sections=sections,
        **_editor_papers(person),
        papers_endpoint="directory.me" if own else "directory.edit_person",
        papers_page_args=lambda n: {
            **({} if own else {"slug": person.slug}),
            **PaperListFilters(papers=n).with_page_of_papers(),
            "_anchor": "publications",
        },
        to_confirm=editor.relations_to_confirm(session, viewer, person),
        suggested=editor.suggested_authorships(session, viewer, person),
        found=editor.claim_queue(session, viewer, person),
        harvest_requested=editor.harvest_requested(session, person),
        pending=[p for p in pending if p.status == "pending"],
        decided=[(p, proposal_fields(p)) for p in pending if p.status == "rejected"][:5],
        kinds=KINDS,
        action_form=forms.ActionForm(),
        needs_approval=access.needs_approval(viewer, person),
        can_manage_delegates=access.can_manage_delegates(viewer, person),
        can_publish=access.can_publish(viewer, person),
    )


def _editor_papers(person: m.Person) -> dict[str, Any]:
    """The editor's papers under the profile's headings, a page at a time; ↑ and ↓ are
    offered by a paper's place in its whole heading, not in the page. Grouped on plain
    values, and the page's papers read as plain values too."""
    session = get_session()
    publications = profile_rows(session, m.ProfilePublication.person_id == person.id)
    groups = group_publications(publications, unpublished_in_year=person.unpublished_in_year)
    paper_filters = PaperListFilters.from_args(request.args)
    papers = paginate_groups(
        groups, paper_filters.papers, current_app.config["DIRECTORY_PAGE_SIZE"]
    )
    with_edited_papers(session, person, papers.groups)
    return {
        "publications": publications,
        "papers": papers,
        "first_papers": {g.items[0].publication_id for g in groups},
        "last_papers": {g.items[-1].publication_id for g in groups},
        "papers_query": PaperListFilters(papers=papers.number).with_page_of_papers(),
    }


# ----------------------------------------------------------------------------- entries


@dataclass
class EntryPage:
    """The entry form of a request: what it edits and how its page is titled."""

    person: m.Person
    spec: Any
    entry: Any
    form: Any
    title: str
    new_url: str

    def render(self, **extra: Any) -> tuple[str, int]:
        extra.setdefault("action", request.path)
        return render_edit_form(self.form, person=self.person, title=self.title, **extra)


def entry_page(slug: str, kind: str, entry_id: int | None) -> EntryPage:
    """Load → check for the entry form: the editable person, the kind, the stored entry
    (None for a new one, or one deleted meanwhile), and its form (on a POST, what was sent)."""
    person = editable_person_or_abort(slug)
    spec = kind_or_404(kind)
    entry = owned_entry(spec, person, entry_id) if entry_id is not None else None
    if entry_id is not None and entry is None and request.method == "GET":
        abort(404)
    form = spec.form(obj=entry if request.method == "GET" else None)
    form.prepare(person, get_session())
    form.prepare_for(entry)
    form._editing_id = entry_id
    if request.method == "GET" and entry is not None:
        form.load(entry)
        form.version.data = entry.version
    what = spec.singular
    title = _("Edit %(what)s", what=what) if entry_id else _("Add %(what)s", what=what)
    new_url = url_for("directory.edit_entry", slug=slug, kind=kind)
    return EntryPage(person, spec, entry, form, title, new_url)


def _entry_conflict(_conflict: Any, slug: str, kind: str, entry_id: int | None = None) -> Any:
    page = entry_page(slug, kind, entry_id)
    return render_conflict(page.form, kind=kind, current=page.entry, gone_action=page.new_url,
                           person=page.person, title=page.title, action=request.path)  # fmt: skip


@blueprint.route("/people/<slug>/edit/<kind>/new", methods=["GET", "POST"])
@blueprint.route("/people/<slug>/edit/<kind>/<int:entry_id>", methods=["GET", "POST"])
@on_conflict(_entry_conflict)
def edit_entry(slug: str, kind: str, entry_id: int | None = None) -> Any:
    page = entry_page(slug, kind, entry_id)
    if request.method == "POST" and entry_id is not None and page.entry is None:
        # Deleted while the user was typing: keep what they typed, offer to add it anew.
        return page.render(action=page.new_url, status=409, gone=True)
    if wants_preview() or not page.form.validate_on_submit():
        return page.render(status=form_status())
    outcome, _entry = entries.save(
        current_unit_of_work(), page.person, kind, page.entry, page.form.data,
        page.form.base_version(),
    )  # fmt: skip
    flash_outcome(outcome, page.spec.singular.capitalize())
    return redirect(editor_url(page.person, kind))


@blueprint.route("/people/<slug>/edit/<kind>/<int:entry_id>/delete", methods=["POST"])
@on_conflict(
    redirect_with(
        lambda: _("This entry changed since you loaded the page; look at it again before "
                  "deleting."),
        lambda slug, kind, **_args: editor_url(editable_person_or_abort(slug), kind),
    )
)  # fmt: skip
def delete_entry(slug: str, kind: str, entry_id: int) -> Response:
    person, spec, entry = entry_or_abort(slug, kind, entry_id)
    form = forms.VersionedActionForm()
    if not form.validate_on_submit():
        abort(400)
    outcome = entries.delete(current_unit_of_work(), person, kind, entry, form.base_version())
    if outcome == SAVED:
        flash(_("Deleted: %(what)s. You can restore it from the history.", what=spec.singular),
              "success")  # fmt: skip
    else:
        flash_outcome(outcome)
    return redirect(editor_url(person, kind))


def _move_conflict(_conflict: Any, slug: str, kind: str, entry_id: int) -> Any:
    flash(_("This list changed since you loaded the page; here it is as it is now."), "error")
    if request.accept_mimetypes.best == "application/json":
        return {"outcome": "conflict", "versions": {}}, 409
    return redirect(editor_url(editable_person_or_abort(slug), f"{kind}-{entry_id}"))


@blueprint.route("/people/<slug>/edit/<kind>/<int:entry_id>/move", methods=["POST"])
@on_conflict(_move_conflict)
def move_entry(slug: str, kind: str, entry_id: int) -> Any:
    person, _spec, entry = entry_or_abort(slug, kind, entry_id)
    form = forms.MoveForm()
    if not form.validate_on_submit():
        abort(400)
    moved = entries.move(
        current_unit_of_work(), person, kind, entry, form.direction.data, form.base_version()
    )
    if moved.outcome is None:
        return redirect(editor_url(person, kind))
    if moved.outcome == PENDING:
        flash_outcome(moved.outcome)
    if request.accept_mimetypes.best == "application/json":
        # For the script that moves the row in place: every entry's new version.
        return {"outcome": moved.outcome, "versions": moved.versions}, 200
    return redirect(editor_url(person, f"{kind}-{entry_id}"))


# ----------------------------------------------------------------------------- profile + photo


def profile_form(slug: str) -> tuple[m.Person, Any]:
    """The profile form of ``slug``'s person: stored values on a GET, what was sent on a
    POST."""
    person = editable_person_or_abort(slug)
    form = forms.ProfileForm()
    form.prepare(get_session(), person)
    if request.method == "GET":
        form.load(person)
    return person, form


def _profile_conflict(_conflict: Any, slug: str) -> Any:
    person, form = profile_form(slug)
    return render_conflict(form, kind=PERSON, current=person, person=person,
                           title=_("Profile details"), action=request.path)  # fmt: skip


@blueprint.route("/people/<slug>/edit/profile", methods=["GET", "POST"])
@on_conflict(_profile_conflict)
def edit_profile(slug: str) -> Any:
    person, form = profile_form(slug)
    if wants_preview() or not form.validate_on_submit():
        return render_edit_form(form, person=person, title=_("Profile details"),
                                action=request.path, status=form_status())  # fmt: skip
    outcome = people.update_profile(
        current_unit_of_work(), person, form.values(), form.base_version()
    )
    flash_outcome(outcome, _("Profile"))
    return redirect(editor_url(person, "profile"))


@blueprint.route("/people/<slug>/edit/photo", methods=["GET", "POST"])
def edit_photo(slug: str) -> Any:
    person = editable_person_or_abort(slug)
    form = forms.PhotoForm()
    if request.method == "GET" and person.photo is not None:
        form.alt_text.data = person.photo.alt_text
    if form.validate_on_submit():
        try:
            photo = photo_from_bytes(form.photo.data.read(), form.alt_text.data or None)
        except PhotoRejected as rejected:
            form.photo.errors = [*form.photo.errors, str(rejected)]
        else:
            people.set_photo(current_unit_of_work(), person, photo)
            flash(_("Photo saved."), "success")
            return redirect(editor_url(person, "profile"))
    status = 400 if request.method == "POST" else 200
    return render_photo_page(person, form=form, status=status)


def render_photo_page(
    person: m.Person,
    *,
    form: Any = None,
    focus_form: Any = None,
    status: int = 200,
    previewing: bool = False,
) -> tuple[str, int]:
    """The photo page: the upload form and, when there is a photo, its focal point (with how
    it crops on the profile and on a card: the stored point, or the one being previewed)."""
    if focus_form is None and person.photo is not None:
        focus_form = forms.PhotoFocusForm(formdata=None)
        focus_form.focus_x.data = person.photo.focus_x
        focus_form.focus_y.data = person.photo.focus_y
        focus_form.version.data = person.version
    focus = None
    if person.photo is not None:
        valid = not focus_form.errors
        x = focus_form.focus_x.data if valid else person.photo.focus_x
        y = focus_form.focus_y.data if valid else person.photo.focus_y
        photo = person.photo
        focus = SimpleNamespace(focus_x=x, focus_y=y, width=photo.width, height=photo.height)
    page = render_template(
        "directory/edit/photo.html",
        form=form or forms.PhotoForm(formdata=None),
        focus_form=focus_form,
        focus=focus,
        previewing=previewing,
        person=person,
        remove_form=forms.ActionForm(),
    )
    return page, status


@blueprint.route("/people/<slug>/edit/photo/focus", methods=["POST"])
@on_conflict(
    redirect_with(
        lambda: _("The profile changed since you loaded the page; here is its photo as it is "
                  "now."),
        lambda slug: url_for("directory.edit_photo", slug=slug),
    )
)  # fmt: skip
def edit_photo_focus(slug: str) -> Any:
    """The photo's focal point: previewed ("Preview", nothing saved) or saved through a change
    of the profile, recorded and held for approval like the other profile fields (the point
    is kept in the history with the photo's fingerprint)."""
    person = editable_person_or_abort(slug)
    if person.photo is None:
        abort(404)
    form = forms.PhotoFocusForm()
    if not form.validate_on_submit():
        return render_photo_page(person, focus_form=form, status=400)
    if wants_preview():
        return render_photo_page(person, focus_form=form, previewing=True)
    outcome = people.set_photo_focus(
        current_unit_of_work(), person, form.focus_x.data, form.focus_y.data,
        form.base_version(),
    )  # fmt: skip
    flash_outcome(outcome, "Focal point")
    return redirect(url_for("directory.edit_photo", slug=person.slug))


@blueprint.route("/people/<slug>/edit/photo/remove", methods=["POST"])
def remove_photo(slug: str) -> Response:
    person = editable_person_or_abort(slug)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    if person.photo is not None:
        people.set_photo(current_unit_of_work(), person, None)
        flash(_("Photo removed."), "success")
    return redirect(editor_url(person, "profile"))


@blueprint.route("/people/<slug>/edit/confirm", methods=["POST"])
def confirm_current(slug: str) -> Response:
    """The owner's one click: "my profile is current" (clears it from the stale report)."""
    person = editable_person_or_abort(slug)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    people.confirm_current(current_unit_of_work(), person)
    flash(_("Thank you: your profile is marked as current."), "success")
    return redirect(editor_url(person))


@blueprint.route("/people/<slug>/edit/advising/<int:relation_id>/confirm", methods=["POST"])
def confirm_advising(slug: str, relation_id: int) -> Response:
    """The other side of an advising relation confirms it; then it shows on both profiles."""
    person = editable_person_or_abort(slug)
    relation = editor.advising_relation(get_session(), relation_id)
    if relation is None or person.id not in (relation.advisor_id, relation.student_id):
        abort(404)
    if not access.can_confirm_advising(current_viewer(), relation):
        abort(403)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    advising.confirm(current_unit_of_work(), person, relation)
    flash(_("Confirmed: the relation now shows on both profiles."), "success")
    return redirect(editor_url(person, "advising"))


def _suggested_authorship(person: m.Person, authorship_id: int) -> m.Authorship:
    """The authorship suggested to ``person`` (404 when there is none to answer, 403 when the
    viewer may not answer for them)."""
    authorship = editor.authorship(get_session(), authorship_id)
    if (
        authorship is None
        or authorship.suggested_person_id != person.id
        or authorship.suggestion_declined
        or authorship.person_id is not None
    ):
        abort(404)
    if not access.can_answer_authorship(current_viewer(), person, authorship):
        abort(403)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    return authorship


@blueprint.route("/people/<slug>/edit/authorships/<int:authorship_id>/confirm", methods=["POST"])
def confirm_authorship(slug: str, authorship_id: int) -> Response:
    """A co-author import printed a name that may be this member ("A. Lovelace"); they say it is
    them, and the paper shows on their profile."""
    person = editable_person_or_abort(slug)
    authorship = _suggested_authorship(person, authorship_id)
    paper_operations.answer_suggested_authorship(
        current_unit_of_work(), person, authorship, accept=True
    )
    flash(_("Confirmed: the paper is now on your profile."), "success")
    return redirect(editor_url(person, "suggested"))


@blueprint.route("/people/<slug>/edit/authorships/<int:authorship_id>/decline", methods=["POST"])
def decline_authorship(slug: str, authorship_id: int) -> Response:
    """The member says the printed name is not them; the name stays plain text."""
    person = editable_person_or_abort(slug)
    authorship = _suggested_authorship(person, authorship_id)
    paper_operations.answer_suggested_authorship(
        current_unit_of_work(), person, authorship, accept=False
    )
    flash(_("Noted: the paper stays off your profile."), "success")
    return redirect(editor_url(person, "suggested"))


# ----------------------------------------------------------------------------- history


@blueprint.route("/people/<slug>/history")
def history(slug: str) -> str:
    person = editable_person_or_abort(slug)
    session = get_session()
    records = editor.history_records(session, person)
    names = editor.actor_names(session, records)
    rows = [
        {
            "record": r,
            "who": names[r.id],
            "rows": display_rows(session, r.entity_kind, r.before, r.after),
            "revertable": revertable(r),
        }
        for r in records
    ]
    return render_template(
        "directory/edit/history.html",
        person=person,
        rows=rows,
        kinds=KINDS,
        action_form=forms.ActionForm(),
    )


@blueprint.route("/people/<slug>/history/<int:record_id>/revert", methods=["POST"])
@on_conflict(
    redirect_with(
        lambda: _("The entry changed at the same moment; try again."),
        lambda slug, **_args: url_for("directory.history", slug=slug),
    )
)
def revert_change(slug: str, record_id: int) -> Response:
    person = editable_person_or_abort(slug)
    record = editor.change_record(get_session(), record_id)
    if record is None or record.person_id != person.id:
        abort(404)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    try:
        outcome = history_operations.undo(current_unit_of_work(), person, record)
    except CannotApply as refused:
        current_unit_of_work().rollback()
        flash(str(refused), "error")
    else:
        flash(
            _("Restored.") if record.action == "delete" and outcome == SAVED else
            _(OUTCOME_MESSAGES[outcome][0]),
            "success" if outcome == SAVED else "info",
        )  # fmt: skip
    return redirect(url_for("directory.history", slug=person.slug))


# ----------------------------------------------------------------------------- delegates


@blueprint.route("/people/<slug>/edit/delegates", methods=["GET", "POST"])
def delegates(slug: str) -> Any:
    person = editable_person_or_abort(slug)
    viewer = current_viewer()
    if not access.can_manage_delegates(viewer, person):
        abort(403)
    session = get_session()
    current = editor.delegations_of(session, person)
    taken = {d.delegate_id for d in current} | {person.id}
    form = forms.DelegateForm()
    form.delegate_id.choices = forms.options(
        [("", "—")]
        + [(str(p.id), p.full_name) for p in editor.delegate_candidates(session, viewer, taken)]
    )
    if form.validate_on_submit():
        outcome = delegations.add(
            current_unit_of_work(), person, int(form.delegate_id.data),
            allowed=access.can_manage_delegates(viewer, person),
        )  # fmt: skip
        if outcome == PENDING:
            flash_outcome(PENDING)
        else:
            flash(_("Delegate added: they can now edit this profile."), "success")
        return redirect(url_for("directory.delegates", slug=slug))
    status = 400 if request.method == "POST" else 200
    return (
        render_template(
            "directory/edit/delegates.html",
            person=person,
            delegations=current,
            form=form,
            action_form=forms.ActionForm(),
        ),
        status,
    )


@blueprint.route("/people/<slug>/edit/delegates/<int:delegation_id>/remove", methods=["POST"])
def remove_delegate(slug: str, delegation_id: int) -> Response:
    person = editable_person_or_abort(slug)
    if not access.can_manage_delegates(current_viewer(), person):
        abort(403)
    delegation = editor.delegation(get_session(), delegation_id)
    if delegation is None or delegation.person_id != person.id:
        abort(404)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    outcome = delegations.remove(
        current_unit_of_work(), person, delegation,
        allowed=access.can_manage_delegates(current_viewer(), person),
    )  # fmt: skip
    if outcome == PENDING:
        flash_outcome(PENDING)
    else:
        flash(_("Delegate removed."), "success")
    return redirect(url_for("directory.delegates", slug=slug))


# ----------------------------------------------------------------------------- publications


def _profile_publication(person: m.Person, pub_id: int) -> m.ProfilePublication:
    row = editor.profile_publication(get_session(), person, pub_id)
    if row is None:
        abort(404)
    return row


def publication_form(
    slug: str, pub_id: int | None, *, gone_ok: bool = False
) -> tuple[m.Person, m.Publication | None, Any, str]:
    """Load → check for the publication form: the editable person, the paper (None for a
    new one; with ``gone_ok``, also for one no longer on the profile), its form and title."""
    person = editable_person_or_abort(slug)
    row = None
    if pub_id is not None:
        row = editor.profile_publication(get_session(), person, pub_id)
        if row is None and not gone_ok:
            abort(404)
    pub = row.publication if row is not None else None
    if pub is not None and not access.can_edit_publication(current_viewer(), pub):
        abort(403)
    form = PublicationForm()
    if request.method == "GET":
        if pub is not None:
            form.load(pub, row)
        else:
            form.authors.data = person.full_name
    title = _("Edit publication") if pub_id is not None else _("Add a publication")
    return person, pub, form, title


def _publication_conflict(_conflict: Any, slug: str, pub_id: int | None = None) -> Any:
    person, _pub, form, title = publication_form(slug, pub_id, gone_ok=True)
    current = editor.publication_by_id(get_session(), pub_id) if pub_id is not None else None
    return render_conflict(form, kind=PUBLICATION, current=current, person=person, title=title,
                           action=request.path)  # fmt: skip


@blueprint.route("/people/<slug>/edit/publications/new", methods=["GET", "POST"])
@blueprint.route("/people/<slug>/edit/publications/<int:pub_id>", methods=["GET", "POST"])
@on_conflict(_publication_conflict)
def edit_publication(slug: str, pub_id: int | None = None) -> Any:
    person, pub, form, title = publication_form(slug, pub_id)
    if wants_preview() or not form.validate_on_submit():
        return render_edit_form(form, person=person, title=title, action=request.path,
                                status=form_status())  # fmt: skip
    state = form.state(get_session(), pub)
    # How this profile lists the paper is part of the change (and of its approval).
    state["listing"] = {"selected": form.selected.data, "hidden": form.hidden.data}
    try:
        outcome = paper_operations.save(
            current_unit_of_work(), person, pub, state, form.base_version()
        )
    except IntegrityError:
        current_unit_of_work().rollback()
        form.doi.errors = [*form.doi.errors, _("Another publication has this DOI or arXiv id; "
                                               "it may already be in the directory.")]  # fmt: skip
        return render_edit_form(form, person=person, title=title, action=request.path,
                                status=400)  # fmt: skip
    flash_outcome(outcome, _("Publication"))
    return redirect(editor_url(person, "publications"))


@blueprint.route("/people/<slug>/edit/publications/<int:pub_id>/remove", methods=["POST"])
@on_conflict(
    redirect_with(
        lambda: _("This publication changed since you loaded the page; look at it again."),
        editor_url_of("publications"),
    )
)
def remove_publication(slug: str, pub_id: int) -> Response:
    """Take a paper off this profile; the shared record is deleted (restorable from the
    history) when no other profile lists it."""
    person = editable_person_or_abort(slug)
    row = _profile_publication(person, pub_id)
    form = forms.VersionedActionForm()
    if not form.validate_on_submit():
        abort(400)
    removed = paper_operations.remove_from_profile(
        current_unit_of_work(), person, row, form.base_version()
    )
    if removed.still_listed and removed.outcome == SAVED:
        flash(_("Removed from this profile (co-authors still list it)."), "success")
        return redirect(editor_url(person, "publications"))
    flash(
        _("Publication deleted. You can restore it from the history.") if removed.outcome == SAVED
        else _(OUTCOME_MESSAGES[removed.outcome][0]),
        "success" if removed.outcome == SAVED else "info",
    )  # fmt: skip
    return redirect(editor_url(person, "publications"))
