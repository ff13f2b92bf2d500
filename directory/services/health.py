"""Is this host's directory set up right? The checks behind ``flask directory check`` and the
start-up check of ``Directory(app)``, in one place.

Each check gives :class:`Finding` lines: ``ok`` with what was found, or the fix to make.
:func:`configuration_findings` (settings, identity settings, route collisions) needs no
database and runs at start-up, where a problem stops the app (:func:`raise_on_problems`);
:func:`run_checks` adds the database, the migrations, the identity source resolving a user,
the security headers and the search index.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any

from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask import Flask, session, url_for
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

from directory import config as settings
from directory import i18n, migrate
from directory.formats.csp import blocked_inline_code, inline_allowed
from directory.i18n import command_request_context, translate
from directory.i18n import gettext as _
from directory.services import search, search_index
from directory.services.expertise import model as expertise_model
from directory.services.expertise import vectors as expertise_vectors
from directory.services.identity import (
    IdentityAttributeMissing,
    host_user,
    key_from_user,
    settings_problems,
)

BLUEPRINT = "directory"
SECURITY_HEADERS = (
    "Content-Security-Policy",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "X-Frame-Options",
)


@dataclass(frozen=True)
class Finding:
    """One line of the check: which check, whether it passed, and what it found or the fix."""

    check: str
    ok: bool
    message: str
    #: Passed, but something may not work as the host meant (the exit status stays 0).
    warning: bool = False

    def line(self) -> str:
        label = "PROBLEM" if not self.ok else "WARNING" if self.warning else "ok"
        return f"{label}  {self.check}: {self.message}"


class DirectoryConfigError(ValueError):
    """The host's configuration cannot work; the message lists every problem and its fix."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        lines = "\n".join(f"  - {f.check}: {f.message}" for f in findings)
        super().__init__(
            _(
                "The faculty directory is misconfigured (%(count)s problem(s)):\n%(lines)s\n"
                "Run `flask directory check` after fixing them.",
                count=len(findings),
                lines=lines,
            )
        )


def _ok(check: str, message: str) -> Finding:
    return Finding(check, True, message)


def _problem(check: str, message: str) -> Finding:
    return Finding(check, False, message)


# ----------------------------------------------------------------------------- settings

#: Settings whose default is None: the types a value may have besides None.
_OPTIONAL_TEXT = {
    "DIRECTORY_DATABASE_URL",
    "DIRECTORY_ADMIN_ROLE",
    "DIRECTORY_CHAIR_ROLE",
    "DIRECTORY_REMOTE_ROLES_VARIABLE",
    "DIRECTORY_LOGIN_URL",
    "DIRECTORY_MAIL_SERVER",
    "DIRECTORY_MAIL_USERNAME",
    "DIRECTORY_MAIL_PASSWORD",
    "DIRECTORY_MAIL_SENDER",
}
#: Counts that may be 0 (0 turns the feature off); every other number must be positive.
_MAY_BE_ZERO = {"DIRECTORY_CACHE_SECONDS"}


def _value_problem(name: str, value: Any, default: Any) -> str | None:
    """Why ``value`` cannot work for the setting ``name`` (None: it can)."""
    if name in _OPTIONAL_TEXT:
        return None if value is None or isinstance(value, str) else _("must be a string or None")
    own_check = _OWN_CHECKS.get(name)
    if own_check is not None:
        return own_check(value)
    return _type_problem(name, value, default)


