"""The admin area (people, invitations, merging, the research-area taxonomy, the stale
report), the approval queue (admins and advisors), and claiming a profile by invitation."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from directory import models as m
from directory.db import get_session
from directory.formats.names import make_slug
from directory.i18n import gettext as _
from directory.models import PendingChange
from directory.services import access, admin_reads, mail, profiles
from directory.services import areas as taxonomy
from directory.services.department.filters import PageFilters
from directory.services.errors import CannotApply
from directory.services.history import changed_since_proposed, display_rows
from directory.services.identity import current_viewer
from directory.services.invitations import InvitationUnusable, find_invitation
from directory.services.operations import approvals as approvals_operations
from directory.services.operations import areas as areas_operations
from directory.services.operations import people
from directory.services.reminders import ProfileCurrency, stale_profiles
from directory.services.unit_of_work import current_unit_of_work
from directory.web import admin_forms, forms
from directory.web.blueprint import blueprint
from directory.web.committing import AfterCommit
from directory.web.conflicts import on_conflict
from directory.web.csrf import csrf_failed
from directory.web.entry_kinds import KINDS
from directory.web.mails import send_invitation


def require_admin() -> None:
    viewer = current_viewer()
    if not viewer.is_authenticated or not access.can_admin(viewer):
        abort(403)


def person_or_404(slug: str) -> m.Person:
    person = profiles.person_by_slug(get_session(), slug)
    if person is None:
        abort(404)
    return person


@blueprint.route("/admin/")
def admin_index() -> str:
    require_admin()
    session = get_session()
    counts = {**admin_reads.counts(session), "stale": len(stale_report()[0])}
    unreadable_terms = admin_reads.notices_with_unreadable_terms(session)
    return render_template(
        "directory/admin/index.html", counts=counts, unreadable_terms=unreadable_terms
    )


# ----------------------------------------------------------------------------- people


@blueprint.route("/admin/people")
def admin_people() -> str:
    require_admin()
    query = (request.args.get("q") or "").strip()
    role = request.args.get("role") or ""
    if role not in m.values(m.ROLES):
        role = ""
    # A page at a time (DIRECTORY_PAGE_SIZE): a page past the last shows the last.
    size = current_app.config["DIRECTORY_PAGE_SIZE"]
    asked = PageFilters.from_args(request.args).page
    page = admin_reads.people_page(get_session(), query, role, asked, size)
    people, number = page.items, page.number
    filters = {**({"q": query} if query else {}), **({"role": role} if role else {})}
    return render_template(
        "directory/admin/people.html", people=people, query=query, role=role, page=page,
        requested=asked if asked > number else None, action_form=forms.ActionForm(),
        page_args=lambda n: {**filters, **({"page": n} if n > 1 else {})},
    )  # fmt: skip


def admin_person_form(slug: str | None) -> tuple[m.Person | None, Any, str]:
    """Load → check for the admin's person form: the person (None for a new one), the form
    (stored values on a GET, what was sent on a POST) and the page's title."""
    require_admin()
    person = person_or_404(slug) if slug else None
    form = admin_forms.PersonAdminForm(obj=person if request.method == "GET" else None)
    form.prepare_identifiers(get_session(), person)
    if request.method == "GET":
        form.version.data = person.version if person else ""
        if person is not None:
            form.load_identifiers(person)
        if person is None:
            form.active.data = True
    title = _("Person: %(name)s", name=person.full_name) if person else _("New person")
    return person, form, title


def _admin_person_conflict(_conflict: Any, slug: str | None = None) -> Any:
    person, form, title = admin_person_form(slug)
    flash(_("This person changed meanwhile, or the address was just taken; check and save "
            "again."), "error")  # fmt: skip
    if person is not None:
        form.version.data = person.version
    return _person_page(form, person, title, 409)


@blueprint.route("/admin/people/new", methods=["GET", "POST"])
@blueprint.route("/admin/people/<slug>", methods=["GET", "POST"])
@on_conflict(_admin_person_conflict)
def admin_person(slug: str | None = None) -> Any:
    person, form, title = admin_person_form(slug)
    if not form.validate_on_submit():
        status = 400 if request.method == "POST" else 200
        return _person_page(form, person, title, status)
    session = get_session()
    taken = admin_reads.taken_slugs(session, person.id if person else None)
    if form.slug.data and form.slug.data in taken:
        form.slug.errors = [*form.slug.errors, _("Another person has this address.")]
        return _person_page(form, person, title, 400)
    key = (form.user_key.data or "").strip() or None
    if key and admin_reads.identity_bound_elsewhere(session, key, person.id if person else None):
        form.user_key.errors = [
            *form.user_key.errors,
            _("This identity is bound to another person."),
        ]
        return _person_page(form, person, title, 400)
    saved = people.save_by_admin(
        current_unit_of_work(), person, {**form.data, "identifiers": form.identifier_values()},
        slug=form.slug.data or make_slug(form.full_name.data), taken=taken,
        base_version=form.base_version(),
        listed_when_new=not current_app.config["DIRECTORY_NEW_PROFILES_UNLISTED"],
    )  # fmt: skip
    flash(_("Saved %(name)s.", name=saved.full_name), "success")
    return redirect(url_for("directory.admin_person", slug=saved.slug))


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
    people.deactivate(current_unit_of_work(), person)
    flash(_("%(name)s is now listed among the alumni.", name=person.full_name), "success")
    return redirect(url_for("directory.admin_person", slug=slug))


