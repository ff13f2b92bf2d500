"""The standalone site: the directory on its own, with the built-in demo login available.

    flask --app wsgi run            # development
    gunicorn wsgi:app               # production (set SECRET_KEY and DIRECTORY_* in the env)

Settings come from environment variables named like the config keys (``DIRECTORY_DATABASE_URL``,
``SECRET_KEY``...), parsed as JSON when possible.

A ``SECRET_KEY`` in the environment marks a production deployment: the session cookie is then
``Secure`` (HTTPS only) as well as ``HttpOnly`` and ``SameSite=Lax``; without one (``make run``,
the demo over plain http) it is only ``HttpOnly`` and ``SameSite=Lax``. Any of the three
``SESSION_COOKIE_*`` keys set in the environment wins.

Behind reverse proxies, ``TRUSTED_PROXIES`` (how many there are in front of the app; default 0)
makes the site believe their ``X-Forwarded-For``, ``-Proto`` and ``-Host`` headers (werkzeug's
ProxyFix): the visitor's address (which the sign-in throttle counts), https links and the host
name. See docs/deployment.md.
"""

from __future__ import annotations

import gc
import os

from flask import Flask, redirect, url_for
from werkzeug.middleware.proxy_fix import ProxyFix

from directory import Directory


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    production = "SECRET_KEY" in os.environ and not app.debug
    app.config["SECRET_KEY"] = os.environ.get("SECRET_KEY", "dev-only-not-secret")
    # The standalone site signs people in itself and makes the account "admin" the department
    # admin (`flask directory create-demo-accounts` creates it); both can be overridden.
    app.config["DIRECTORY_ADMINS"] = ["admin"]
    app.config.update(
        SESSION_COOKIE_SECURE=production,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
    )
    for key, value in os.environ.items():
        # DIRECTORY_TEST_* variables belong to the test suite, not to the site's settings.
        if key.startswith(("DIRECTORY_", "SESSION_COOKIE_")) and not key.startswith(
            "DIRECTORY_TEST_"
        ):
            app.config[key] = _loads(value)
    app.config.update(config or {})
    proxies = _trusted_proxies(app.config.get("TRUSTED_PROXIES", os.environ.get("TRUSTED_PROXIES")))
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)
    source = app.config.setdefault("DIRECTORY_IDENTITY_SOURCE", "builtin")
    app.config.setdefault("DIRECTORY_BUILTIN_LOGIN", source == "builtin")
    Directory(app)

    if app.config["DIRECTORY_URL_PREFIX"].strip("/"):

        @app.route("/")
        def home():
            return redirect(url_for("directory.index"))

    return app


def _trusted_proxies(value: object) -> int:
    """How many proxies' X-Forwarded-* headers to believe (none unless told)."""
    if value is None or value == "":
        return 0
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"TRUSTED_PROXIES must be a whole number of proxies, not {value!r}")
    return value


def _loads(value: str):
    import json

    try:
        return json.loads(value)
    except ValueError:
        return value


FULL_COLLECTION_EVERY = 100  # collections of the middle generation (Python's default: 10)

app = create_app()
# What is loaded by now (the libraries' tables, such as pypinyin's 200,000 phrase lists, the
# app, its templates) lives as long as the process: frozen out of the garbage collector's
# reach, a full collection scans only what requests left (it scanned 450,000 objects, 280 ms
# of CPU, every few dozen requests). A host app does the same after its own factory
# (docs/deployment.md).
gc.freeze()
# Python starts a full collection only once the objects promoted since the last one exceed a
# quarter of the long-lived ones, and frozen objects no longer count: a request that keeps tens
# of thousands of objects alive until it answers (the university's alumni CSV, 8,000 rows) set
# off two or three full collections. Considered every 100th collection of the middle
# generation instead of every 10th, they stay about as rare as before the freeze.
gc.set_threshold(*gc.get_threshold()[:2], FULL_COLLECTION_EVERY)
