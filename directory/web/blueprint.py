"""The directory's blueprint. Each module of :mod:`directory.web.views` registers its routes on
:data:`blueprint`; importing :mod:`directory.web.views` registers them all."""

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
