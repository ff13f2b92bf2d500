"""Onboarding and keeping people current: the CSV upload of people with its preview, the
invitation and reminder e-mails, publishing an unlisted profile, and the "still current"
link of a reminder, which works without signing in."""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, date, datetime
from typing import Any

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from directory.db import get_session
from directory.i18n import gettext as _
from directory.i18n import ngettext
from directory.services import access, mail
from directory.services.changes import SAVED
from directory.services.identity import current_viewer
from directory.services.onboarding import (
    OnboardingPlan,
    onboard,
    plan_onboarding,
)
from directory.services.operations import people
from directory.services.reminders import (
    LinkUnusable,
    confirm_by_link,
    currency,
    reminder_for,
    send_reminders,
)
from directory.services.unit_of_work import current_unit_of_work
from directory.web import admin_forms, forms
from directory.web.blueprint import blueprint
from directory.web.committing import AfterCommit
from directory.web.csrf import csrf_failed
from directory.web.mails import reminder_mail, send_invitations
from directory.web.outcomes import flash_outcome
from directory.web.views.admin import person_or_404, require_admin, stale_report


def _limits() -> dict[str, int]:
    config = current_app.config
    return {
        "max_bytes": config["DIRECTORY_ONBOARDING_MAX_BYTES"],
        "max_rows": config["DIRECTORY_ONBOARDING_MAX_ROWS"],
    }


def _preview(
    plan: OnboardingPlan, form: Any, status: int = 200, changed: bool = False
) -> tuple[str, int]:
    return (
        render_template(
            "directory/admin/import_preview.html",
            plan=plan,
            form=form,
            changed=changed,
            mail_configured=mail.is_configured(current_app.config),
            unlisted=current_app.config["DIRECTORY_NEW_PROFILES_UNLISTED"],
        ),
        status,
    )


@blueprint.route("/admin/people/import", methods=["GET", "POST"])
def admin_import_people() -> Any:
    """Upload a CSV file of people: the preview shows what each row becomes, its problems
    next to it; nothing is written until the preview is confirmed."""
    require_admin()
    form = admin_forms.OnboardingUploadForm()
    upload_page = {"form": form, **_limits()}
    if not form.validate_on_submit():
        status = 400 if request.method == "POST" else 200
        return render_template("directory/admin/import.html", **upload_page), status
    upload = form.people_file.data
    # One byte more than the limit is enough to know the file is too large.
    data = upload.stream.read(_limits()["max_bytes"] + 1)
    plan = plan_onboarding(get_session(), data, upload.filename or None, **_limits())
    if plan.problems:
        form.people_file.errors = list(plan.problems)
        return render_template("directory/admin/import.html", **upload_page), 400
    confirm = admin_forms.OnboardingConfirmForm(formdata=None)
    # The file's bytes as they came, so that confirming checks exactly what was previewed
    # (base64: a row's control characters would otherwise make the hidden field refused).
    confirm.source.data = base64.b64encode(data).decode("ascii")
    confirm.filename.data = plan.filename or ""
    confirm.lines.data = plan.valid_lines
    return _preview(plan, confirm)


@blueprint.route("/admin/people/import/confirm", methods=["POST"])
def admin_import_confirm() -> Any:
    """Write the previewed people (the file is checked again first: if the directory changed
    so that other rows would be written, the new preview is shown and nothing written)."""
    require_admin()
    form = admin_forms.OnboardingConfirmForm()
    if not form.validate_on_submit():
        abort(400)
    try:
        source = base64.b64decode(form.source.data or "", validate=True)
    except (binascii.Error, ValueError):  # not base64, or not even ASCII
        abort(400)
    plan = plan_onboarding(get_session(), source, form.filename.data or None, **_limits())
    if plan.problems or not plan.valid:
        return _preview(plan, form, 400)
    if plan.valid_lines != form.lines.data:
        form.lines.data = plan.valid_lines
        return _preview(plan, form, 409, changed=True)
    config = current_app.config
    days = config["DIRECTORY_INVITATION_DAYS"]
    uow = current_unit_of_work()
    done = onboard(uow, plan, invitation_days=days,
                   unlisted=config["DIRECTORY_NEW_PROFILES_UNLISTED"])  # fmt: skip
    links = {o.person.id: url_for("directory.claim_profile", token=o.token, _external=True)
             for o in done}  # fmt: skip
    outcome = (send_invitations([o.person for o in done], links, days)
               if form.send_invitations.data else lambda: ({}, None))  # fmt: skip

    def page() -> str:  # once the invitations are committed and their e-mails sent
        sent, mail_problem = outcome()
        return render_template(
            "directory/admin/import_done.html",
            plan=plan, done=done, links=links, sent=sent, mail_problem=mail_problem,
            asked_to_send=form.send_invitations.data, days=days,
        )  # fmt: skip

    return AfterCommit(page)


