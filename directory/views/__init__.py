"""The directory's blueprint. Each module registers its routes on :data:`blueprint`."""

from __future__ import annotations

from flask import Blueprint

from ..resources import resource_dir

blueprint = Blueprint(
    "directory",
    __name__,
    template_folder=str(resource_dir("templates")),
    static_folder=str(resource_dir("static")),
    static_url_path="/static",
)

from . import common, listing, profile, publications  # noqa: E402,F401 - registers routes