@blueprint.route("/admin/people/<slug>/invite", methods=["POST"])
def admin_invite(slug: str) -> Any:
    require_admin()
    person = person_or_404(slug)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    days = current_app.config["DIRECTORY_INVITATION_DAYS"]
    token = people.invite(current_unit_of_work(), person, days)
    link = url_for("directory.claim_profile", token=token, _external=True)
    # The invitation exists whatever the mail server says; the page shows its link anyway.
    # The e-mail goes once the invitation is committed; the page says what the server said.
    problem = send_invitation(person, link, days)
    return AfterCommit(lambda: render_template(
        "directory/admin/invitation.html", person=person, link=link, days=days,
        mail_problem=problem(),
    ))  # fmt: skip


@blueprint.route("/admin/merge", methods=["GET", "POST"])
def admin_merge() -> Any:
    require_admin()
    session = get_session()
    form = admin_forms.MergeForm()
    everyone = admin_reads.everyone(session)
    choices = [("", "—")] + [(str(p.id), f"{p.full_name} ({p.slug})") for p in everyone]
    form.keep_id.choices = form.merge_id.choices = forms.options(choices)
    if not form.validate_on_submit():
        status = 400 if request.method == "POST" else 200
        return render_template("directory/admin/merge.html", form=form), status
    keep = profiles.person_by_id(session, int(form.keep_id.data))
    duplicate = profiles.person_by_id(session, int(form.merge_id.data))
    duplicate_name = duplicate.full_name
    people.merge(current_unit_of_work(), keep, duplicate)
    flash(
        _("Merged %(duplicate)s into %(name)s.", duplicate=duplicate_name, name=keep.full_name),
        "success",
    )
    return redirect(url_for("directory.admin_person", slug=keep.slug))


# ----------------------------------------------------------------------------- areas


def area_form(area_id: int | None) -> tuple[m.ResearchArea | None, list[m.ResearchArea], Any]:
    """Load → check for the area form: the area (None for a new one), every area (the page
    lists them, and the form offers them as the broader area) and the form."""
    require_admin()
    session = get_session()
    area = taxonomy.area_by_id(session, area_id) if area_id else None
    if area_id and area is None:
        abort(404)
    areas = taxonomy.research_areas(session)
    form = admin_forms.AreaForm(obj=area if request.method == "GET" else None)
    form.parent_id.choices = forms.options(
        [("", "—")] + [(str(a.id), a.name) for a in areas if area is None or a.id != area.id]
    )
    if request.method == "GET" and area is not None:
        form.parent_id.data = str(area.parent_id) if area.parent_id else ""
        form.version.data = area.version
    return area, areas, form


def _areas_page(area: Any, areas: list[Any], form: Any, status: int) -> tuple[str, int]:
    page = render_template("directory/admin/areas.html", areas=areas, area=area, form=form,
                           action_form=forms.ActionForm())  # fmt: skip
    return page, status


def _area_conflict(_conflict: Any, area_id: int | None = None) -> Any:
    area, areas, form = area_form(area_id)
    if area is not None:
        form.version.data = area.version
    flash(_("This area changed meanwhile; check it and save again."), "error")
    return _areas_page(area, areas, form, 409)


@blueprint.route("/admin/areas", methods=["GET", "POST"])
@blueprint.route("/admin/areas/<int:area_id>", methods=["GET", "POST"])
@on_conflict(_area_conflict)
def admin_areas(area_id: int | None = None) -> Any:
    area, areas, form = area_form(area_id)
    if form.validate_on_submit():
        slug = form.slug.data or make_slug(form.name.data, 80)
        if admin_reads.area_slug_taken(get_session(), slug, area.id if area else None):
            form.slug.errors = [*form.slug.errors, _("Another area has this slug.")]
        else:
            target = areas_operations.save(
                current_unit_of_work(), area, form.data, slug=slug,
                base_version=form.base_version(), allowed=access.can_admin(current_viewer()),
            )  # fmt: skip
            flash(_("Saved the area %(name)s.", name=target.name), "success")
            return redirect(url_for("directory.admin_areas"))
    return _areas_page(area, areas, form, 400 if request.method == "POST" else 200)


@blueprint.route("/admin/areas/<int:area_id>/delete", methods=["POST"])
def admin_delete_area(area_id: int) -> Response:
    require_admin()
    area = taxonomy.area_by_id(get_session(), area_id)
    if area is None:
        abort(404)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    areas_operations.delete(
        current_unit_of_work(), area, allowed=access.can_admin(current_viewer())
    )
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
    form = admin_forms.RemindForm(formdata=None)
    return render_template(
        "directory/admin/stale.html",
        stale=stale,
        months=months,
        form=form,
        mail_configured=mail.is_configured(current_app.config),
    )


# ----------------------------------------------------------------------------- approvals


def _is_approver(viewer: Any) -> bool:
    return access.is_approver(viewer)


@blueprint.route("/approvals")
def approvals() -> str:
    viewer = current_viewer()
    if not viewer.is_authenticated or not _is_approver(viewer):
        abort(403)
    session = get_session()
    items = []
    for pending in admin_reads.approvable(session, viewer):
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
    pending = admin_reads.proposal(get_session(), pending_id)
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
    try:
        approvals_operations.approve(current_unit_of_work(), pending, form.reason.data)
    except CannotApply as refused:
        current_unit_of_work().rollback()
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
    approvals_operations.reject(current_unit_of_work(), pending, form.reason.data)
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
        try:
            person = people.claim_invitation(current_unit_of_work(), invitation)
        except InvitationUnusable as unusable:
            current_unit_of_work().rollback()
            return render_template("directory/claim.html", problem=str(unusable)), 409
        flash(_("Welcome, %(name)s: this is your profile now.", name=person.full_name), "success")
        return redirect(url_for("directory.me"))
    return render_template(
        "directory/claim.html",
        person=invitation.person,
        form=form,
        signed_in=viewer.is_authenticated,
    ), 400 if csrf_failed(form) else 200
