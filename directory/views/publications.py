"""The department's publications ``<prefix>/publications`` and the BibTeX of what is shown."""

from __future__ import annotations

from flask import Response, current_app, render_template, request

from .. import department
from ..bibtex import publications_to_bibtex
from ..charts import bar_chart
from ..db import get_session
from ..identity import current_viewer
from ..interchange import publication_data
from . import blueprint


@blueprint.route("/publications")
def publications() -> str:
    filters = department.PublicationFilters.from_args(request.args)
    page, choices = department.publications_page(
        get_session(), current_viewer(), filters, current_app.config["DIRECTORY_PAGE_SIZE"]
    )
    return render_template(
        "directory/publications.html",
        page=page,
        choices=choices,
        filters=filters,
        chart=bar_chart(choices.years, selected=filters.year),
    )


@blueprint.route("/publications.bib")
def publications_bibtex() -> Response:
    """Every paper matching the filters (all pages), as one BibTeX file."""
    filters = department.PublicationFilters.from_args(request.args)
    pubs = get_session().scalars(department.publications_stmt(current_viewer(), filters)).all()
    body = publications_to_bibtex(
        [{**publication_data(pub), "key": pub.citation_key} for pub in pubs]
    )
    response = Response(body, mimetype="application/x-bibtex")
    response.headers["Content-Disposition"] = "inline; filename=publications.bib"
    return response
