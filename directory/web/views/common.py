"""Request-wide pieces of the blueprint: template helpers, security headers, error pages."""

from __future__ import annotations

import json
import re
from contextlib import suppress
from datetime import date
from typing import Any
from urllib.parse import quote

from flask import (
    Response,
    abort,
    current_app,
    g,
    redirect,
    render_template,
    request,
    url_for,
)
from markupsafe import Markup, escape
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from directory import i18n, models
from directory.db import close_session
from directory.formats.markdown import render_inline, render_markdown
from directory.i18n import gettext as _
from directory.services.access import can_view
from directory.services.claims import evidence
from directory.services.department.recruiting import recruiting_summary
from directory.services.identity import ANONYMOUS, current_viewer
from directory.web.api.views import ApiError
from directory.web.blueprint import blueprint
from directory.web.csp import csp_nonce, response_policy
from directory.web.csrf import csrf_token


def month_year(year: int | None, month: int | None = None) -> str:
    """'Jul 2025', '2024年8月' or '2024' (the locale's abbreviated month and year)."""
    return i18n.format_month_year(year, month)


def date_range(entry: object) -> str:
    """'Aug 2021 – Jul 2025', '2023 – present' ('2023 – 至今')."""
    start = month_year(getattr(entry, "start_year", None), getattr(entry, "start_month", None))
    if getattr(entry, "is_current", False):
        end = _("present")
    else:
        end = month_year(getattr(entry, "end_year", None), getattr(entry, "end_month", None))
    if start and end and start != end:
        return f"{start} – {end}"
    return start or end


def long_date(day: date | None) -> str:
    """'March 7, 2026', '2026年3月7日': the locale's long date."""
    return i18n.format_long_date(day)


def vocabulary_label(vocabulary: tuple[tuple[str, str], ...], value: str | None) -> str:
    """The label of ``value`` in ``vocabulary``, in the current language."""
    return i18n.translate(models.label(vocabulary, value))


def obfuscated_email(email: str | None) -> Markup:
    """An address people can read and simple harvesters cannot: 'name at host dot edu',
    without a mailto link, with the parts in separate elements."""
    if not email or "@" not in email:
        return Markup("")
    user, _, host = email.partition("@")
    host_parts = Markup('<span class="obf-sep"> dot </span>').join(
        escape(p) for p in host.split(".")
    )
    return Markup('<span class="email-obf">{}<span class="obf-sep"> at </span>{}</span>').format(
        user, host_parts
    )


@blueprint.app_template_filter("directory_markdown")
def _markdown_filter(text: str | None) -> Markup:
    return render_markdown(text)


@blueprint.app_template_filter("directory_inline")
def _inline_filter(text: str | None) -> Markup:
    return render_inline(text)


def _department_name() -> str:
    return i18n.department_name()


def _can_view(obj: object) -> bool:
    """For templates: whether the current viewer may see ``obj`` (anything with a visibility),
    e.g. the target of a publication's relation, loaded without a visibility filter."""
    return can_view(current_viewer(), obj)


#: A value url_for puts in a URL as it is (no quoting): slugs and uids.
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9._~-]+")
_MARKER = "0directory-url-marker0"
#: The marker of a number (an ``int`` converter takes no text).
_NUMBER_MARKER = 9081726354


def item_url(
    endpoint: str, name: str, value: str | int, external: bool | None = None, **fixed: Any
) -> str:
    """``url_for(endpoint, **fixed, **{name: value}, _external=external)`` (None: url_for's
    default), built once per request for the endpoint and ``fixed`` arguments and pasted
    together for each value: a page links hundreds of authors and papers (its citations, and
    its JSON-LD with full addresses), the editor posts hundreds of buttons, and url_for
    costs microseconds each (a value that would need quoting goes through url_for)."""
    text = str(value)
    if not _PLAIN_VALUE.fullmatch(text):
        return url_for(endpoint, **fixed, **{name: value}, _external=external)
    templates = g.setdefault("directory_url_templates", {})
    # In the order given: url_for writes the query's arguments in that order.
    key = (endpoint, name, external, *fixed.items())
    parts = templates.get(key)
    if parts is None:
        marker = _NUMBER_MARKER if isinstance(value, int) else _MARKER
        marked = url_for(endpoint, **fixed, **{name: marker}, _external=external)
        parts = templates[key] = marked.split(str(marker))
        if len(parts) != 2:  # the marker came out changed: no shortcut for this endpoint
            parts = templates[key] = None
    if parts is None:
        return url_for(endpoint, **fixed, **{name: value}, _external=external)
    return parts[0] + text + parts[1]


