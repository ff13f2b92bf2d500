"""The report pages as their readers get them: who may open which (the chair by
DIRECTORY_CHAIRS), the period's mistakes named next to the field, the CSV, JSON and PDF, the
network's SVG and table, and the links that fix what a report cannot count."""

from __future__ import annotations

import csv
import io
import re

import pytest

from tests.conftest import login
from tests.services.test_reports import ADA, DEPARTMENT, dept  # noqa: F401 - the fixture

P = "/directory/people/ada-lovelace/report"
D = "/directory/reports/department"
YEAR = "academic=2025"


@pytest.fixture
def chair(app, monkeypatch) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_CHAIRS", ["chair"])


def test_the_chair_opens_the_departments_report_but_no_admin_page(client, dept, chair) -> None:  # noqa: F811
    login(client, "chair")
    for url in (D, f"{D}.csv", "/directory/reports/network"):
        assert client.get(f"{url}?{YEAR}").status_code == 200, url
    assert client.get("/directory/admin/").status_code == 403
    assert client.get(P).status_code == 403  # a person's report is for its keepers
    page = client.get(f"{D}?{YEAR}").get_data(as_text=True)
    assert "Private paper" not in page


def _nav_links(html: str) -> list[str]:
    """The site navigation's link texts."""
    nav = html.split('<ul class="site-nav">', 1)[1].split("</ul>", 1)[0]
    return re.findall(r"<a [^>]*>([^<]*)</a>", nav)


@pytest.mark.parametrize(("who", "shown"), [("chair", True), ("admin", True), ("mia", False),
                                            (None, False)])  # fmt: skip
def test_the_chair_and_admins_find_the_department_report_in_the_navigation(
    client,
    dept,  # noqa: F811
    chair,
    who,
    shown,
) -> None:
    login(client, who)
    links = _nav_links(client.get("/directory/").get_data(as_text=True))
    assert ("Department report" in links) is shown, links
    if shown:  # it leads to the report, marked as the page shown when there
        page = client.get(D).get_data(as_text=True)
        assert 'href="/directory/reports/department" aria-current="page">Department report<' in page


def test_the_navigations_link_to_the_department_report_in_chinese(client, dept, chair) -> None:  # noqa: F811
    login(client, "chair")
    assert "全系报告" in _nav_links(client.get("/directory/?lang=zh-Hans").get_data(as_text=True))


def test_a_member_who_is_no_chair_is_refused(client, dept) -> None:  # noqa: F811
    login(client, "mia")
    assert client.get(D).status_code == 403
    assert client.get(P).status_code == 403


def test_the_persons_report_page_says_what_each_count_counts(client, dept) -> None:  # noqa: F811
    login(client, "ada")
    page = client.get(f"{P}?{YEAR}").get_data(as_text=True)
    assert "Activity report of Ada Lovelace, 2025–26" in page
    assert "Papers published in 2025–26 · 3" in page
    assert "Accepted, not yet published · 1" in page
    assert "Funding active in 2025–26 · 2" in page
    assert "Assistant Professor, MIT" in page
    # What it cannot count, each with the link that fixes it.
    assert "What this report cannot count" in page
    assert "/directory/people/ada-lovelace/edit/funding/" in page
    assert "/directory/people/ada-lovelace/edit/publications/" in page
    # The network drawn, and its table.
    assert "<svg" in page and "network__node" in page and "Bob Builder" in page


def test_the_csv_and_json_hold_the_same_counts(client, dept) -> None:  # noqa: F811
    login(client, "ada")
    document = client.get(f"{P}.json?{YEAR}").get_json()
    assert document["totals"] == ADA
    assert document["period"] == {"kind": "academic", "label": "2025–26",
                                  "start": "2025-09-01", "end": "2026-08-31"}  # fmt: skip
    assert [c["name"] for c in document["coauthors"]] == ["Bob Builder"]
    response = client.get(f"{P}.csv?{YEAR}")
    assert response.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True).lstrip("\ufeff"))))
    assert rows[0] == ["section", "counted as", "title", "venue", "year", "detail"]
    assert sum(1 for row in rows if row[0] == "papers") == 5  # 3 published, 1 accepted, 1 other
    assert sum(1 for row in rows if row[0] == "funding") == 2


def test_the_departments_csv_has_a_row_per_person_and_the_totals(client, dept) -> None:  # noqa: F811
    login(client, "admin")
    response = client.get(f"{D}.csv?{YEAR}&role=")
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True).lstrip("\ufeff"))))
    assert rows[0][:3] == ["name", "role", "Papers published in 2025–26"]
    names = [row[0] for row in rows[1:]]
    assert names[:5] == ["Bob Builder", "Dan Delegate", "Ada Lovelace", "Mia Member",
                         "Sam Student"]  # fmt: skip
    totals = rows[-2]
    assert totals[0] == "Department (each once)"
    assert [int(cell) for cell in totals[2:]] == list(DEPARTMENT.values())


def test_the_departments_page_draws_charts_with_their_tables(client, dept) -> None:  # noqa: F811
    login(client, "admin")
    page = client.get(f"{D}?{YEAR}").get_data(as_text=True)
    assert page.count("<svg") == 2 and page.count("<table") >= 5
    assert "Papers per venue (short names, as on the papers" in page
    assert "Tom Typed" in page and "+3" in page


@pytest.mark.parametrize(
    ("query", "field"),
    [("year=20x5", "period-year"), ("from=2025-13&to=2026-01", "period-from"),
     ("from=2025-05&to=2025-01", "period-to")],
)  # fmt: skip
def test_a_period_that_cannot_be_is_named_next_to_its_field(client, dept, query, field) -> None:  # noqa: F811
    login(client, "admin")
    for url in (P, D, "/directory/reports/network"):
        response = client.get(f"{url}?{query}")
        assert response.status_code == 400
        page = response.get_data(as_text=True)
        assert f'id="{field}-error"' in page
        assert f'id="{field}" ' in page or f'id="{field}"' in page


def test_the_pdfs_are_made_and_limited_as_the_cvs_are(app, client, dept, monkeypatch) -> None:  # noqa: F811
    login(client, "admin")
    for url in (f"{P}.pdf", f"{D}.pdf"):
        response = client.get(f"{url}?{YEAR}")
        assert response.status_code == 200 and response.data.startswith(b"%PDF")
    monkeypatch.setitem(app.config, "DIRECTORY_CV_PDF_MAX_BYTES", 1000)
    response = client.get(f"{D}.pdf?{YEAR}")
    assert response.status_code == 422
    assert "too long for a PDF" in response.get_data(as_text=True)


def test_a_kept_report_is_counted_again_after_any_write(client, db, dept) -> None:  # noqa: F811
    """The department's report is kept while the data is unchanged, and recounted after a
    write (services/reports/memo.py)."""
    from directory import models as m
    from directory.services.reports import memo

    def published() -> int:
        response = client.get(f"{D}.csv?{YEAR}")
        rows = list(csv.reader(io.StringIO(response.get_data(as_text=True).lstrip("\ufeff"))))
        return int(rows[-2][2])

    login(client, "admin")
    assert published() == DEPARTMENT["published"]
    assert memo.kept() == 1
    assert published() == DEPARTMENT["published"]  # the kept report
    assert memo.kept() == 1
    pub = m.Publication(title="Written since", year=2026, month=1, created_by_id=dept["ada"].id)
    db.add(pub)
    db.flush()
    db.add(m.ProfilePublication(person_id=dept["ada"].id, publication_id=pub.id))
    db.commit()
    assert published() == DEPARTMENT["published"] + 1
    assert memo.kept() == 2  # counted anew, under the new generation
