"""The admin area (people, invitations, merging, the research-area taxonomy, the stale
report), the approval queue (admins and advisors), and claiming a profile by invitation."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.wrappers import Response

from directory import models as m
from directory.db import get_session
from directory.formats.names import make_slug, sort_name, unique_slug
from directory.i18n import gettext as _
from directory.models import PendingChange
from directory.services import access, department, mail
from directory.services.changes import Conflict
from directory.services.errors import CannotApply
from directory.services.history import apply_pending, changed_since_proposed, decide, display_rows
from directory.services.identity import current_viewer
from directory.services.invitations import (
    InvitationUnusable,
    claim,
    create_invitation,
    find_invitation,
)
from directory.services.kinds import AREA, PERSON
from directory.services.merge import merge_people
from directory.services.reminders import ProfileCurrency, stale_profiles
from directory.services.unit_of_work import current_unit_of_work
from directory.web import forms
from directory.web.blueprint import blueprint
from directory.web.csrf import csrf_failed
from directory.web.entry_kinds import KINDS
from directory.web.mails import send_invitation


def require_admin() -> None:
    viewer = current_viewer()
    if not viewer.is_authenticated or not access.can_admin(viewer):
        abort(403)


def person_or_404(slug: str) -> m.Person:
    person = get_session().scalar(select(m.Person).where(m.Person.slug == slug))
    if person is None:
        abort(404)
    return person


@blueprint.route("/admin/")
def admin_index() -> str:
    require_admin()
    session = get_session()
    counts = {
        "people": session.scalar(select(func.count(m.Person.id))),
        "pending": session.scalar(
            select(func.count(PendingChange.id)).where(PendingChange.status == "pending")
        ),
        "stale": len(stale_report()[0]),
        "areas": session.scalar(select(func.count(m.ResearchArea.id))),
    }
    # Notices whose old free-text intake names no term: no term filter finds them.
    unreadable_terms = session.scalars(
        select(m.RecruitingNotice)
        .where(m.RecruitingNotice.term.isnot(None), m.RecruitingNotice.term != "")
        .options(selectinload(m.RecruitingNotice.owner))
        .order_by(m.RecruitingNotice.owner_id, m.RecruitingNotice.id)
    ).all()
    return render_template(
        "directory/admin/index.html", counts=counts, unreadable_terms=unreadable_terms
    )


# ----------------------------------------------------------------------------- people


@blueprint.route("/admin/people")
def admin_people() -> str:
    require_admin()
    query = (request.args.get("q") or "").strip()
    role = request.args.get("role") or ""
    stmt = select(m.Person).order_by(m.Person.active.desc(), m.Person.sort_name)
    if query:
        like = f"%{query}%"
        stmt = stmt.where(or_(m.Person.full_name.ilike(like), m.Person.email.ilike(like)))
    if role in m.values(m.ROLES):
        stmt = stmt.where(m.Person.role == role)
    else:
        role = ""
    # A page at a time (DIRECTORY_PAGE_SIZE): a page past the last shows the last.
    session, size = get_session(), current_app.config["DIRECTORY_PAGE_SIZE"]
    asked = department.PageFilters.from_args(request.args).page
    total = session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    number = min(asked, max(1, -(-total // size)))
    stmt = stmt.order_by(m.Person.id).limit(size).offset((number - 1) * size)
    people = list(session.scalars(stmt))
    page = department.Page(people, number, size, total)
    filters = {**({"q": query} if query else {}), **({"role": role} if role else {})}
    return render_template(
        "directory/admin/people.html", people=people, query=query, role=role, page=page,
        requested=asked if asked > number else None, action_form=forms.ActionForm(),
        page_args=lambda n: {**filters, **({"page": n} if n > 1 else {})},
    )  # fmt: skip


def _taken_slugs(session: Any, except_id: int | None = None) -> set[str]:
    stmt = select(m.Person.slug)
    if except_id is not None:
        stmt = stmt.where(m.Person.id != except_id)
    return set(session.scalars(stmt))


@blueprint.route("/admin/people/new", methods=["GET", "POST"])
@blueprint.route("/admin/people/<slug>", methods=["GET", "POST"])
def admin_person(slug: str | None = None) -> Any:
    require_admin()
    session = get_session()
    person = person_or_404(slug) if slug else None
    form = forms.PersonAdminForm(obj=person if request.method == "GET" else None)
    if request.method == "GET":
        form.version.data = person.version if person else ""
        if person is None:
            form.active.data = True
    title = _("Person: %(name)s", name=person.full_name) if person else _("New person")
    if not form.validate_on_submit():
        status = 400 if request.method == "POST" else 200
        return _person_page(form, person, title, status)
    wanted_slug = form.slug.data or make_slug(form.full_name.data)
    taken = _taken_slugs(session, person.id if person else None)
    if form.slug.data and form.slug.data in taken:
        form.slug.errors = [*form.slug.errors, _("Another person has this address.")]
        return _person_page(form, person, title, 400)
    key = (form.user_key.data or "").strip() or None
    if key and session.scalar(
        select(m.Person.id).where(
            m.Person.user_key == key, m.Person.id != (person.id if person else -1)
        )
    ):
        form.user_key.errors = [
            *form.user_key.errors,
            _("This identity is bound to another person."),
        ]
        return _person_page(form, person, title, 400)
    target = person or m.Person(sort_name=sort_name(form.full_name.data))
    changes = current_unit_of_work().change_set(target, approval_exempt=True)
    try:
        if person is None:
            changes.create(PERSON, target)
        else:
            # Refuses at once (Conflict) when the form was loaded from an older version.
            changes.update(PERSON, target, form.base_version())
        _apply_person_form(form, target, person is None, wanted_slug, taken, key)
        changes.finish()
    except (Conflict, StaleDataError, IntegrityError):
        session.rollback()
        flash(
            _(
                "This person changed meanwhile, or the address was just taken; "
                "check and save again."
            ),
            "error",
        )
        if person is not None:
            session.refresh(person)
            form.version.data = person.version
        return _person_page(form, person, title, 409)
    flash(_("Saved %(name)s.", name=target.full_name), "success")
    return redirect(url_for("directory.admin_person", slug=target.slug))


def _apply_person_form(
    form: Any, target: m.Person, new: bool, wanted_slug: str, taken: set[str], key: str | None
) -> None:
    if not new and target.full_name != form.full_name.data:
        target.sort_name = sort_name(form.full_name.data)
    target.full_name = form.full_name.data.strip()
    target.slug = unique_slug(wanted_slug, taken)
    target.role = form.role.data
    target.email = (form.email.data or "").strip() or None
    target.user_key = key
    target.active = form.active.data
    target.visibility = form.visibility.data
    if new:
        target.published = not current_app.config["DIRECTORY_NEW_PROFILES_UNLISTED"]


def _person_page(form: Any, person: m.Person | None, title: str, status: int) -> tuple[str, int]:
    return (
        render_template(
            "directory/admin/person.html",
            form=form,
            person=person,
            title=title,
            action_form=forms.ActionForm(),
        ),
        status,
    )


@blueprint.route("/admin/people/<slug>/deactivate", methods=["POST"])
def admin_deactivate(slug: str) -> Response:
    """A member who left: inactive, listed as alumni, their profile and entries kept."""
    require_admin()
    person = person_or_404(slug)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    changes = current_unit_of_work().change_set(person, approval_exempt=True)
    changes.update(PERSON, person)
    person.active = False
    person.role = "alumni"
    changes.finish()
    flash(_("%(name)s is now listed among the alumni.", name=person.full_name), "success")
    return redirect(url_for("directory.admin_person", slug=slug))


@blueprint.route("/admin/people/<slug>/invite", methods=["POST"])
def admin_invite(slug: str) -> Any:
    require_admin()
    person = person_or_404(slug)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    days = current_app.config["DIRECTORY_INVITATION_DAYS"]
    changes = current_unit_of_work().change_set(person, approval_exempt=True)
    token = create_invitation(changes, days)
    changes.finish()
    link = url_for("directory.claim_profile", token=token, _external=True)
    # The invitation exists whatever the mail server says; the page shows its link anyway.
    problem = send_invitation(person, link, days)
    return render_template(
        "directory/admin/invitation.html", person=person, link=link, days=days,
        mail_problem=problem,
    )  # fmt: skip


@blueprint.route("/admin/merge", methods=["GET", "POST"])
def admin_merge() -> Any:
    require_admin()
    session = get_session()
    people = list(session.scalars(select(m.Person).order_by(m.Person.sort_name)))
    form = forms.MergeForm()
    choices = [("", "—")] + [(str(p.id), f"{p.full_name} ({p.slug})") for p in people]
    form.keep_id.choices = form.merge_id.choices = forms.options(choices)
    if not form.validate_on_submit():
        status = 400 if request.method == "POST" else 200
        return render_template("directory/admin/merge.html", form=form), status
    keep = session.get(m.Person, int(form.keep_id.data))
    duplicate = session.get(m.Person, int(form.merge_id.data))
    duplicate_name = duplicate.full_name
    # Both halves are recorded in the kept person's history, where the entries now are.
    changes = current_unit_of_work().change_set(keep, approval_exempt=True)
    changes.update(PERSON, keep)
    merge_people(session, keep, duplicate)
    changes.delete(PERSON, duplicate)
    changes.finish()
    flash(
        _("Merged %(duplicate)s into %(name)s.", duplicate=duplicate_name, name=keep.full_name),
        "success",
    )
    return redirect(url_for("directory.admin_person", slug=keep.slug))


# ----------------------------------------------------------------------------- areas


@blueprint.route("/admin/areas", methods=["GET", "POST"])
@blueprint.route("/admin/areas/<int:area_id>", methods=["GET", "POST"])
def admin_areas(area_id: int | None = None) -> Any:
    require_admin()
    session = get_session()
    area = session.get(m.ResearchArea, area_id) if area_id else None
    if area_id and area is None:
        abort(404)
    areas = list(session.scalars(select(m.ResearchArea).order_by(m.ResearchArea.name)))
    form = forms.AreaForm(obj=area if request.method == "GET" else None)
    form.parent_id.choices = forms.options(
        [("", "—")] + [(str(a.id), a.name) for a in areas if area is None or a.id != area.id]
    )
    if request.method == "GET" and area is not None:
        form.parent_id.data = str(area.parent_id) if area.parent_id else ""
        form.version.data = area.version
    if form.validate_on_submit():
        slug = form.slug.data or make_slug(form.name.data, 80)
        clash = session.scalar(
            select(m.ResearchArea.id).where(
                m.ResearchArea.slug == slug, m.ResearchArea.id != (area.id if area else -1)
            )
        )
        if clash:
            form.slug.errors = [*form.slug.errors, _("Another area has this slug.")]
        elif area is not None and form.base_version() != area.version:
            form.version.data = area.version
            flash(_("This area changed meanwhile; check it and save again."), "error")
        else:
            # Areas are the department's, not a profile's: a change set without a person.
            changes = current_unit_of_work().change_set(
                None, allowed=access.can_admin(current_viewer())
            )
            target = area or m.ResearchArea()
            if area is None:
                changes.create(AREA, target)
            else:
                changes.update(AREA, target)
            target.name = form.name.data.strip()
            target.slug = slug
            target.description = form.description.data or None
            target.parent_id = int(form.parent_id.data) if form.parent_id.data else None
            changes.finish()
            flash(_("Saved the area %(name)s.", name=target.name), "success")
            return redirect(url_for("directory.admin_areas"))
    status = 400 if request.method == "POST" else 200
    return (
        render_template(
            "directory/admin/areas.html",
            areas=areas,
            area=area,
            form=form,
            action_form=forms.ActionForm(),
        ),
        status,
    )


@blueprint.route("/admin/areas/<int:area_id>/delete", methods=["POST"])
def admin_delete_area(area_id: int) -> Response:
    require_admin()
    session = get_session()
    area = session.get(m.ResearchArea, area_id)
    if area is None:
        abort(404)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    changes = current_unit_of_work().change_set(None, allowed=access.can_admin(current_viewer()))
    changes.delete(AREA, area)
    changes.finish()
    flash(_("Deleted the area %(name)s; profiles no longer list it.", name=area.name), "success")
    return redirect(url_for("directory.admin_areas"))


# ----------------------------------------------------------------------------- stale report


def stale_report() -> tuple[list[ProfileCurrency], int]:
    """Profiles not current (created, edited or confirmed) for DIRECTORY_STALE_AFTER_MONTHS,
    of people expected to keep them current (alumni not), and that number of months."""
    months = current_app.config["DIRECTORY_STALE_AFTER_MONTHS"]
    return stale_profiles(get_session(), months, date.today()), months


@blueprint.route("/admin/stale")
def admin_stale() -> str:
    require_admin()
    stale, months = stale_report()
    form = forms.RemindForm(formdata=None)
    return render_template(
        "directory/admin/stale.html",
        stale=stale,
        months=months,
        form=form,
        mail_configured=mail.is_configured(current_app.config),
    )


# ----------------------------------------------------------------------------- approvals


def _approvable(viewer: Any) -> list[PendingChange]:
    people = select(m.Person.id).where(access.approvable(viewer))
    stmt = (
        select(PendingChange)
        .where(PendingChange.status == "pending", PendingChange.person_id.in_(people))
        .order_by(PendingChange.created_at, PendingChange.id)
    )
    return list(get_session().scalars(stmt))


def _is_approver(viewer: Any) -> bool:
    return access.is_approver(viewer)


@blueprint.route("/approvals")
def approvals() -> str:
    viewer = current_viewer()
    if not viewer.is_authenticated or not _is_approver(viewer):
        abort(403)
    session = get_session()
    items = []
    for pending in _approvable(viewer):
        changed_since = changed_since_proposed(session, pending)
        items.append(
            {
                "pending": pending,
                "rows": display_rows(
                    session, pending.entity_kind, pending.before, pending.proposed
                ),  # fmt: skip
                "changed_since": changed_since,
            }
        )
    return render_template(
        "directory/approvals.html",
        items=items,
        kinds=KINDS,
        approve_form=forms.ReasonForm(),
        reject_form=forms.RejectForm(),
    )


def _pending_or_404(pending_id: int) -> PendingChange:
    pending = get_session().get(PendingChange, pending_id)
    if pending is None or pending.status != "pending":
        abort(404)
    return pending


@blueprint.route("/approvals/<int:pending_id>/approve", methods=["POST"])
def approve(pending_id: int) -> Response:
    viewer = current_viewer()
    if not viewer.is_authenticated:
        abort(403)
    pending = _pending_or_404(pending_id)
    if not access.can_approve(viewer, pending.person):
        abort(403)
    form = forms.ReasonForm()
    if not form.validate_on_submit():
        abort(400)
    session = get_session()
    pending.reason = form.reason.data or None
    try:
        apply_pending(current_unit_of_work(), pending)
    except CannotApply as refused:
        session.rollback()
        flash(_("Not applied: %(reason)s Reject it instead.", reason=refused), "error")
    else:
        flash(_("Approved: the change is now public."), "success")
    return redirect(url_for("directory.approvals"))


@blueprint.route("/approvals/<int:pending_id>/reject", methods=["POST"])
def reject(pending_id: int) -> Response:
    viewer = current_viewer()
    if not viewer.is_authenticated:
        abort(403)
    pending = _pending_or_404(pending_id)
    if not access.can_approve(viewer, pending.person):
        abort(403)
    form = forms.RejectForm()
    if not form.validate_on_submit():
        if csrf_failed(form):
            abort(400)
        flash(_("Say why the change is rejected; the author sees the reason."), "error")
        return redirect(url_for("directory.approvals", _anchor=f"pending-{pending_id}"))
    decide(current_unit_of_work(), pending, "rejected", form.reason.data)
    flash(_("Rejected; the author sees your reason on their profile editor."), "success")
    return redirect(url_for("directory.approvals"))


# ----------------------------------------------------------------------------- claiming


@blueprint.route("/claim/<token>", methods=["GET", "POST"])
def claim_profile(token: str) -> Any:
    session = get_session()
    viewer = current_viewer()
    try:
        invitation = find_invitation(session, token)
    except InvitationUnusable as unusable:
        return render_template("directory/claim.html", problem=str(unusable)), 410
    form = forms.ActionForm()
    if viewer.is_authenticated and form.validate_on_submit():
        # The invitation is what allows a not-yet-bound identity to take the profile.
        changes = current_unit_of_work().change_set(
            invitation.person, approval_exempt=True, allowed=True
        )
        try:
            person = claim(changes, invitation)
        except InvitationUnusable as unusable:
            session.rollback()
            return render_template("directory/claim.html", problem=str(unusable)), 409
        changes.finish()
        flash(_("Welcome, %(name)s: this is your profile now.", name=person.full_name), "success")
        return redirect(url_for("directory.me"))
    return render_template(
        "directory/claim.html",
        person=invitation.person,
        form=form,
        signed_in=viewer.is_authenticated,
    ), 400 if csrf_failed(form) else 200