# ----------------------------------------------------------------------------- publishing


@blueprint.route("/people/<slug>/publish", methods=["POST"])
def publish_profile(slug: str) -> Response:
    """List an unlisted profile (the owner's "Publish my profile", or an admin's), or take a
    published one back off the lists (``listed=0``)."""
    viewer = current_viewer()
    if not viewer.is_authenticated:
        abort(403)
    person = person_or_404(slug)
    if not access.person_visible(viewer, person):
        abort(404)
    if not access.can_publish(viewer, person):
        abort(403)
    if not forms.ActionForm().validate_on_submit():
        abort(400)
    listed = request.form.get("listed", "1") != "0"
    outcome = people.set_published(current_unit_of_work(), person, listed)
    if outcome == SAVED:
        own = viewer.person_id == person.id
        if own:
            message = (
                _("Your profile is published: the department lists it now.")
                if listed
                else _("Your profile is unlisted: only its owner and admins see it.")
            )
        elif listed:
            message = _(
                "The profile of %(name)s is published: the department lists it now.",
                name=person.full_name,
            )
        else:
            message = _(
                "The profile of %(name)s is unlisted: only its owner and admins see it.",
                name=person.full_name,
            )
        flash(message, "success")
    else:
        flash_outcome(outcome)
    back = request.form.get("next", "")
    if back.startswith("/") and not back.startswith("//"):
        return redirect(back)
    return redirect(url_for("directory.me") if viewer.person_id == person.id
                    else url_for("directory.admin_person", slug=person.slug))  # fmt: skip


# ----------------------------------------------------------------------------- reminders


@blueprint.route("/admin/stale/remind", methods=["POST"])
def admin_remind() -> Any:
    """Send a reminder e-mail to each person chosen on the stale report."""
    require_admin()
    session = get_session()
    stale, months = stale_report()
    form = admin_forms.RemindForm()
    form.people.choices = forms.options((c.person.id, c.person.full_name)
                                        for c in stale if c.person.email)  # fmt: skip
    if not form.validate_on_submit():
        if csrf_failed(form):
            abort(400)
        return _stale_page(stale, months, form, 400)
    chosen = set(form.people.data)
    reminded = [c.person for c in currency(session, chosen)]
    try:
        run = send_reminders(current_unit_of_work(), current_app.config, reminded,
                             reminder_mail)  # fmt: skip
    except mail.MailNotConfigured as problem:
        # Nothing was recorded: the error page rolls the request back.
        form.people.errors = [str(problem)]
        return _stale_page(stale, months, form, 400)
    # The e-mails go once the reminders are committed; then the report of what was sent.
    return AfterCommit(lambda: _reminded(run, stale, months, form))


def _reminded(run: Any, stale: Any, months: int, form: Any) -> Any:
    if run.failure is not None:  # no message went: no reminder was kept
        form.people.errors = [run.failure]
        return _stale_page(stale, months, form, 503)
    sent = [r.person.full_name for r in run.results if r.problem is None]
    failed = [f"{r.person.full_name} ({r.problem})" for r in run.results if r.problem is not None]
    if sent:
        flash(
            ngettext(
                "Reminder sent to %(num)s person: %(names)s.",
                "Reminder sent to %(num)s people: %(names)s.",
                len(sent),
                names=", ".join(sent),
            ),
            "success",
        )
    if failed:
        flash(_("Not sent to: %(names)s.", names="; ".join(failed)), "error")
    return redirect(url_for("directory.admin_stale"))


def _stale_page(stale: list[Any], months: int, form: Any, status: int = 200) -> tuple[str, int]:
    return (
        render_template(
            "directory/admin/stale.html",
            stale=stale,
            months=months,
            form=form,
            mail_configured=mail.is_configured(current_app.config),
        ),
        status,
    )


@blueprint.route("/current/<token>", methods=["GET", "POST"])
def still_current(token: str) -> Any:
    """The "still current" link of a reminder e-mail. Opening it changes nothing: the page
    asks for one click (a POST with its CSRF token), which confirms the profile without
    signing in; an expired, used or altered link gets a page saying so."""
    session = get_session()
    config = current_app.config
    try:
        reminder = reminder_for(session, config["SECRET_KEY"], token,
                                config["DIRECTORY_REMINDER_LINK_DAYS"])  # fmt: skip
    except LinkUnusable as unusable:
        return render_template("directory/still_current.html", problem=str(unusable)), 410
    form = forms.ActionForm()
    if form.validate_on_submit():
        confirm_by_link(current_unit_of_work(), reminder, date.today())
        return render_template("directory/still_current.html", person=reminder.person,
                               done=True, when=datetime.now(UTC))  # fmt: skip
    return render_template(
        "directory/still_current.html", person=reminder.person, form=form
    ), 400 if csrf_failed(form) else 200
