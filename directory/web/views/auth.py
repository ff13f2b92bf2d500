"""The built-in sign-in of the standalone site: ``<prefix>/login`` and ``<prefix>/logout``.

Both answer 404 unless DIRECTORY_BUILTIN_LOGIN is on; a host site signs people in itself.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from urllib.parse import urlsplit

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from flask import session as cookie  # the signed cookie, not the database's
from werkzeug.wrappers import Response
from wtforms import BooleanField, PasswordField, StringField
from wtforms.validators import InputRequired, Length

from directory.db import get_session
from directory.i18n import gettext as _
from directory.i18n import lazy_gettext as _l
from directory.services.accounts import (
    bound_person_id,
    end_session,
    end_sessions,
    sign_in,
    start_session,
)
from directory.services.identity import (
    BUILTIN_GENERATION_KEY,
    BUILTIN_SESSION_KEY,
    BUILTIN_TOKEN_KEY,
    current_viewer,
)
from directory.web.blueprint import blueprint
from directory.web.csrf import DirectoryForm, csrf_failed


class LoginForm(DirectoryForm):
    username = StringField(_l("Username"), validators=[InputRequired(), Length(max=254)])
    password = PasswordField(_l("Password"), validators=[InputRequired(), Length(max=1024)])


class SignOutForm(DirectoryForm):
    """Signing out is a POST with a CSRF token, so that no other site can sign a visitor out.
    Its button ends this session; a second one, ``everywhere``, ends all of the account's."""

    everywhere = BooleanField()


def safe_next(target: str | None) -> str | None:
    """``target`` if it is a path on this site, else None (no open redirects)."""
    if not target or "\\" in target or any(ord(ch) < 32 for ch in target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    return target


def landing_page(username: str) -> str:
    """Where a sign-in without a (safe) ``next`` lands: the signed-in person's own editor,
    ``/me``, when a profile is bound to the account; else the people listing."""
    bound = bound_person_id(get_session(), username)
    return url_for("directory.me") if bound is not None else url_for("directory.index")


def _require_builtin_login() -> None:
    if not current_app.config["DIRECTORY_BUILTIN_LOGIN"]:
        abort(404)


def _minutes_until(moment: datetime) -> int:
    return max(1, math.ceil((moment - datetime.now(UTC)).total_seconds() / 60))


@blueprint.route("/login", methods=["GET", "POST"])
def login() -> Response | tuple[str, int]:
    _require_builtin_login()
    next_url = safe_next(request.args.get("next"))
    form = LoginForm()
    problem = None
    if form.validate_on_submit():
        outcome = sign_in(form.username.data, form.password.data, request.remote_addr or "")
        # The unit of work commits the failure count as well as a successful sign-in.
        if outcome.ok:
            # A fresh session: nothing from before signing in (a planted session included)
            # carries over.
            cookie.clear()
            cookie[BUILTIN_SESSION_KEY] = outcome.account.username
            cookie[BUILTIN_GENERATION_KEY] = outcome.account.session_generation
            cookie[BUILTIN_TOKEN_KEY] = start_session(outcome.account)
            flash(_("You are signed in."), "success")
            return redirect(next_url or landing_page(outcome.account.username))
        if outcome.locked_until is not None:
            minutes = _minutes_until(outcome.locked_until)
            problem = (
                "Too many failed sign-ins. "
                f"Try again in {minutes} minute{'s' if minutes != 1 else ''}."
            )
        else:
            problem = _("Wrong username or password.")
    elif csrf_failed(form):
        problem = _("This form had expired or did not come from this site. Please sign in again.")
    status = 400 if csrf_failed(form) else 200
    return render_template(
        "directory/login.html", form=form, next_url=next_url, problem=problem
    ), status


@blueprint.route("/logout", methods=["GET", "POST"])
def logout() -> Response | tuple[str, int]:
    _require_builtin_login()
    form = SignOutForm()
    if form.validate_on_submit():
        # Ended on the server too: a copy of the cookie taken before no longer signs in.
        # This session only (the account's others go on), unless asked for all of them.
        if form.everywhere.data:
            end_sessions(cookie.get(BUILTIN_SESSION_KEY))
            message = _("You are signed out of all your sessions, on every device.")
        else:
            end_session(cookie.get(BUILTIN_TOKEN_KEY))
            message = _("You are signed out.")
        cookie.clear()
        flash(message, "success")
        return redirect(url_for("directory.index"))
    # GET (or an expired token): a page with the button, which works without JavaScript.
    status = 400 if csrf_failed(form) else 200
    return render_template("directory/logout.html", form=form, viewer=current_viewer()), status
