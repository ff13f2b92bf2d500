"""Self-service editing: ``<prefix>/me``, the profile editor of each person, every kind of
entry through one set of views driven by :data:`directory.web.entry_kinds.KINDS`, the photo,
the history with reverts, delegates, and confirmations.

Every view reads load → check → act: load the person (404 when missing, and when the viewer
could not even see it), ask :mod:`directory.services.access` (403), then act through a
:class:`~directory.services.changes.ChangeSet` of the request's unit of work
(:mod:`directory.services.unit_of_work`), which commits once when the view succeeds.
"""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace
from typing import Any

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.wrappers import Response

from directory import models as m
from directory.db import get_session
from directory.formats.markdown import render_markdown
from directory.i18n import gettext as _
from directory.models import ChangeRecord, Delegation, PendingChange
from directory.services import access, department
from directory.services.changes import PENDING, SAVED, Conflict
from directory.services.errors import CannotApply
from directory.services.history import (
    changes_since,
    display_rows,
    proposal_fields,
    revert,
    revertable,
)
from directory.services.identity import current_viewer
from directory.services.photos import PhotoRejected, photo_from_bytes
from directory.services.profiles import (
    group_publications,
    paginate_groups,
    profile_rows,
    with_details,
)
from directory.services.publications import (
    accept_suggested_authorship,
    reject_suggested_authorship,
)
from directory.services.snapshots import PERSON, PUBLICATION, apply_snapshot, diff
from directory.services.unit_of_work import SaveNotCommitted, current_unit_of_work
from directory.web import forms
from directory.web.blueprint import blueprint
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
    person = get_session().scalar(select(m.Person).where(m.Person.slug == slug))
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
    entry = get_session().get(spec.model, entry_id)
    return entry if entry is not None and entry.owner_id == person.id else None


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
    papers = department.PaperListFilters.from_args(request.args).with_page_of_papers()
    if viewer.person_id == person.id:
        return url_for("directory.me", _anchor=anchor, **papers)
    return url_for("directory.edit_person", slug=person.slug, _anchor=anchor, **papers)


def markdown_previews(form: Any) -> dict[str, Any]:
    """Rendered previews of the form's Markdown fields (the "Preview" button, no JS needed)."""
    return {
        field.name: render_markdown(field.data)
        for field in form
        if (field.render_kw or {}).get("data-markdown") and field.data
    }


def wants_preview() -> bool:
    return request.method == "POST" and "preview" in request.form


def conflict_context(
    kind: str, entity_id: int, base_version: int | None, form: Any
) -> dict[str, Any]:
    """What changed since the user's version, for the conflict message, in the words of the
    form the user is looking at."""
    session = get_session()
    records = changes_since(session, kind, entity_id, base_version)
    people = _actor_names(records)
    conflict = []
    for record in records:
        rows = diff(record.before, record.after)
        for row in rows:
            if row["field"] in form:
                row["label"] = form[row["field"]].label.text
        conflict.append({"record": record, "who": people[record.id], "rows": rows})
    return {"conflict": conflict}


def _actor_names(records: list[Any]) -> dict[int, str]:
    ids = {r.actor_person_id for r in records if r.actor_person_id}
    names = (
        dict(
            get_session()
            .execute(select(m.Person.id, m.Person.full_name).where(m.Person.id.in_(ids)))
            .all()
        )
        if ids
        else {}
    )
    return {
        r.id: names.get(r.actor_person_id) or r.actor_key or "a command-line tool" for r in records
    }


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


@blueprint.errorhandler(SaveNotCommitted)
def _save_not_committed(_error: SaveNotCommitted) -> tuple[str, int]:
    """Other saves kept this one from going through (nothing was written): a conflict page
    that keeps every value the user sent, ready to send again with a fresh token."""
    typed = [
        (name, value)
        for name, values in request.form.lists()
        if name != "csrf_token"
        for value in values
    ]
    return render_template(
        "directory/edit/not_saved.html", typed=typed, action=request.full_path.rstrip("?"),
        lost_files=[name for name, upload in request.files.items() if upload.filename],
        action_form=forms.ActionForm(),
    ), 409  # fmt: skip


# ----------------------------------------------------------------------------- the editor page


