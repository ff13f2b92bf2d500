"""The pages ``make bench`` measures and tests/web/test_bench_pages.py checks, in one list.

Add one line per page. ``path`` is relative to the directory's URL prefix and may use the
generated department's facts. A page that answers 404 is reported as not available (its
branch is not merged yet) instead of being measured. ``cached`` pages are expected to be served
from the page cache to anonymous visitors (the throughput goal applies to them). ``viewer``
signs the request in: "member" (an account bound to no profile), "owner" (the owner of the
largest profile) or "admin" (a department admin); signed-in requests never use the cache.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tests.support.synthetic import Facts

#: The identity keys of the signed-in viewers (tests.support.synthetic.bind_viewers binds "owner").
VIEWER_KEYS = {"member": "bench-member", "owner": "bench-owner", "admin": "admin"}


@dataclass(frozen=True)
class Page:
    name: str
    path: Callable[[Facts], str]
    cached: bool = True
    viewer: str | None = None


PAGES: list[Page] = [
    Page("listing", lambda f: "/"),
    Page("listing, signed in", lambda f: "/", cached=False, viewer="member"),
    Page("largest profile", lambda f: f"/people/{f.largest_profile}"),
    Page(
        "largest profile, signed in",
        lambda f: f"/people/{f.largest_profile}",
        cached=False,
        viewer="member",
    ),
    Page(
        "largest profile's complete list, page 2",
        lambda f: f"/people/{f.largest_profile}/publications?page=2",
    ),
    Page("listing, page 2", lambda f: "/?page=2"),
    Page("editor /me of the largest profile", lambda f: "/me", cached=False, viewer="owner"),
    Page(
        "manage publications of the largest profile",
        lambda f: f"/people/{f.largest_profile}/publications/manage",
        cached=False,
        viewer="owner",
    ),
    Page("recruiting, filtered", lambda f: f"/recruiting?area={f.area}"),
    Page("research areas", lambda f: "/areas/"),
    Page("research area", lambda f: f"/areas/{f.area}"),
    Page("publications", lambda f: "/publications"),
    Page("publications, filtered", lambda f: f"/publications?area={f.people_area}&year={f.year}"),
    Page("search", lambda f: f"/search?q={f.surname}", cached=False),
    Page("admin: people", lambda f: "/admin/people", cached=False, viewer="admin"),
    Page(
        "admin: publication record",
        lambda f: f"/publications/{f.paper}/record",
        cached=False,
        viewer="admin",
    ),
    Page("API: people", lambda f: "/api/v1/people", cached=False),
    Page("API: people in an area", lambda f: f"/api/v1/people?area={f.people_area}", cached=False),
    Page("API: publications", lambda f: "/api/v1/publications", cached=False),
    Page("API: positions", lambda f: "/api/v1/positions", cached=False),
    Page("API: areas", lambda f: "/api/v1/areas", cached=False),
    Page("alumni", lambda f: "/alumni"),
    Page("alumni, page 2", lambda f: "/alumni?page=2"),
    Page("alumni summary", lambda f: "/alumni/summary"),
    Page(
        "alumni summary, filtered", lambda f: f"/alumni/summary?kind=faculty&area={f.people_area}"
    ),
    Page("alumni CSV", lambda f: "/alumni.csv", cached=False),
    Page("API: alumni", lambda f: "/api/v1/alumni", cached=False),
    Page("API: alumni summary", lambda f: "/api/v1/alumni/summary", cached=False),
    # The activity reports (benchmarks/reports.py measures them beside the alumni summary).
    Page(
        "activity report of the largest profile",
        lambda f: f"/people/{f.largest_profile}/report?year={f.year}",
        cached=False,
        viewer="owner",
    ),
    Page(
        "department activity report",
        lambda f: f"/reports/department?year={f.year}",
        cached=False,
        viewer="admin",
    ),
    Page(
        "co-authorship network",
        lambda f: f"/reports/network?year={f.year}",
        cached=False,
        viewer="admin",
    ),
]
