"""The alumni summary: how many alumni the filters keep per year (split by kind of placement),
degree, kind and department advisor, counted in the database from the statements of
:mod:`directory.services.alumni`. The summary page, its chart, table and CSV, and the API's
summary are built from it."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from directory import models as m
from directory.services.alumni import (
    KIND_ORDER,
    AlumniChoices,
    AlumniFilters,
    PersonRef,
    Statements,
    counted,
    filter_choices,
)
from directory.services.identity import Viewer
from directory.services.paging import Page
from directory.services.parameters import PAGE


@dataclass(frozen=True)
class AlumniSummaryFilters(AlumniFilters):
    """The summary page's filters, and the page of its table of advisors (``advisors``)."""

    advisors: int = field(default=1, metadata=PAGE)

    def without(self, *names: str) -> dict[str, str]:
        """As :meth:`Filters.without`; the page of advisors is reset like the page."""
        return super().without("advisors", *names)

    def with_page_of_advisors(self, number: int) -> dict[str, str]:
        args = self.without()
        if number > 1:
            args["advisors"] = str(number)
        return args


@dataclass
class AlumniSummary:
    """The counts of the alumni summary (and its chart, table, CSV and API answer)."""

    total: int
    #: (year, {kind or UNKNOWN_KIND: alumni}) for every year from the first to the last.
    years: list[tuple[int, dict[str, int]]]
    #: Alumni with no year of graduation.
    no_year: int
    degrees: list[tuple[str | None, int]]
    #: (kind or UNKNOWN_KIND, alumni), in PLACEMENT_KINDS order, unknown last.
    kinds: list[tuple[str, int]]
    #: (department advisor, alumni), most first, then in the reader's name order; an alumnus
    #: counts once for each advisor. Every one (the API), or the page the summary page shows.
    advisors: list[tuple[PersonRef, int]]
    #: The page of advisors the summary page shows, and what its filters offer (its
    #: advisors as choices); None when not asked for (the API).
    advisor_page: Page | None = None
    choices: AlumniChoices | None = None

    @property
    def kinds_present(self) -> list[str]:
        return [kind for kind, count in self.kinds if count]


def _advisor_page(
    session: Session, statements: Statements, number: int, size: int
) -> Page[tuple[PersonRef, int]]:
    """The page ``number`` of the ranked advisors (the last one if past it). The page's rows
    carry how many advisors there are (a window count): one statement, unless the page asked
    for is past the last."""
    connection = session.connection()

    def page(number: int) -> list[Any]:
        stmt = statements.advisors_counted.limit(size).offset((number - 1) * size)
        return connection.execute(stmt).all()

    rows = page(number)
    total = rows[0].advisors_total if rows else 0
    if not rows and number > 1:  # past the last page, or there is none
        total = connection.execute(statements.advisor_total).scalar_one()
        last = max(1, math.ceil(total / size))
        if number > last:
            number, rows = last, page(last)
    items = [(PersonRef(*row[:5]), row.alumni) for row in rows]
    return Page(items, number, size, total)


def alumni_summary(
    session: Session,
    viewer: Viewer,
    filters: AlumniFilters,
    advisor_page_size: int | None = None,
    *,
    choices: bool = True,
) -> AlumniSummary:
    """Counts per year (split by kind of placement), degree, kind and advisor of the alumni
    the filters keep, counted in the database. Every advisor, or with ``advisor_page_size``
    the page of advisors asked for (``filters.advisors``) and, unless not ``choices``, what
    the summary page's filters offer."""
    statements, counts = counted(session, viewer, filters)
    per_year: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    degrees: dict[str | None, int] = defaultdict(int)
    kinds: dict[str, int] = defaultdict(int)
    no_year = 0
    for row in counts.rows:
        if not row.kept:
            continue
        if row.year:
            per_year[row.year][row.kind] += row.kept
        else:
            no_year += row.kept
        degrees[row.degree] += row.kept
        kinds[row.kind] += row.kept
    years = (
        [
            (y, {k: per_year[y][k] for k in KIND_ORDER if per_year.get(y, {}).get(k)})
            for y in range(min(per_year), max(per_year) + 1)
        ]
        if per_year
        else []
    )
    summary = AlumniSummary(
        total=counts.kept,
        years=years,
        no_year=no_year,
        degrees=[(d, degrees[d]) for d in (*m.values(m.DEGREES), None) if degrees.get(d)],
        kinds=[(k, kinds[k]) for k in KIND_ORDER if kinds.get(k)],
        advisors=[],
    )
    if advisor_page_size:
        number = getattr(filters, "advisors", 1)
        summary.advisor_page = _advisor_page(session, statements, number, advisor_page_size)
        summary.advisors = summary.advisor_page.items
        shown = (person for person, _ in summary.advisor_page.items)
        if choices:
            summary.choices = filter_choices(session, viewer, counts, shown)
    else:
        rows = session.connection().execute(statements.advisors)
        summary.advisors = [(PersonRef(*row[:5]), row.alumni) for row in rows]
    return summary