def _cache_url_problem(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith(("redis://", "rediss://", "unix://")):
        return _("must be None or a Redis URL (redis://host:port/db)")
    if importlib.util.find_spec("redis") is None:
        return _("needs the redis package (the redis extra)")
    return None


def _engine_problem(value: Any) -> str | None:
    ok = value is None or isinstance(value, Engine) or callable(value)
    return None if ok else _("must be a SQLAlchemy Engine, a function returning one, or None")


def _identity_callable_problem(value: Any) -> str | None:
    return None if value is None or callable(value) else _("must be a function or None")


def _admins_problem(value: Any) -> str | None:
    if isinstance(value, str):
        # `key in "chair"` would make "ch" an admin.
        return _("is a string; give a list of identity keys, e.g. [%(value)r]", value=value)
    ok = value is None or callable(value) or isinstance(value, list | tuple | set | frozenset)
    return None if ok else _("must be a list of identity keys, a function or None")


def _start_month_problem(value: Any) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 12
    return None if ok else _("must be a month's number, 1 to 12")


def _venue_areas_problem(value: Any) -> str | None:
    ok = isinstance(value, dict) and all(
        isinstance(area, str)
        and isinstance(venues, list | tuple)
        and all(isinstance(v, str) for v in venues)
        for area, venues in value.items()
    )
    return None if ok else _("must map each area's name to a list of venues' short names")


#: Settings whose values are checked by their own rule, not by their default's type.
_OWN_CHECKS: dict[str, Callable[[Any], str | None]] = {
    "DIRECTORY_CACHE_URL": _cache_url_problem,
    "DIRECTORY_ENGINE": _engine_problem,
    "DIRECTORY_IDENTITY_CALLABLE": _identity_callable_problem,
    "DIRECTORY_ADMINS": _admins_problem,
    "DIRECTORY_CHAIRS": _admins_problem,
    "DIRECTORY_ACADEMIC_YEAR_START_MONTH": _start_month_problem,
    "DIRECTORY_VENUE_AREAS": _venue_areas_problem,
}


def _type_problem(name: str, value: Any, default: Any) -> str | None:
    """Why ``value`` is not of the kind of the setting's ``default`` (None: it is)."""
    if isinstance(default, bool):
        return None if isinstance(value, bool) else _("must be True or False")
    if isinstance(default, int):
        return _count_problem(name, value)
    if isinstance(default, str):
        return None if isinstance(value, str) else _("must be a string")
    if isinstance(default, list):
        ok = isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
        return None if ok else _("must be a list of strings")
    if isinstance(default, dict):
        return None if isinstance(value, dict) else _("must be a dict")
    return None


def _count_problem(name: str, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return _("must be a whole number")
    if value < 0 or (value == 0 and name not in _MAY_BE_ZERO):
        return _("must be a positive number") if name not in _MAY_BE_ZERO else _("must be >= 0")
    return None


def setting_findings(config: dict[str, Any]) -> list[Finding]:
    """Unknown ``DIRECTORY_*`` keys (with a did-you-mean), values of the wrong kind, identity
    settings that cannot work."""
    known = settings.defaults()
    found = []
    for name in sorted(key for key in config if key.startswith("DIRECTORY_")):
        if name not in known:
            close = get_close_matches(name, list(known), n=1)
            if close:
                message = _(
                    "unknown setting %(name)s; did you mean %(close)s? (remove or rename it)",
                    name=name,
                    close=close[0],
                )
            else:
                message = _("unknown setting %(name)s (remove or rename it)", name=name)
            found.append(_problem("settings", message))
            continue
        problem = _value_problem(name, config[name], known[name])
        if problem:
            message = _(
                "%(name)s %(problem)s (got %(value)r)",
                name=name,
                problem=problem,
                value=config[name],
            )
            found.append(_problem("settings", message))
    found.extend(_problem("identity", message) for message in settings_problems(config))
    found.extend(_problem("languages", message) for message in language_problems(config))
    if not found:
        found.append(_ok("settings", _("%(count)s settings known and valid", count=len(known))))
    return found


def language_problems(config: dict[str, Any]) -> list[str]:
    """What is wrong with DIRECTORY_LANGUAGES: empty, not a list of locale identifiers, or a
    language the directory has no catalogue for."""
    languages = config.get("DIRECTORY_LANGUAGES", settings.DIRECTORY_LANGUAGES)
    if not isinstance(languages, list | tuple) or not languages:
        return [_("DIRECTORY_LANGUAGES must list at least one language, e.g. ['en', 'zh_Hans']")]
    shipped = i18n.available_locales()
    problems = []
    for language in languages:
        if not isinstance(language, str) or language not in shipped:
            close = get_close_matches(str(language), shipped, n=1)
            hint = _("; did you mean %(close)r?", close=close[0]) if close else ""
            problems.append(
                _(
                    "DIRECTORY_LANGUAGES names %(language)r, which has no catalogue%(hint)s "
                    "(available: %(available)s; see docs/translating.md to add one)",
                    language=language,
                    hint=hint,
                    available=", ".join(shipped),
                )
            )
    if len(set(map(str, languages))) != len(languages):
        problems.append(_("DIRECTORY_LANGUAGES names a language twice"))
    return problems


# ----------------------------------------------------------------------------- routes


#: A variable part of a rule: ``<name>``, ``<int:name>``, ``<any(a, b):name>``.
_VARIABLE = re.compile(r"<(?:([a-zA-Z_][a-zA-Z0-9_]*)(\([^)]*\))?:)?[a-zA-Z_][a-zA-Z0-9_]*>")


def _shape(rule: Any) -> str:
    """A rule's path with the variable names left out: ``/people/<slug>`` and
    ``/people/<name>`` match the same URLs, so they collide."""
    return _VARIABLE.sub(lambda m: f"<{m.group(1) or 'default'}{m.group(2) or ''}>", rule.rule)


def _shape_key(rule: Any) -> tuple[str, str, str]:
    return (rule.subdomain or "", rule.host or "", _shape(rule))


def route_findings(app: Flask) -> list[Finding]:
    """Routes of the host that match the same URLs (and methods) as one of the directory's:
    Flask would silently send them to whichever was registered first."""
    ours: dict[tuple[str, str, str], list[Any]] = {}
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith(f"{BLUEPRINT}."):
            ours.setdefault(_shape_key(rule), []).append(rule)
    found = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith(f"{BLUEPRINT}."):
            continue
        for mine in ours.get(_shape_key(rule), []):
            methods = (rule.methods or set()) & (mine.methods or set()) - {"HEAD", "OPTIONS"}
            if methods:
                found.append(
                    _problem(
                        "routes",
                        _(
                            "the host's %(rule)s (%(endpoint)s) and the directory's %(ours)s "
                            "(%(our_endpoint)s) answer the same URL; move the directory with "
                            "DIRECTORY_URL_PREFIX or the host's route elsewhere",
                            rule=rule.rule,
                            endpoint=rule.endpoint,
                            ours=mine.rule,
                            our_endpoint=mine.endpoint,
                        ),
                    )
                )
    if not found:
        count = sum(len(rules) for rules in ours.values())
        found.append(
            _ok("routes", _("%(count)s directory routes, none shared with the host", count=count))
        )
    return found


def configuration_findings(app: Flask) -> list[Finding]:
    """What start-up checks: settings and routes (no database needed)."""
    return setting_findings(app.config) + route_findings(app)


def raise_on_problems(findings: Iterable[Finding]) -> None:
    """Stop the app with every problem found, loudly, rather than run misconfigured."""
    problems = [finding for finding in findings if not finding.ok]
    if problems:
        raise DirectoryConfigError(problems)


# ----------------------------------------------------------------------------- the database


def _engine(app: Flask) -> Engine:
    return app.extensions["directory"].db.engine


def database_findings(app: Flask) -> list[Finding]:
    """Reachable, and migrated to the head of the directory's lineage."""
    try:
        engine = _engine(app)
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            current = set(
                MigrationContext.configure(
                    conn, opts={"version_table": migrate.VERSION_TABLE}
                ).get_current_heads()
            )
    except (SQLAlchemyError, OSError) as error:
        reason = str(error).strip().splitlines()[0]
        return [
            _problem(
                "database",
                _(
                    "cannot reach %(url)s: %(reason)s (check DIRECTORY_DATABASE_URL or "
                    "DIRECTORY_ENGINE, and that the server is up)",
                    url=_safe_url(app),
                    reason=reason,
                ),
            )
        ]
    found = [_ok("database", _("reachable (%(dialect)s)", dialect=engine.dialect.name))]
    script = ScriptDirectory.from_config(migrate.alembic_config(engine))
    heads = set(script.get_heads())
    if current == heads:
        found.append(_ok("migrations", _("at head (%(heads)s)", heads=", ".join(sorted(heads)))))
    else:
        at = ", ".join(sorted(current)) or _("none (no directory tables)")
        found.append(
            _problem(
                "migrations",
                _(
                    "at %(at)s, head is %(heads)s: run `flask directory db upgrade`",
                    at=at,
                    heads=", ".join(sorted(heads)),
                ),
            )
        )
    return found


def _safe_url(app: Flask) -> str:
    try:
        return _engine(app).url.render_as_string(hide_password=True)
    except (SQLAlchemyError, OSError, ValueError):
        return "the directory's database"


def search_findings(app: Flask) -> list[Finding]:
    """The search index holds a document for every person, publication and notice, and each
    says what the object says now."""
    with app.app_context():
        session = app.extensions["directory"].db.new_session()
        try:
            drift = search_index.out_of_step(session)
        finally:
            session.close()
    if not drift:
        return [_ok("search", _("index in step with the data"))]
    what = ", ".join(
        f"{count} {translate(search.KIND_NOUNS[kind])}" for kind, count in drift.items()
    )
    message = _("index out of step (%(what)s): run `flask directory reindex`", what=what)
    return [_problem("search", message)]


def expertise_findings(app: Flask) -> list[Finding]:
    """Which way people are ranked by what they work on (docs/search.md): by keywords and
    meaning, with the model of the optional extra ``expertise``, or by keywords alone; and
    whether the stored vectors say what the papers and profiles say now."""
    if not expertise_model.available():
        return [
            _ok(
                "expertise",
                _(
                    "keyword mode: people are ranked by keywords only (install the extra "
                    "`expertise` for ranking by meaning too)"
                ),
            )
        ]
    with app.app_context():
        session = app.extensions["directory"].db.new_session()
        try:
            drift = expertise_vectors.out_of_step(session)
        finally:
            session.close()
    mode = _("hybrid mode: keywords and meaning (%(model)s)", model=expertise_model.MODEL_NAME)
    if not drift:
        return [_ok("expertise", _("%(mode)s; vectors in step", mode=mode))]
    what = ", ".join(f"{count} {kind}" for kind, count in drift.items())
    message = _(
        "%(mode)s; vectors out of step (%(what)s): run `flask directory reindex`",
        mode=mode,
        what=what,
    )
    return [_problem("expertise", message)]


# ----------------------------------------------------------------------------- identity, headers


def identity_findings(app: Flask, signed_in: dict[str, Any] | None) -> list[Finding]:
    """The identity source gives a key for a real user of the host.

    For the ``flask_login`` and ``g`` sources, ``signed_in`` is what the host's session holds
    for a signed-in user (Flask-Login: ``{"_user_id": "1"}``; the Flask tutorial:
    ``{"user_id": 1}``): the host's own ``before_request`` functions load the user from it,
    and the check reads DIRECTORY_IDENTITY_ATTRIBUTE from that user."""
    config = app.config
    source = config["DIRECTORY_IDENTITY_SOURCE"]
    attribute = config["DIRECTORY_IDENTITY_ATTRIBUTE"]
    if settings_problems(config):
        return []  # already reported by the settings check
    if source == "flask_login" and getattr(app, "login_manager", None) is None:
        return [
            _problem(
                "identity",
                _(
                    'DIRECTORY_IDENTITY_SOURCE = "flask_login", but the app has no '
                    "LoginManager: call login_manager.init_app(app)"
                ),
            )
        ]
    if source in ("flask_login", "g"):
        if not signed_in:
            return [
                _ok(
                    "identity",
                    _(
                        "source %(source)r (not tried with a user: give --session, e.g. "
                        "--session _user_id=1 for Flask-Login; a user without %(attribute)r "
                        "is refused on its first request anyway)",
                        source=source,
                        attribute=attribute,
                    ),
                )
            ]
        with command_request_context(app):
            session.update(signed_in)
            app.preprocess_request()
            user = host_user()
            try:
                key = key_from_user(user, attribute)
            except IdentityAttributeMissing as error:
                return [_problem("identity", str(error))]
        if key is None:
            return [
                _problem(
                    "identity",
                    _(
                        "nobody is signed in with the session %(session)r (source "
                        "%(source)r), or their %(attribute)r is empty: check --session",
                        session=signed_in,
                        source=source,
                        attribute=attribute,
                    ),
                )
            ]
        message = _("source %(source)r: the test user's key is %(key)r", source=source, key=key)
        return [_ok("identity", message)]
    if source == "callable":
        with command_request_context(app):
            try:
                value = config["DIRECTORY_IDENTITY_CALLABLE"]()
            except Exception as error:  # noqa: BLE001 - the host's function, reported as is
                message = _("DIRECTORY_IDENTITY_CALLABLE raised %(error)r", error=error)
                return [_problem("identity", message)]
        if value is not None and not isinstance(value, str):
            return [
                _problem(
                    "identity",
                    _(
                        "DIRECTORY_IDENTITY_CALLABLE returned %(type)s; it must return the key "
                        "as a string, or None",
                        type=type(value).__name__,
                    ),
                )
            ]
        return [_ok("identity", _("source 'callable' answers for an anonymous request"))]
    return [_ok("identity", _("source %(source)r", source=source))]


def header_findings(app: Flask) -> list[Finding]:
    """The directory's index page carries the security headers (the plugin's own, or the
    host's when it turned DIRECTORY_SECURITY_HEADERS off)."""
    with command_request_context(app):
        path = url_for(f"{BLUEPRINT}.index")
    try:
        response = app.test_client().get(path)
    except Exception as error:  # noqa: BLE001 - reported as the check's finding
        message = _(
            "%(path)s failed: %(type)s: %(error)s",
            path=path,
            type=type(error).__name__,
            error=error,
        )
        return [_problem("headers", message)]
    missing = [name for name in SECURITY_HEADERS if name not in response.headers]
    if response.status_code != 200:
        message = _("%(path)s answered %(status)s, not 200", path=path, status=response.status_code)
        return [_problem("headers", message)]
    if missing:
        fix = (
            _("the host turned DIRECTORY_SECURITY_HEADERS off: set them in the host or turn it on")
            if not app.config["DIRECTORY_SECURITY_HEADERS"]
            else _("something removes them after the directory sets them")
        )
        message = _(
            "%(path)s lacks %(missing)s: %(fix)s", path=path, missing=", ".join(missing), fix=fix
        )
        return [_problem("headers", message)]
    sends = _("%(path)s sends %(headers)s", path=path, headers=", ".join(SECURITY_HEADERS))
    return [_ok("headers", sends), *layout_findings(path, response)]


#: How many pieces of blocked inline code the check names (then "and N more").
_NAMED_INLINE = 5


def layout_findings(path: str, response: Any) -> list[Finding]:
    """The host's layout around a directory page, read as a browser under the page's policy
    would run it: inline ``<script>``/``<style>`` without the response's nonce (and event
    handlers, which no nonce allows) are blocked there, which is a warning."""
    policy = response.headers.get("Content-Security-Policy", "")
    found = re.search(r"'nonce-([^']+)'", policy)
    nonce = found.group(1) if found else None
    blocked = [
        code
        for code in blocked_inline_code(response.get_data(as_text=True), nonce)
        if not inline_allowed(policy, code.what)
    ]
    if not blocked:
        return [_ok("layout", _("%(path)s: no inline code the policy blocks", path=path))]
    named = ", ".join(
        _("%(what)s on line %(line)s", what=code.what, line=code.line)
        for code in blocked[:_NAMED_INLINE]
    )
    more = len(blocked) - _NAMED_INLINE
    if more > 0:
        named += " " + _("and %(count)s more", count=more)
    message = _(
        "%(path)s renders inline code the Content-Security-Policy blocks: %(named)s. Give each "
        '<script> and <style> nonce="{{ directory_csp_nonce() }}", move event handlers '
        "(onclick=…) into a script file, or see docs/embedding.md (security headers)",
        path=path,
        named=named,
    )
    return [Finding("layout", True, message, warning=True)]


def run_checks(app: Flask, signed_in: dict[str, Any] | None = None) -> list[Finding]:
    """Every check, in the order a host fixes things: settings and routes, then the database;
    pages and the index only once the database is at head."""
    found = configuration_findings(app)
    database = database_findings(app)
    found += database
    found += identity_findings(app, signed_in)
    if all(f.ok for f in database):
        found += header_findings(app)
        found += search_findings(app)
        found += expertise_findings(app)
    else:
        found.append(_problem("pages", _("not checked: fix the database first")))
    return found
