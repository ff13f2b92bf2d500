"""The period a report covers: a calendar year, an academic year (starting in the month the
department sets, ``DIRECTORY_ACADEMIC_YEAR_START_MONTH``) or any months from/to.

Reports count by month: a period is its first and last month, whole. What is dated by a year
alone (a paper without a month, a graduation, an award) is placed in the middle of its year,
July, so that it counts in exactly one academic year as in one calendar year, and the
department's year-over-year figures never count it twice. Funding, dated by years, is active in
every period its years overlap; funding with a start and no end is open-ended and active from
its start on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from directory.i18n import gettext as _

#: Where a year alone is placed: its middle month (see the module's docstring).
MIDDLE_MONTH = 7
#: The years a period may name.
YEARS = (1900, 2200)
#: The longest custom period, in months (ten years).
MAX_MONTHS = 120
#: The kinds of period, as the report's form offers them.
KINDS = ("calendar", "academic", "custom")

_MONTH = re.compile(r"^\s*(\d{4})-(\d{1,2})(?:-(\d{1,2}))?\s*$")
#: The month a teaching term starts in, by the season its text names.
_SEASON_MONTHS = {"winter": 1, "spring": 2, "summer": 6, "fall": 9, "autumn": 9}


def month_key(year: int, month: int) -> int:
    """A month as one number (months since year 0), so that ranges compare as integers."""
    return year * 12 + month - 1


def key_month(key: int) -> tuple[int, int]:
    return key // 12, key % 12 + 1


@dataclass(frozen=True)
class Period:
    """The months ``first`` to ``last`` (month keys, both included), of a ``kind``."""

    kind: str
    first: int
    last: int

    @property
    def start(self) -> date:
        year, month = key_month(self.first)
        return date(year, month, 1)

    @property
    def end(self) -> date:
        """The period's last day."""
        year, month = key_month(self.last + 1)
        return date.fromordinal(date(year, month, 1).toordinal() - 1)

    @property
    def until(self) -> datetime:
        """The moment the period is over: the midnight (UTC) after its last day."""
        return datetime.combine(self.end + timedelta(days=1), time.min, UTC)

    @property
    def first_year(self) -> int:
        return key_month(self.first)[0]

    @property
    def last_year(self) -> int:
        return key_month(self.last)[0]

    @property
    def label(self) -> str:
        """ "2025", "2025–26" (an academic year), or "March 2025 – June 2026"."""
        if self.kind == "calendar":
            return str(self.first_year)
        if self.kind == "academic":
            return f"{self.first_year}–{(self.first_year + 1) % 100:02d}"
        return f"{self.start:%Y-%m} – {self.end:%Y-%m}"

    def holds(self, year: int | None, month: int | None = None) -> bool:
        """Whether something dated ``year`` (and ``month``, else the year's middle) falls in
        the period; nothing without a year does."""
        if year is None:
            return False
        return self.first <= month_key(year, month or MIDDLE_MONTH) <= self.last

    def overlaps_years(self, start_year: int | None, end_year: int | None) -> bool:
        """Whether something running from ``start_year`` to ``end_year`` (years, both
        included; no end: still running) is active during the period. With neither year it
        cannot be placed (the report lists it as undated)."""
        if start_year is None and end_year is None:
            return False
        starts_before_end = start_year is None or start_year <= self.last_year
        ends_after_start = end_year is None or end_year >= self.first_year
        return starts_before_end and ends_after_start

    def shifted(self, years: int) -> Period:
        """The same months ``years`` later (earlier when negative): last year's period."""
        return Period(self.kind, self.first + 12 * years, self.last + 12 * years)

    def args(self) -> dict[str, str]:
        """The period as the query parameters that name it."""
        if self.kind == "calendar":
            return {"year": str(self.first_year)}
        if self.kind == "academic":
            return {"academic": str(self.first_year)}
        return {"from": f"{self.start:%Y-%m}", "to": f"{self.end:%Y-%m}"}


def calendar_year(year: int) -> Period:
    return Period("calendar", month_key(year, 1), month_key(year, 12))


def academic_year(year: int, start_month: int) -> Period:
    """The academic year starting in ``start_month`` of ``year`` (2025 with September:
    September 2025 to August 2026)."""
    first = month_key(year, start_month)
    return Period("academic", first, first + 11)


def academic_year_of(day: date, start_month: int) -> Period:
    """The academic year ``day`` falls in."""
    year = day.year if day.month >= start_month else day.year - 1
    return academic_year(year, start_month)


def teaching_month(term: str | None) -> int | None:
    """The month a course's term text starts in ("Fall 2025": September), or None."""
    words = re.findall(r"[a-z]+", (term or "").lower())
    return next((_SEASON_MONTHS[w] for w in words if w in _SEASON_MONTHS), None)


class PeriodError(ValueError):
    """A period the query names that cannot be a period: ``field`` is the parameter."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _year(field: str, text: str) -> int:
    text = text.strip()
    if not text.isdigit() or not YEARS[0] <= int(text) <= YEARS[1]:
        raise PeriodError(
            field, _("Give a year from %(first)s to %(last)s.", first=YEARS[0], last=YEARS[1])
        )
    return int(text)


def _month(field: str, text: str) -> int:
    found = _MONTH.match(text)
    if not found:
        raise PeriodError(field, _("Give a month as YYYY-MM (a day after it is ignored)."))
    year, month = int(found.group(1)), int(found.group(2))
    if not YEARS[0] <= year <= YEARS[1] or not 1 <= month <= 12:
        raise PeriodError(field, _("There is no such month: %(text)s.", text=text.strip()))
    return month_key(year, month)


def parse_period(args: Mapping[str, str], start_month: int, today: date) -> Period:
    """The period a report's query names: ``year=2025`` (calendar), ``academic=2025`` (the
    academic year starting in 2025), ``from=2025-03&to=2026-06`` (whole months; a day given
    is ignored); without any, the academic year before the current one (the year a report is
    usually written about). Raises :class:`PeriodError` naming the parameter at fault."""
    if args.get("from") or args.get("to"):
        first = _month("from", args.get("from", "")) if args.get("from") else None
        last = _month("to", args.get("to", "")) if args.get("to") else None
        if first is None:
            raise PeriodError("from", _("Give the first month as well."))
        if last is None:
            raise PeriodError("to", _("Give the last month as well."))
        if last < first:
            raise PeriodError("to", _("The last month comes before the first."))
        if last - first + 1 > MAX_MONTHS:
            raise PeriodError("to", _("A period is at most %(n)s months long.", n=MAX_MONTHS))
        return Period("custom", first, last)
    if args.get("academic"):
        return academic_year(_year("academic", args["academic"]), start_month)
    if args.get("year"):
        return calendar_year(_year("year", args["year"]))
    return academic_year_of(today, start_month).shifted(-1)
