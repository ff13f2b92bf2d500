"""The directory's blueprint. Each module registers its routes on :data:`blueprint`."""

from __future__ import annotations

from flask import Blueprint

from directory.resources import resource_dir

blueprint = Blueprint(
    "directory",
    __name__,
    template_folder=str(resource_dir("templates")),
    static_folder=str(resource_dir("static")),
    # Not "/static": mounted at the site root, that would be the host's own static route.
    static_url_path="/assets",
)

from directory.web.views import (  # noqa: E402,F401 - registers routes
    admin,
    alumni,
    api,
    auth,
    common,
    editing,
    fragments,
    listing,
    news,
    profile,
    publications,
    recruiting,
    search,
    sitemap,
)