@blueprint.route("/me")
def me() -> Any:
    viewer = current_viewer()
    if not viewer.is_authenticated:
        abort(403)
    if viewer.person_id is None:
        return render_template("directory/edit/no_profile.html")
    person = get_session().get(m.Person, viewer.person_id)
    return editor_page(person)


@blueprint.route("/people/<slug>/edit")
def edit_person(slug: str) -> Any:
    person = editable_person_or_abort(slug)
    if current_viewer().person_id == person.id:
        return redirect(url_for("directory.me"))
    return editor_page(person)


def editor_page(person: m.Person) -> str:
    session = get_session()
    viewer = current_viewer()
    sections = []
    for spec in KINDS.values():
        entries = list(
            session.scalars(
                select(spec.model)
                .where(spec.model.owner_id == person.id)
                .options(*(selectinload(getattr(spec.model, name)) for name in spec.load))
                .order_by(spec.model.position, spec.model.id)
            )
        )
        sections.append((spec, entries))
    # The papers under the profile's headings, a page at a time; ↑ and ↓ are offered by a
    # paper's place in its whole heading, not in the page. Grouped on plain values: only the
    # page's papers are loaded as objects.
    publications = profile_rows(session, m.ProfilePublication.person_id == person.id)
    groups = group_publications(publications, unpublished_in_year=person.unpublished_in_year)
    first = {g.items[0].publication_id for g in groups}
    last = {g.items[-1].publication_id for g in groups}
    paper_filters = department.PaperListFilters.from_args(request.args)
    papers = paginate_groups(
        groups, paper_filters.papers, current_app.config["DIRECTORY_PAGE_SIZE"]
    )
    with_details(session, person, papers.groups, options=[])
    to_confirm = [
        rel
        for rel in session.scalars(
            select(m.AdvisingRelation).where(
                m.AdvisingRelation.owner_id != person.id,
                (
                    (m.AdvisingRelation.student_id == person.id)
                    & m.AdvisingRelation.student_confirmed.is_(False)
                )
                | (
                    (m.AdvisingRelation.advisor_id == person.id)
                    & m.AdvisingRelation.advisor_confirmed.is_(False)
                ),
            )
        )
        if access.can_confirm_advising(viewer, rel)
    ]
    suggested = list(
        session.scalars(
            select(m.Authorship)
            .join(m.Publication)
            .where(access.suggested_authorship_clause(viewer, person))
            .options(selectinload(m.Authorship.publication))
            .order_by(m.Publication.year.desc().nulls_last(), m.Publication.id)
        )
    )
    pending = list(
        session.scalars(
            select(PendingChange)
            .where(PendingChange.person_id == person.id)
            .order_by(PendingChange.id.desc())
            .limit(20)
        )
    )
    return render_template(
        "directory/edit/editor.html",
        person=person,
        sections=sections,
        publications=publications,
        papers=papers,
        first_papers=first,
        last_papers=last,
        papers_endpoint="directory.me"
        if viewer.person_id == person.id
        else "directory.edit_person",
        papers_query=department.PaperListFilters(papers=papers.number).with_page_of_papers(),
        papers_page_args=lambda n: {
            **({} if viewer.person_id == person.id else {"slug": person.slug}),
            **department.PaperListFilters(papers=n).with_page_of_papers(),
            "_anchor": "publications",
        },
        to_confirm=to_confirm,
        suggested=suggested,
        pending=[p for p in pending if p.status == "pending"],
        decided=[(p, proposal_fields(p)) for p in pending if p.status == "rejected"][:5],
        kinds=KINDS,
        action_form=forms.ActionForm(),
        needs_approval=access.needs_approval(viewer, person),
        can_manage_delegates=access.can_manage_delegates(viewer, person),
        can_publish=access.can_publish(viewer, person),
    )


# ----------------------------------------------------------------------------- entries