def profile_url(slug: str) -> str:
    """The profile's URL (:func:`item_url`)."""
    return item_url("directory.profile", "slug", slug)


def paper_url(uid: str) -> str:
    """The paper's page's URL (:func:`item_url`)."""
    return item_url("directory.paper", "uid", uid)


def assets() -> Markup:
    """The directory's stylesheet, for the ``<head>`` of every page that shows directory
    content: the standalone base calls it, a host's layout calls it once (its rules only
    touch elements inside ``.directory``)."""
    href = url_for("directory.static", filename="directory.css")
    return Markup('<link rel="stylesheet" href="{}">').format(href)


@blueprint.record_once
def _template_globals(state) -> None:
    """Jinja globals (not context variables) so that imported macros see them too; all are
    prefixed ``directory_`` to stay out of the host's way."""
    state.app.jinja_env.globals.update(
        directory_viewer=current_viewer,
        directory_label=vocabulary_label,
        directory_recruiting_summary=recruiting_summary,
        directory_term_label=i18n.term_label,
        directory_vocab=models,
        directory_month_year=month_year,
        directory_date_range=date_range,
        directory_email=obfuscated_email,
        directory_department=_department_name,
        directory_today=date.today,
        directory_long_date=long_date,
        directory_can_view=_can_view,
        directory_assets=assets,
        directory_csrf_token=csrf_token,
        directory_name=i18n.html_name,
        directory_number=i18n.format_number,
        directory_short_date=i18n.format_short_date,
        directory_timestamp=i18n.format_timestamp,
        directory_languages=i18n.language_links,
        directory_default_language_url=i18n.default_language_url,
        directory_html_lang=i18n.html_lang,
        directory_translate=i18n.translate,
        directory_profile_url=profile_url,
        directory_item_url=item_url,
        directory_csp_nonce=csp_nonce,
        directory_paper_url=paper_url,
        directory_evidence_text=evidence.evidence_text,
        directory_source_name=evidence.source_name,
        directory_likely_score=evidence.LIKELY,
    )


def _is_directory_request() -> bool:
    """Whether the response belongs to the directory: one of its routes, or any URL under its
    prefix (a 404 for an unknown directory URL too). With the empty prefix only its routes."""
    if request.blueprint == blueprint.name:
        return True
    prefix = current_app.config["DIRECTORY_URL_PREFIX"].rstrip("/")
    return bool(prefix) and (request.path == prefix or request.path.startswith(prefix + "/"))


@blueprint.after_app_request
def _security_headers(response: Response) -> Response:
    config = current_app.config
    if config["DIRECTORY_SECURITY_HEADERS"] and _is_directory_request():
        response.headers.setdefault(
            "Content-Security-Policy", response_policy(config["DIRECTORY_CONTENT_SECURITY_POLICY"])
        )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "strict-origin-when-cross-origin")
        response.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
    return response


#: How long a language chosen with ``?lang=`` is remembered, in seconds (a year).
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600


