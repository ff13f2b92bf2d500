"""Activity reports: a person's (``<prefix>/people/<slug>/report``, with ``.pdf``, ``.csv``
and ``.json``), the department's (``<prefix>/reports/department``, with ``.csv`` and
``.pdf``) and the department's co-authorship network (``<prefix>/reports/network``). The
period is the query's: ``?year=2025``, ``?academic=2025`` or ``?from=2025-03&to=2026-02``
(:mod:`directory.services.reports.periods`). Loaded, checked (one access helper each), read
through the report services, rendered."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import Response, abort, current_app, render_template, request

from directory.db import get_session
from directory.formats.charts import bar_chart, stacked_bar_chart
from directory.formats.network import draw_network
from directory.formats.pdf import html_to_pdf, pdf_available
from directory.formats.tables import csv_document
from directory.resources import resource_dir
from directory.services import access
from directory.services.identity import current_viewer
from directory.services.reports import documents
from directory.services.reports.department import MEASURES, department_report
from directory.services.reports.memo import remembered, viewer_key
from directory.services.reports.network import Network, build_network
from directory.services.reports.periods import PeriodError, parse_period
from directory.services.reports.person import person_report
from directory.web.blueprint import blueprint
from directory.web.views.cv import NO_SIZE_LIMIT
from directory.web.views.profile import get_person_or_404

#: Roles the department report's rows can be limited to ("" : everyone listed).
ROW_ROLES = ("faculty", "research_staff", "postdoc", "phd_student", "")


def _can_view_department_report() -> bool:
    """Whether the signed-in reader may open the department's report (the site's navigation
    links it for them)."""
    return access.can_view_department_report(current_viewer())


@blueprint.record_once
def _template_globals(state) -> None:
    state.app.jinja_env.globals.update(
        directory_can_view_department_report=_can_view_department_report
    )


def _period() -> tuple[Any, PeriodError | None]:
    """The period the query names, or the default one and what was wrong with the query."""
    start = current_app.config["DIRECTORY_ACADEMIC_YEAR_START_MONTH"]
    try:
        return parse_period(request.args, start, date.today()), None
    except PeriodError as error:
        return parse_period({}, start, date.today()), error


def _drawing(network: Network) -> Any:
    nodes = [(n.id, n.name, n.x, n.y, n.papers, n.colour) for n in network.drawn]
    edges = [(p.first.id, p.second.id, p.papers) for p in network.drawn_pairs]
    return draw_network(nodes, edges)


def _person_context(slug: str) -> dict[str, Any]:
    person = get_person_or_404(slug)  # a profile the viewer cannot see is not there
    if not access.can_view_person_report(current_viewer(), person):
        abort(403)
    period, error = _period()
    viewer = current_viewer()
    key = ("person", viewer_key(viewer), person.id, period)
    report = remembered(get_session(), key,
                        lambda: person_report(get_session(), viewer, person, period))  # fmt: skip
    return {"person": person, "report": report, "period": period, "period_error": error,
            "drawing": _drawing(report.network), "label": documents.measure_label,
            "pdf_available": pdf_available()}  # fmt: skip


def _status(context: dict[str, Any]) -> int:
    return 400 if context["period_error"] else 200


@blueprint.route("/people/<slug>/report")
def person_report_page(slug: str) -> Any:
    context = _person_context(slug)
    return render_template("directory/reports/person.html", **context), _status(context)


def _download(body: bytes | str, mimetype: str, filename: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@blueprint.route("/people/<slug>/report.csv")
def person_report_csv(slug: str) -> Response:
    context = _person_context(slug)
    header, rows = documents.person_table(context["report"])
    name = f"{slug}-report-{context['period'].label}.csv"
    return _download(csv_document(header, rows), "text/csv", name)


@blueprint.route("/people/<slug>/report.json")
def person_report_json(slug: str) -> Response:
    context = _person_context(slug)
    return current_app.json.response(documents.person_document(context["report"]))


def _pdf(template: str, context: dict[str, Any], filename: str) -> Response:
    """The page as a PDF, limited as the CV's is (DIRECTORY_CV_PDF_MAX_BYTES of HTML)."""
    if not pdf_available():
        abort(404)
    html = render_template(template, **context, printing=True)
    size, limit = len(html.encode("utf-8")), current_app.config["DIRECTORY_CV_PDF_MAX_BYTES"]
    if size > limit and not request.environ.get(NO_SIZE_LIMIT):
        page = render_template("directory/reports/too_long.html", size=size, limit=limit,
                               html_url=request.path.removesuffix(".pdf"),
                               args=request.args)  # fmt: skip
        return Response(page, status=422)
    css = [(resource_dir("static") / name).read_text(encoding="utf-8")
           for name in ("directory.css", "reports.css")]  # fmt: skip
    pdf = html_to_pdf(html, css, base_url=request.url_root)
    response = Response(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


@blueprint.route("/people/<slug>/report.pdf")
def person_report_pdf(slug: str) -> Response:
    context = _person_context(slug)
    name = f"{slug}-report-{context['period'].label}.pdf"
    return _pdf("directory/reports/_person_pdf.html", context, name)


# ----------------------------------------------------------------------------- department


def _department_viewer() -> Any:
    viewer = current_viewer()
    if not access.can_view_department_report(viewer):
        abort(403)
    return viewer


def _charts(report: Any) -> dict[str, Any]:
    areas = [name for name, _ in report.areas]
    per_year = [(year, {a: counts.get(year, 0) for a, counts in report.areas})
                for year in report.years]  # fmt: skip
    placements = [(documents.placement_label(k), n) for k, n in report.placements]
    return {
        "papers_chart": stacked_bar_chart(per_year, tuple(areas), slot=56, height=220),
        "area_classes": {name: f"area{i % 8}" for i, name in enumerate(areas)},
        "placements_chart": bar_chart(placements, slot=96, height=200),
    }


def _department_context() -> dict[str, Any]:
    viewer = _department_viewer()
    period, error = _period()
    role = request.args.get("role", "faculty")
    role = role if role in ROW_ROLES else "faculty"
    areas = current_app.config["DIRECTORY_VENUE_AREAS"]
    key = ("department", viewer_key(viewer), period, role, repr(sorted(areas.items())))
    report = remembered(get_session(), key, lambda: department_report(
        get_session(), viewer, period, role=role, areas=areas))  # fmt: skip
    return {"report": report, "period": period, "period_error": error, "role": role,
            "roles": ROW_ROLES, "measures": MEASURES, "label": documents.measure_label,
            "pdf_available": pdf_available(), **_charts(report)}  # fmt: skip


@blueprint.route("/reports/department")
def department_report_page() -> Any:
    context = _department_context()
    return render_template("directory/reports/department.html", **context), _status(context)


@blueprint.route("/reports/department.csv")
def department_report_csv() -> Response:
    context = _department_context()
    header, rows = documents.department_table(context["report"])
    return _download(csv_document(header, rows), "text/csv",
                     f"department-report-{context['period'].label}.csv")  # fmt: skip


@blueprint.route("/reports/department.pdf")
def department_report_pdf() -> Response:
    context = _department_context()
    name = f"department-report-{context['period'].label}.pdf"
    return _pdf("directory/reports/_department_pdf.html", context, name)


@blueprint.route("/reports/network")
def department_network() -> Any:
    viewer = _department_viewer()
    period, error = _period()
    limit = current_app.config["DIRECTORY_REPORT_NETWORK_MAX_NODES"]
    network = remembered(get_session(), ("network", viewer_key(viewer), period, limit),
                         lambda: build_network(get_session(), viewer, period, limit))  # fmt: skip
    context = {"network": network, "drawing": _drawing(network), "period": period,
               "period_error": error}  # fmt: skip
    return render_template("directory/reports/network.html", **context), _status(context)