@blueprint.route("/people/<slug>/edit/<kind>/new", methods=["GET", "POST"])
@blueprint.route("/people/<slug>/edit/<kind>/<int:entry_id>", methods=["GET", "POST"])
def edit_entry(slug: str, kind: str, entry_id: int | None = None) -> Any:
    person = editable_person_or_abort(slug)
    spec = kind_or_404(kind)
    session = get_session()
    entry = owned_entry(spec, person, entry_id) if entry_id is not None else None
    if entry_id is not None and entry is None and request.method == "GET":
        abort(404)
    form = spec.form(obj=entry if request.method == "GET" else None)
    form.prepare(person, session)
    form.prepare_for(entry)
    form._editing_id = entry_id
    new_url = url_for("directory.edit_entry", slug=slug, kind=kind)
    action = request.path
    what = spec.singular
    title = _("Edit %(what)s", what=what) if entry_id else _("Add %(what)s", what=what)
    if request.method == "GET" and entry is not None:
        form.load(entry)
        form.version.data = entry.version
    if request.method == "POST" and entry_id is not None and entry is None:
        # Deleted while the user was typing: keep what they typed, offer to add it anew.
        return render_edit_form(
            form, person=person, title=title, action=new_url, status=409,
            gone=True,
        )  # fmt: skip
    if wants_preview() or not form.validate_on_submit():
        status = 400 if request.method == "POST" and not wants_preview() else 200
        return render_edit_form(form, person=person, title=title, action=action, status=status)
    changes = current_unit_of_work().change_set(person)
    try:
        if entry is None:
            entry = spec.model(owner_id=person.id, position=_first_position(spec, person))
            form.fill(entry, session)
            changes.create(kind, entry)
        else:
            changes.update(kind, entry, form.base_version())
            form.fill(entry, session)
        outcome = changes.finish()
    except (Conflict, StaleDataError):
        session.rollback()
        current = owned_entry(spec, person, entry_id)
        if current is None:
            return render_edit_form(form, person=person, title=title, action=new_url,
                                    status=409, gone=True)  # fmt: skip
        context = conflict_context(kind, current.id, form.base_version(), form)
        # The next save is a deliberate overwrite of what the user has now seen.
        form.version.data = current.version
        return render_edit_form(
            form, person=person, title=title, action=action, status=409, **context
        )
    flash_outcome(outcome, spec.singular.capitalize())
    return redirect(editor_url(person, kind))


def _first_position(spec: Any, person: m.Person) -> int:
    lowest = get_session().scalar(
        select(spec.model.position)
        .where(spec.model.owner_id == person.id)
        .order_by(spec.model.position)
        .limit(1)
    )
    return (lowest if lowest is not None else 1) - 1


@blueprint.route("/people/<slug>/edit/<kind>/<int:entry_id>/delete", methods=["POST"])
def delete_entry(slug: str, kind: str, entry_id: int) -> Response:
    person, spec, entry = entry_or_abort(slug, kind, entry_id)
    form = forms.VersionedActionForm()
    if not form.validate_on_submit():
        abort(400)
    session = get_session()
    changes = current_unit_of_work().change_set(person)
    try:
        changes.delete(kind, entry, form.base_version())
        outcome = changes.finish()
    except (Conflict, StaleDataError):
        session.rollback()
        flash(_("This entry changed since you loaded the page; look at it again before deleting."),
              "error")  # fmt: skip
        return redirect(editor_url(person, kind))
    if outcome == SAVED:
        flash(_("Deleted: %(what)s. You can restore it from the history.", what=spec.singular),
              "success")  # fmt: skip
    else:
        flash_outcome(outcome)
    return redirect(editor_url(person, kind))


@blueprint.route("/people/<slug>/edit/<kind>/<int:entry_id>/move", methods=["POST"])
def move_entry(slug: str, kind: str, entry_id: int) -> Any:
    person, spec, entry = entry_or_abort(slug, kind, entry_id)
    form = forms.MoveForm()
    if not form.validate_on_submit():
        abort(400)
    session = get_session()
    entries = list(
        session.scalars(
            select(spec.model)
            .where(spec.model.owner_id == person.id)
            .order_by(spec.model.position, spec.model.id)
        )
    )
    index = entries.index(entry)
    other = index - 1 if form.direction.data == "up" else index + 1
    if not 0 <= other < len(entries):
        return redirect(editor_url(person, kind))
    changes = current_unit_of_work().change_set(person)
    try:
        changes.update(kind, entry, form.base_version())
        for item in entries:
            if item is not entry:
                changes.update(kind, item)
        entries[index], entries[other] = entries[other], entries[index]
        for position, item in enumerate(entries):
            item.position = position
        outcome = changes.finish()
    except (Conflict, StaleDataError):
        session.rollback()
        flash(_("This list changed since you loaded the page; here it is as it is now."), "error")
        outcome = None
    if outcome == PENDING:
        flash_outcome(outcome)
    if request.accept_mimetypes.best == "application/json":
        # For the script that moves the row in place: every entry's new version.
        versions = {str(e.id): e.version for e in entries} if outcome == SAVED else {}
        return {"outcome": outcome or "conflict", "versions": versions}, 200 if outcome else 409
    return redirect(editor_url(person, f"{kind}-{entry_id}"))


