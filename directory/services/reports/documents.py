"""The reports as plain data: the labels every output gives a measure, the JSON document of a
person's report, and the CSV tables of both reports (rendered by
:mod:`directory.formats.tables`)."""

from __future__ import annotations

from typing import Any

from directory import models as m
from directory.i18n import gettext as _
from directory.i18n import translate
from directory.services.reports.department import MEASURES, DepartmentReport
from directory.services.reports.periods import Period
from directory.services.reports.person import PersonReport


def measure_label(name: str, period: Period) -> str:
    """What a count counts, in words naming the period ("Published in 2025")."""
    label = period.label
    labels = {
        "published": _("Papers published in %(period)s", period=label),
        "accepted": _("Accepted, not yet published"),
        "in_progress": _("Under review or in preparation, dated %(period)s", period=label),
        "students_current": _("Students advised (current)"),
        "students_graduated": _("Students graduated in %(period)s", period=label),
        "teaching": _("Courses taught in %(period)s", period=label),
        "service": _("Service in %(period)s", period=label),
        "funding": _("Funding active in %(period)s", period=label),
        "awards": _("Awards in %(period)s", period=label),
        "news": _("News in %(period)s", period=label),
        "recruiting": _("Recruiting notices open in %(period)s", period=label),
        "coauthors": _("Co-authors in the department"),
    }
    return labels[name]


def placement_label(kind: str | None) -> str:
    """A kind of placement in words ("Not known" for none)."""
    return translate(m.label(m.PLACEMENT_KINDS, kind)) if kind else _("Not known")


def period_document(period: Period) -> dict[str, Any]:
    return {"kind": period.kind, "label": period.label, "start": period.start.isoformat(),
            "end": period.end.isoformat()}  # fmt: skip


def _entry(kind: str, entry: Any) -> dict[str, Any]:
    """An entry's fields as the profile document names them (its declared fields)."""
    spec = m.ENTRY_KINDS[kind]
    values = {name: getattr(entry, name, None) for name in spec.fields}
    return {
        k: (v.isoformat() if hasattr(v, "isoformat") else v)
        for k, v in values.items()
        if isinstance(v, str | int | float | bool) or v is None or hasattr(v, "isoformat")
    }


def person_document(report: PersonReport) -> dict[str, Any]:
    """The person's report as the JSON output gives it."""
    person = report.person
    return {
        "person": {"slug": person.slug, "name": person.full_name},
        "period": period_document(report.period),
        "totals": report.totals(),
        "papers": [
            {"uid": p.uid, "title": p.title, "venue": p.venue, "venue_short": p.venue_short,
             "year": p.year, "month": p.month, "type": p.type, "status": p.status,
             "counted_as": p.group}
            for p in report.papers
        ],
        "students": [
            {"name": s.name, "degree": s.degree, "status": s.status,
             "start_year": s.start_year, "end_year": s.end_year, "placement": s.placement,
             "placement_kind": s.placement_kind}
            for s in report.students
        ],
        **{kind: [_entry(kind, e) for e in rows] for kind, rows in report.entries.items()},
        "coauthors": [{"name": node.name, "slug": node.slug, "joint_papers": papers}
                      for node, papers in report.coauthors()],
        "cannot_count": [{"kind": p.kind, "title": p.title} for p in report.problems],
    }  # fmt: skip


def person_table(report: PersonReport) -> tuple[list[str], list[list[Any]]]:
    """The person's report as one CSV table: a line per thing counted, saying what it was
    counted as."""
    header = ["section", "counted as", "title", "venue", "year", "detail"]
    rows: list[list[Any]] = []
    for p in report.papers:
        rows.append(["papers", measure_label(p.group, report.period), p.title,
                     p.venue_short or p.venue, p.year, p.type])  # fmt: skip
    for s in report.students:
        name = "students_current" if s.status == "current" else "students_graduated"
        rows.append(
            [
                "students",
                measure_label(name, report.period),
                s.name,
                s.placement,
                s.end_year if s.status == "graduated" else s.start_year,
                s.degree,
            ]
        )
    for kind, entries in report.entries.items():
        document = [_entry(kind, e) for e in entries]
        for values in document:
            title = next((values[k] for k in ("title", "venue", "funder", "body")
                          if values.get(k)), "")  # fmt: skip
            year = values.get("year") or values.get("start_year")
            rows.append(
                [
                    kind,
                    measure_label(kind, report.period),
                    title,
                    None,
                    year,
                    values.get("role") or values.get("kind") or values.get("level"),
                ]
            )
    return header, rows


def department_table(report: DepartmentReport) -> tuple[list[str], list[list[Any]]]:
    """The department's per-person rows as a CSV table, with the department's totals (each
    thing once) and last year's last."""
    header = ["name", "role", *[measure_label(name, report.period) for name in MEASURES]]
    rows = [[row.name, row.role, *[row.counts[n] for n in MEASURES]] for row in report.people]
    rows.append([_("Department (each once)"), "", *[report.totals[n] for n in MEASURES]])
    rows.append([_("Department, %(period)s", period=report.previous.label), "",
                 *[report.previous_totals[n] for n in MEASURES]])  # fmt: skip
    return header, rows
