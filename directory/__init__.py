"""A faculty directory for department web sites, as a Flask extension.

from directory import Directory
Directory(app)            # or: ext = Directory(); ext.init_app(app)
"""

from __future__ import annotations

from flask import Flask

from .cache import PageStore, install_invalidation
from .config import apply_defaults
from .db import DatabaseState, close_session

__all__ = ["Directory"]
__version__ = "0.1.0"


class DirectoryState:
    """What the extension keeps per app, in ``app.extensions["directory"]``."""

    def __init__(self, app: Flask) -> None:
        self.db = DatabaseState(app)
        install_invalidation(self.db.sessionmaker)
        self.pages = PageStore(app.config["DIRECTORY_CACHE_MAX_BYTES"])


class Directory:
    """The Flask extension. Keeps no reference to an app (app-factory friendly)."""

    def __init__(self, app: Flask | None = None) -> None:
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Flask) -> None:
        apply_defaults(app.config)
        app.extensions["directory"] = DirectoryState(app)
        app.teardown_appcontext(close_session)

        from .cli import directory_cli
        from .views import blueprint

        prefix = app.config["DIRECTORY_URL_PREFIX"].rstrip("/") or None
        app.register_blueprint(blueprint, url_prefix=prefix)
        app.cli.add_command(directory_cli)
