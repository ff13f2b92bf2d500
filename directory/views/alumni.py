"""Alumni placement ``<prefix>/alumni``: past students, filterable by year, advisor, degree."""

from __future__ import annotations

from flask import current_app, render_template, request

from .. import department
from ..cache import cached_page
from ..db import get_session
from ..identity import current_viewer
from . import blueprint


@blueprint.route("/alumni")
@cached_page
def alumni() -> str:
    filters = department.AlumniFilters.from_args(request.args)
    data = department.alumni(
        get_session(), current_viewer(), filters, current_app.config["DIRECTORY_PAGE_SIZE"]
    )
    return render_template("directory/alumni.html", data=data, filters=filters)
