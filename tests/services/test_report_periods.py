"""The periods of the activity reports: calendar and academic years, any months from/to, what
a year alone counts as, open-ended funding, and the query's mistakes named."""

from __future__ import annotations

from datetime import date

import pytest

from directory.services.reports.periods import (
    PeriodError,
    academic_year,
    academic_year_of,
    calendar_year,
    parse_period,
    teaching_month,
)


def test_a_calendar_year_is_january_to_december() -> None:
    year = calendar_year(2025)
    assert (year.start, year.end, year.label) == (date(2025, 1, 1), date(2025, 12, 31), "2025")
    assert year.holds(2025, 1) and year.holds(2025, 12) and year.holds(2025)
    assert not year.holds(2024, 12) and not year.holds(2026, 1) and not year.holds(None)


def test_an_academic_year_starts_in_the_departments_month() -> None:
    year = academic_year(2025, 9)
    assert (year.start, year.end, year.label) == (date(2025, 9, 1), date(2026, 8, 31), "2025–26")
    # Its boundaries: August 2025 is the year before, September 2025 and August 2026 in it.
    assert not year.holds(2025, 8)
    assert year.holds(2025, 9) and year.holds(2026, 8)
    assert not year.holds(2026, 9)
    # Another department starts in July.
    july = academic_year(2025, 7)
    assert (july.start, july.end) == (date(2025, 7, 1), date(2026, 6, 30))


def test_a_year_alone_counts_in_exactly_one_academic_year() -> None:
    """Dated by its year only, a thing sits in the middle of it (July): in the academic year
    that ends that summer, never in two."""
    earlier, later = academic_year(2024, 9), academic_year(2025, 9)
    assert earlier.holds(2025) and not later.holds(2025)
    # With a January start, the academic year is the calendar year.
    assert academic_year(2025, 1).holds(2025) and not academic_year(2024, 1).holds(2025)


def test_the_academic_year_of_a_day() -> None:
    assert academic_year_of(date(2026, 8, 31), 9).label == "2025–26"
    assert academic_year_of(date(2026, 9, 1), 9).label == "2026–27"


def test_funding_is_active_while_its_years_run_and_open_ended_funding_stays_active() -> None:
    year = academic_year(2025, 9)  # September 2025 to August 2026
    assert year.overlaps_years(2020, 2025)  # ends in the year the period starts
    assert year.overlaps_years(2026, 2028)  # starts in the year the period ends
    assert not year.overlaps_years(2020, 2024)
    assert not year.overlaps_years(2027, 2029)
    assert year.overlaps_years(2010, None)  # open-ended: still running
    assert not year.overlaps_years(2027, None)  # starts after the period
    assert year.overlaps_years(None, 2026)  # no start: running until its end
    assert not year.overlaps_years(None, None)  # undated: counted nowhere


def test_a_period_of_months_from_to() -> None:
    period = parse_period({"from": "2025-03", "to": "2026-02-15"}, 9, date(2026, 5, 1))
    assert (period.start, period.end) == (date(2025, 3, 1), date(2026, 2, 28))
    assert period.holds(2025, 3) and period.holds(2026, 2) and not period.holds(2026, 3)
    assert period.label == "2025-03 – 2026-02"
    assert period.args() == {"from": "2025-03", "to": "2026-02"}


def test_the_query_names_the_period_and_the_default_is_last_academic_year() -> None:
    today = date(2026, 10, 2)
    assert parse_period({"year": "2024"}, 9, today) == calendar_year(2024)
    assert parse_period({"academic": "2023"}, 9, today) == academic_year(2023, 9)
    assert parse_period({}, 9, today) == academic_year(2025, 9)
    assert parse_period({}, 9, date(2026, 8, 1)) == academic_year(2024, 9)


def test_last_years_period_is_the_same_months_a_year_earlier() -> None:
    assert academic_year(2025, 9).shifted(-1) == academic_year(2024, 9)
    assert calendar_year(2025).shifted(-1).label == "2024"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"year": "20x5"}, "year"),
        ({"year": "1850"}, "year"),
        ({"academic": "-1"}, "academic"),
        ({"from": "2025-13", "to": "2026-01"}, "from"),
        ({"from": "March", "to": "2026-01"}, "from"),
        ({"from": "2025-03"}, "to"),
        ({"to": "2025-03"}, "from"),
        ({"from": "2025-03", "to": "2025-01"}, "to"),
        ({"from": "2000-01", "to": "2025-01"}, "to"),  # longer than ten years
    ],
)
def test_a_period_that_cannot_be_is_refused_naming_the_field(args, field) -> None:
    with pytest.raises(PeriodError) as raised:
        parse_period(args, 9, date(2026, 1, 1))
    assert raised.value.field == field
    assert raised.value.message


def test_a_courses_term_gives_its_month() -> None:
    assert teaching_month("Fall 2025") == 9
    assert teaching_month("Spring") == 2
    assert teaching_month("autumn term") == 9
    assert teaching_month("Q3") is None
