"""The Flask extension: ``Directory(app)`` or ``Directory().init_app(app)``."""

from __future__ import annotations

from flask import Flask, current_app

from directory import i18n
from directory.cli import directory_cli
from directory.config import apply_defaults
from directory.db import DatabaseState, close_session
from directory.services import health, search_index, write_gates
from directory.services.cache import GenerationReader, install_invalidation
from directory.services.expertise import vectors as expertise_vectors
from directory.web.page_cache import PageStore, settings_fingerprint
from directory.web.shared_page_cache import SharedPageCache
from directory.web.views import blueprint


class DirectoryState:
    """What the extension keeps per app, in ``app.extensions["directory"]``."""

    def __init__(self, app: Flask) -> None:
        self.db = DatabaseState(app)
        #: The page cache shared by every app host (DIRECTORY_CACHE_URL), or None: pages kept
        #: in this process (``pages``), checked against the database's generation.
        self.shared_pages = (
            SharedPageCache(
                app.config["DIRECTORY_CACHE_URL"], app.config["DIRECTORY_CACHE_KEY_PREFIX"]
            )
            if app.config["DIRECTORY_CACHE_URL"]
            else None
        )
        install_invalidation(
            self.db.sessionmaker, self.shared_pages.bump if self.shared_pages else None
        )
        self.pages = PageStore(app.config["DIRECTORY_CACHE_MAX_BYTES"])
        self.generations = GenerationReader()
        #: The settings part of every cached page's key, computed once at start-up.
        self.settings = settings_fingerprint(app.config)
        #: The gettext callable installed in the app's Jinja environment (see directory.i18n).
        self.jinja_gettext = None


class Directory:
    """The Flask extension. Keeps no reference to an app (app-factory friendly)."""

    def __init__(self, app: Flask | None = None) -> None:
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Flask) -> None:
        apply_defaults(app.config)
        # A setting that cannot work stops the app here, every problem named at once, instead
        # of misbehaving quietly later (see services/health.py; `flask directory check`).
        health.raise_on_problems(health.setting_findings(app.config))
        state = app.extensions["directory"] = DirectoryState(app)
        write_gates.install(state.db.sessionmaker)
        search_index.install(state.db.sessionmaker)
        expertise_vectors.install(state.db.sessionmaker)
        i18n.init_app(app)
        app.teardown_appcontext(close_session)

        # "/people", "people/" and "/people" are the same mount point; "/" or "" is the root.
        prefix = app.config["DIRECTORY_URL_PREFIX"].strip("/")
        app.register_blueprint(blueprint, url_prefix=f"/{prefix}" if prefix else None)
        app.cli.add_command(directory_cli)
        # Routes the host registered before us are compared now; those it adds later, on its
        # first request (and on every request until the collision is gone).
        health.raise_on_problems(health.route_findings(app))
        app.before_request(_RouteCheck())


class _RouteCheck:
    """A before-request hook: the first request fails with DirectoryConfigError while a host
    route registered after ``Directory(app)`` answers one of the directory's URLs."""

    def __init__(self) -> None:
        self.passed = False

    def __call__(self) -> None:
        if not self.passed:
            health.raise_on_problems(health.route_findings(current_app))
            # A host that initialised Flask-Babel after us replaced the templates' gettext.
            if not i18n.jinja_installed(current_app):
                i18n.install_jinja(current_app)
            self.passed = True
