"""Alumni placement ``<prefix>/alumni``: past students, filterable by year, advisor, degree."""

from __future__ import annotations

from flask import current_app, render_template, request

from directory.db import get_session
from directory.services import department
from directory.services.cache import cached_page
from directory.services.identity import current_viewer
from directory.web.blueprint import blueprint


@blueprint.route("/alumni")
@cached_page
def alumni() -> str:
    filters = department.AlumniFilters.from_args(request.args)
    data = department.alumni(
        get_session(), current_viewer(), filters, current_app.config["DIRECTORY_PAGE_SIZE"]
    )
    return render_template("directory/alumni.html", data=data, filters=filters)