# ----------------------------------------------------------------------------- profile + photo


@blueprint.route("/people/<slug>/edit/profile", methods=["GET", "POST"])
def edit_profile(slug: str) -> Any:
    person = editable_person_or_abort(slug)
    session = get_session()
    form = forms.ProfileForm()
    form.prepare(session)
    action = request.path
    if request.method == "GET":
        form.load(person)
    if wants_preview() or not form.validate_on_submit():
        status = 400 if request.method == "POST" and not wants_preview() else 200
        return render_edit_form(form, person=person, title=_("Profile details"), action=action,
                                status=status)  # fmt: skip
    changes = current_unit_of_work().change_set(person)
    try:
        changes.update(PERSON, person, form.base_version())
        form.fill(person, session)
        outcome = changes.finish()
    except (Conflict, StaleDataError):
        session.rollback()
        session.refresh(person)
        context = conflict_context(PERSON, person.id, form.base_version(), form)
        form.version.data = person.version
        return render_edit_form(form, person=person, title=_("Profile details"), action=action,
                                status=409, **context)  # fmt: skip
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
            # The image is not kept in the history, so it cannot wait for approval.
            changes = current_unit_of_work().change_set(person, approval_exempt=True)
            changes.update(PERSON, person)
            person.photo = photo
            changes.finish()
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
    session = get_session()
    changes = current_unit_of_work().change_set(person)
    try:
        changes.update(PERSON, person, form.base_version())
        person.photo.focus_x, person.photo.focus_y = form.focus_x.data, form.focus_y.data
        outcome = changes.finish()
    except (Conflict, StaleDataError):
        session.rollback()
        flash(_("The profile changed since you loaded the page; here is its photo as it is now."),
              "error")  # fmt: skip
        return redirect(url_for("directory.edit_photo", slug=person.slug))
    flash_outcome(outcome, "Focal point")
    return redirect(url_for("directory.edit_photo", slug=person.slug))


@blueprint.route("/people/<slug>/edit/photo/remove", methods=["POST"])
def remove_photo(slug: str) -> Response:
    person = editable_person_or_abort(slug)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    if person.photo is not None:
        changes = current_unit_of_work().change_set(person, approval_exempt=True)
        changes.update(PERSON, person)
        person.photo = None
        changes.finish()
        flash(_("Photo removed."), "success")
    return redirect(editor_url(person, "profile"))


@blueprint.route("/people/<slug>/edit/confirm", methods=["POST"])
def confirm_current(slug: str) -> Response:
    """The owner's one click: "my profile is current" (clears it from the stale report)."""
    person = editable_person_or_abort(slug)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    changes = current_unit_of_work().change_set(person, approval_exempt=True)
    changes.update(PERSON, person)
    person.last_confirmed = date.today()
    changes.finish()
    flash(_("Thank you: your profile is marked as current."), "success")
    return redirect(editor_url(person))


@blueprint.route("/people/<slug>/edit/advising/<int:relation_id>/confirm", methods=["POST"])
def confirm_advising(slug: str, relation_id: int) -> Response:
    """The other side of an advising relation confirms it; then it shows on both profiles."""
    person = editable_person_or_abort(slug)
    session = get_session()
    relation = session.get(m.AdvisingRelation, relation_id)
    if relation is None or person.id not in (relation.advisor_id, relation.student_id):
        abort(404)
    if not access.can_confirm_advising(current_viewer(), relation):
        abort(403)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    owner = session.get(m.Person, relation.owner_id)
    # Confirming one's own side of a relation someone else entered changes the owner's entry,
    # which the confirming side may do without editing the owner's profile.
    changes = current_unit_of_work().change_set(owner, approval_exempt=True, allowed=True)
    changes.update("advising", relation)
    if relation.student_id == person.id:
        relation.student_confirmed = True
    if relation.advisor_id == person.id:
        relation.advisor_confirmed = True
    changes.finish()
    flash(_("Confirmed: the relation now shows on both profiles."), "success")
    return redirect(editor_url(person, "advising"))


