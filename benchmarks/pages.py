"""The pages ``make bench`` measures and tests/test_query_counts.py checks, in one list.

Add one line per page. ``path`` is relative to the directory's URL prefix and may use the
generated department's facts. A page that answers 404 is reported as not available (its
branch is not merged yet) instead of being measured. ``cached`` pages are expected to be served
from the page cache (the throughput goal applies to them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .generate import Facts


@dataclass(frozen=True)
class Page:
    name: str
    path: Callable[[Facts], str]
    cached: bool = True


PAGES: list[Page] = [
    Page("listing", lambda f: "/"),
    Page("largest profile", lambda f: f"/people/{f.largest_profile}"),
    Page("recruiting, filtered", lambda f: f"/recruiting?area={f.area}"),
    Page("publications, filtered", lambda f: f"/publications?area={f.people_area}&year={f.year}"),
    Page("search", lambda f: f"/search?q={f.surname}", cached=False),
    Page("API: people in an area", lambda f: f"/api/v1/people?area={f.people_area}", cached=False),
]