@blueprint.after_app_request
def _remember_language(response: Response) -> Response:
    """On a standalone site, a language chosen with ``?lang=`` is remembered in a cookie, and
    pages say that they vary by the reader's language (shared caches keep one per language)."""
    if not _is_directory_request() or not i18n.owns_babel(current_app):
        return response
    if len(i18n.languages()) > 1:
        response.vary.update(("Accept-Language", "Cookie"))
    asked = i18n.match_language(request.args.get("lang"), i18n.languages())
    if asked and request.cookies.get(i18n.COOKIE) != asked:
        response.set_cookie(
            i18n.COOKIE,
            asked,
            max_age=LANGUAGE_COOKIE_AGE,
            path=(current_app.config["DIRECTORY_URL_PREFIX"].rstrip("/") or "/"),
            secure=request.is_secure,
            httponly=True,
            samesite="Lax",
        )
    return response


@blueprint.url_value_preprocessor
def _refuse_nul_in_path(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """A NUL byte in a URL's slug or uid names nothing (PostgreSQL refuses it in any text
    parameter: without this, ``/people/%00`` was a server error there)."""
    if any(isinstance(value, str) and "\x00" in value for value in (values or {}).values()):
        if endpoint and endpoint.startswith("directory.api_"):
            raise ApiError(404, "there is no such thing")
        abort(404)


@blueprint.errorhandler(404)
def _not_found(error: Exception) -> tuple[str, int]:
    return render_template("directory/errors/404.html"), 404


@blueprint.errorhandler(403)
def _forbidden(error: Exception) -> Response | tuple[str, int]:
    """A refusal. Someone not signed in is sent to sign in first (the built-in login, or the
    host's DIRECTORY_LOGIN_URL) when the request was a plain page view."""
    if not current_viewer().is_authenticated and request.method == "GET":
        target = request.full_path.rstrip("?")
        if current_app.config["DIRECTORY_BUILTIN_LOGIN"]:
            return redirect(url_for("directory.login", next=target))
        login_url = current_app.config["DIRECTORY_LOGIN_URL"]
        if login_url:
            return redirect(login_url.replace("{next}", quote(target, safe="")))
    return render_template("directory/errors/403.html"), 403


#: Seconds a client is asked to wait before retrying while the database is unreachable.
RETRY_AFTER_SECONDS = 30

_UNAVAILABLE_FALLBACK = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Temporarily unavailable</title>"
    "<h1>The directory is temporarily unavailable</h1><p>Please try again in a minute.</p></html>"
)


def wants_json() -> bool:
    """Whether the client of this request expects JSON: API paths, or an Accept header that
    prefers JSON to HTML."""
    prefix = current_app.config["DIRECTORY_URL_PREFIX"].rstrip("/")
    if request.path.startswith(f"{prefix}/api/"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


#: SQLite reports a broken schema as an OperationalError too; that is a bug or a missing
#: migration (a 500), not an outage.
_SCHEMA_ERRORS = ("no such table", "no such column", "syntax error")


@blueprint.errorhandler(OperationalError)
@blueprint.errorhandler(PoolTimeoutError)
def _database_unavailable(error: Exception) -> Response:
    """The database is unreachable (down, restarting, network, locked, pool exhausted): a 503
    the client may retry, never a 500. The session is discarded so that the next request starts
    afresh on a new connection; no restart is needed once the database is back."""
    if any(text in str(error).lower() for text in _SCHEMA_ERRORS):
        raise error
    current_app.logger.error("Directory database unavailable: %s", error)
    with suppress(Exception):  # the connection is already broken; there is nothing to keep
        close_session()
    if wants_json():
        # The API's error shape: an RFC 9457 problem details document.
        response = Response(
            json.dumps(
                {
                    "type": "about:blank",
                    "title": "Service Unavailable",
                    "status": 503,
                    "detail": "The directory's database is unavailable; retry later.",
                }
            ),
            mimetype="application/problem+json",
        )
    else:
        # The page must not need the database: the viewer is not looked up again.
        g._directory_viewer = ANONYMOUS
        try:
            response = Response(render_template("directory/errors/503.html"))
        except Exception:  # noqa: BLE001 - a host layout that itself needs the database
            current_app.logger.exception("The 503 page could not be rendered")
            response = Response(_UNAVAILABLE_FALLBACK)
    response.status_code = 503
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response.headers["Cache-Control"] = "no-store"
    return response