def _suggested_authorship(person: m.Person, authorship_id: int) -> m.Authorship:
    """The authorship suggested to ``person`` (404 when there is none to answer, 403 when the
    viewer may not answer for them)."""
    authorship = get_session().get(m.Authorship, authorship_id)
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
    # A statement about oneself, like confirming an advising relation: not held for approval.
    changes = current_unit_of_work().change_set(person, approval_exempt=True)
    changes.update(PUBLICATION, authorship.publication)
    accept_suggested_authorship(get_session(), authorship, person.id)
    changes.finish()
    flash(_("Confirmed: the paper is now on your profile."), "success")
    return redirect(editor_url(person, "suggested"))


@blueprint.route("/people/<slug>/edit/authorships/<int:authorship_id>/decline", methods=["POST"])
def decline_authorship(slug: str, authorship_id: int) -> Response:
    """The member says the printed name is not them; the name stays plain text."""
    person = editable_person_or_abort(slug)
    authorship = _suggested_authorship(person, authorship_id)
    changes = current_unit_of_work().change_set(person, approval_exempt=True)
    changes.update(PUBLICATION, authorship.publication)
    reject_suggested_authorship(get_session(), authorship)
    changes.finish()
    flash(_("Noted: the paper stays off your profile."), "success")
    return redirect(editor_url(person, "suggested"))


# ----------------------------------------------------------------------------- history


@blueprint.route("/people/<slug>/history")
def history(slug: str) -> str:
    person = editable_person_or_abort(slug)
    records = list(
        get_session().scalars(
            select(ChangeRecord)
            .where(ChangeRecord.person_id == person.id)
            .order_by(ChangeRecord.id.desc())
            .limit(200)
        )
    )
    names = _actor_names(records)
    session = get_session()
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
def revert_change(slug: str, record_id: int) -> Response:
    person = editable_person_or_abort(slug)
    session = get_session()
    record = session.get(ChangeRecord, record_id)
    if record is None or record.person_id != person.id:
        abort(404)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    try:
        outcome = revert(current_unit_of_work(), person, record)
    except CannotApply as refused:
        session.rollback()
        flash(str(refused), "error")
    except StaleDataError:
        session.rollback()
        flash(_("The entry changed at the same moment; try again."), "error")
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
    current = list(
        session.scalars(
            select(Delegation)
            .where(Delegation.person_id == person.id)
            .options(selectinload(Delegation.delegate))
        )
    )
    taken = {d.delegate_id for d in current} | {person.id}
    form = forms.DelegateForm()
    form.delegate_id.choices = forms.options(
        [("", "—")]
        + [
            (str(p.id), p.full_name)
            for p in session.scalars(
                select(m.Person)
                .where(m.Person.active.is_(True), access.person_clause(viewer, m.Person))
                .order_by(m.Person.sort_name)
            )
            if p.id not in taken
        ]
    )
    if form.validate_on_submit():
        changes = current_unit_of_work().change_set(
            person, allowed=access.can_manage_delegates(viewer, person)
        )
        delegation = Delegation(person_id=person.id, delegate_id=int(form.delegate_id.data))
        changes.create("delegation", delegation)
        if changes.finish() == PENDING:
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
    session = get_session()
    delegation = session.get(Delegation, delegation_id)
    if delegation is None or delegation.person_id != person.id:
        abort(404)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    changes = current_unit_of_work().change_set(
        person, allowed=access.can_manage_delegates(current_viewer(), person)
    )
    changes.delete("delegation", delegation)
    if changes.finish() == PENDING:
        flash_outcome(PENDING)
    else:
        flash(_("Delegate removed."), "success")
    return redirect(url_for("directory.delegates", slug=slug))


# ----------------------------------------------------------------------------- publications


