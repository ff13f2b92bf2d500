"""Alumni placement ``<prefix>/alumni``: past students, filterable by year, advisor, degree,
kind of placement and research area; their summary ``<prefix>/alumni/summary`` (counts per
year, degree, kind and advisor, with a chart and its table) and ``<prefix>/alumni.csv``. The
JSON API's alumni (``/api/v1/alumni``) read the same filters and the same records."""

from __future__ import annotations

from flask import Response, current_app, render_template, request

from directory import models as m
from directory.db import get_session
from directory.formats.charts import stacked_bar_chart
from directory.formats.tables import csv_document
from directory.i18n import translate
from directory.models.vocabularies import N_
from directory.services import alumni as records
from directory.services import alumni_counts
from directory.services.identity import current_viewer
from directory.web.blueprint import blueprint
from directory.web.page_cache import cached_page
from directory.web.views.common import item_url

#: The kinds of placement in the order the chart stacks them and the tables list them.
KIND_ORDER = records.KIND_ORDER


#: The label of alumni whose kind of placement is not known.
NOT_KNOWN = N_("Not known")


def kind_label(kind: str | None) -> str:
    """A kind of placement's label (English, as the CSV file writes it); no kind is
    "Not known"."""
    if not kind or kind == records.UNKNOWN_KIND:
        return NOT_KNOWN
    return m.label(m.PLACEMENT_KINDS, kind)


def shown_kind_label(kind: str | None) -> str:
    """:func:`kind_label` in the reader's language, for the pages."""
    return translate(kind_label(kind))


def _page_size() -> int:
    return current_app.config["DIRECTORY_PAGE_SIZE"]


@blueprint.route("/alumni")
@cached_page
def alumni() -> str:
    filters = records.AlumniFilters.from_args(request.args)
    data = records.alumni_page(get_session(), current_viewer(), filters, _page_size())
    return render_template(
        "directory/alumni.html",
        page=data.page,
        choices=data.choices,
        filters=filters,
        kind_label=shown_kind_label,
    )


@blueprint.route("/alumni/summary")
@cached_page
def alumni_summary() -> str:
    """The counts; its table of advisors comes a page at a time (``?advisors=N``)."""
    filters = alumni_counts.AlumniSummaryFilters.from_args(request.args)
    summary = alumni_counts.alumni_summary(get_session(), current_viewer(), filters, _page_size())
    return render_template(
        "directory/alumni_summary.html",
        choices=summary.choices,
        filters=filters,
        summary=summary,
        chart=stacked_bar_chart(summary.years, KIND_ORDER, slot=56, height=220),
        kind_label=shown_kind_label,
    )


#: The columns of the alumni CSV.
CSV_HEADER = (
    "Name", "Degree", "Year", "Advisors", "Thesis", "Placement", "Organisation",
    "Kind of position", "Placement year", "Profile",
)  # fmt: skip


@blueprint.route("/alumni.csv")
def alumni_csv() -> Response:
    """Every alumnus the filters keep (all pages), one row each."""
    filters = records.AlumniFilters.from_args(request.args)
    rows = [
        (
            a.name,
            m.label(m.DEGREES, a.degree) if a.degree else None,
            a.year,
            "; ".join(adv.name for adv in a.advisors),
            a.thesis,
            a.placement,
            a.placement_organisation,
            kind_label(a.placement_kind) if a.placement_kind else None,
            a.placement_year,
            item_url("directory.profile", "slug", a.person.slug, external=True)
            if a.person
            else None,
        )
        for a in records.alumni_rows(get_session(), current_viewer(), filters)
    ]
    response = Response(csv_document(CSV_HEADER, rows), mimetype="text/csv")
    response.headers["Content-Disposition"] = 'attachment; filename="alumni.csv"'
    return response