def _profile_publication(person: m.Person, pub_id: int) -> m.ProfilePublication:
    row = get_session().get(m.ProfilePublication, (person.id, pub_id))
    if row is None:
        abort(404)
    return row


@blueprint.route("/people/<slug>/edit/publications/new", methods=["GET", "POST"])
@blueprint.route("/people/<slug>/edit/publications/<int:pub_id>", methods=["GET", "POST"])
def edit_publication(slug: str, pub_id: int | None = None) -> Any:
    person = editable_person_or_abort(slug)
    session = get_session()
    viewer = current_viewer()
    row = _profile_publication(person, pub_id) if pub_id is not None else None
    pub = row.publication if row is not None else None
    if pub is not None and not access.can_edit_publication(viewer, pub):
        abort(403)
    form = PublicationForm()
    title = _("Edit publication") if pub else _("Add a publication")
    action = request.path
    if request.method == "GET":
        if pub is not None:
            form.load(pub, row)
        else:
            form.authors.data = person.full_name
    if wants_preview() or not form.validate_on_submit():
        status = 400 if request.method == "POST" and not wants_preview() else 200
        return render_edit_form(form, person=person, title=title, action=action, status=status)
    changes = current_unit_of_work().change_set(person)
    try:
        state = form.state(session, pub)
        # How this profile lists the paper is part of the change (and of its approval).
        state["listing"] = {"selected": form.selected.data, "hidden": form.hidden.data}
        if pub is None:
            pub = m.Publication(created_by_id=person.id)
            changes.create("publication", pub)
        else:
            changes.update("publication", pub, form.base_version())
        apply_snapshot(session, "publication", pub, state, person.id)
        outcome = changes.finish()
    except (Conflict, StaleDataError):
        session.rollback()
        if pub_id is None or session.get(m.Publication, pub_id) is None:
            return render_edit_form(form, person=person, title=title, action=action, status=409,
                                    gone=True)  # fmt: skip
        current = session.get(m.Publication, pub_id)
        session.refresh(current)
        context = conflict_context("publication", pub_id, form.base_version(), form)
        form.version.data = current.version
        return render_edit_form(form, person=person, title=title, action=action, status=409,
                                **context)  # fmt: skip
    except IntegrityError:
        session.rollback()
        form.doi.errors = [*form.doi.errors, _("Another publication has this DOI or arXiv id; "
                                               "it may already be in the directory.")]  # fmt: skip
        return render_edit_form(form, person=person, title=title, action=action, status=400)
    flash_outcome(outcome, _("Publication"))
    return redirect(editor_url(person, "publications"))


@blueprint.route("/people/<slug>/edit/publications/<int:pub_id>/remove", methods=["POST"])
def remove_publication(slug: str, pub_id: int) -> Response:
    """Take a paper off this profile; the shared record is deleted (restorable from the
    history) when no other profile lists it."""
    person = editable_person_or_abort(slug)
    row = _profile_publication(person, pub_id)
    form = forms.VersionedActionForm()
    if not form.validate_on_submit():
        abort(400)
    session = get_session()
    others = session.scalar(
        select(m.ProfilePublication.person_id).where(
            m.ProfilePublication.publication_id == pub_id,
            m.ProfilePublication.person_id != person.id,
        )
    )
    changes = current_unit_of_work().change_set(person)
    try:
        if others is not None:
            # Co-authors still list it: only this profile's listing goes.
            changes.update("publication", row.publication, form.base_version())
            apply_snapshot(session, "publication", row.publication, {"listing": None}, person.id)
        else:
            changes.delete("publication", row.publication, form.base_version())
        outcome = changes.finish()
    except (Conflict, StaleDataError):
        session.rollback()
        flash(_("This publication changed since you loaded the page; look at it again."), "error")
        return redirect(editor_url(person, "publications"))
    if others is not None and outcome == SAVED:
        flash(_("Removed from this profile (co-authors still list it)."), "success")
        return redirect(editor_url(person, "publications"))
    flash(
        _("Publication deleted. You can restore it from the history.") if outcome == SAVED
        else _(OUTCOME_MESSAGES[outcome][0]),
        "success" if outcome == SAVED else "info",
    )  # fmt: skip
    return redirect(editor_url(person, "publications"))
