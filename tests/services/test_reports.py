"""The activity reports counted on a department of known numbers: every count of a person's
report, of the department's (this year and the year before, per person, per venue and area,
graduates, funding), of the network and of what the reports cannot count, as an admin, the
owner, a delegate and the chair see them (a private paper or award is not counted for a viewer
who cannot see it), over an academic year's boundaries and with open-ended funding. Runs on
SQLite and PostgreSQL (DIRECTORY_TEST_DATABASE_URL)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from directory import models as m
from directory.services.identity import Viewer
from directory.services.reports.department import department_report
from directory.services.reports.network import build_network, forget_layouts
from directory.services.reports.periods import academic_year, calendar_year
from directory.services.reports.person import person_report

#: The academic year of the report: September 2025 to August 2026.
YEAR = academic_year(2025, 9)
AREAS = {"Systems": ["OSDI", "SOSP"]}


def _paper(db, title: str, people: list[m.Person], **values: Any) -> m.Publication:
    pub = m.Publication(title=title, created_by_id=people[0].id, **values)
    for i, person in enumerate(people):
        pub.authorships.append(m.Authorship(position=i, name=person.full_name, person=person))
    db.add(pub)
    db.flush()
    for person in people:
        db.add(m.ProfilePublication(person_id=person.id, publication_id=pub.id))
    return pub


def _graduate(db, advisor: m.Person, name: str, end_year: int | None, **values: Any) -> None:
    db.add(
        m.AdvisingRelation(
            owner_id=advisor.id,
            advisor_id=advisor.id,
            student_name=name,
            status="graduated",
            degree="phd",
            end_year=end_year,
            **values,
        )
    )


@pytest.fixture
def dept(db, make_person) -> dict[str, Any]:
    ada = make_person(user_key="ada")
    bob = make_person("Bob Builder", user_key="bob")
    mia = make_person("Mia Member", user_key="mia")
    dan = make_person("Dan Delegate", role="staff", user_key="dan")
    sam = make_person("Sam Student", role="phd_student", user_key="sam")
    db.add(m.Delegation(person_id=ada.id, delegate_id=dan.id))
    _paper(
        db, "Joint OSDI", [ada, bob], year=2025, month=10, venue_short="OSDI'25", venue="OSDI"
    )  # in the year (October 2025), with Bob
    _paper(db, "August paper", [ada], year=2025, month=8, venue_short="SOSP'25", type="journal")
    _paper(db, "No month", [ada], year=2026, venue="A Workshop", type="workshop")  # July 2026
    _paper(db, "Accepted undated", [ada], status="accepted")
    _paper(db, "Accepted long ago", [ada], status="accepted", year=2024)
    _paper(db, "Under review", [ada], status="under_review", year=2025, month=11)
    _paper(
        db,
        "Private paper",
        [ada],
        year=2025,
        month=12,
        venue_short="OSDI 2025",
        visibility="private",
    )
    _paper(db, "Undated paper", [ada], year=None)
    _paper(
        db, "Bob's NSDI", [bob], year=2025, month=10, venue_short="NSDI'25", visibility="members"
    )
    db.add(
        m.AdvisingRelation(
            owner_id=ada.id, advisor_id=ada.id, student_id=sam.id, status="current", start_year=2023
        )
    )
    _graduate(
        db,
        ada,
        "Tom Typed",
        2026,
        placement="Assistant Professor, MIT",
        placement_kind="faculty",
        placement_organisation="MIT",
    )
    _graduate(db, ada, "Uma Undated", None)
    _graduate(db, ada, "Vic Unplaced", 2026)
    _graduate(db, ada, "Old Graduate", 2020, placement_kind="industry")
    db.add_all([
        m.Teaching(owner_id=ada.id, title="Systems", term="Fall 2025", year=2025),
        m.Teaching(owner_id=ada.id, title="Networks", term="Spring", year=2025),
        m.Teaching(owner_id=ada.id, title="Compilers", term="Spring 2026", year=2026),
        m.Service(owner_id=ada.id, kind="program_committee", venue="OSDI", year=2026),
        m.Service(owner_id=ada.id, kind="program_committee", venue="SOSP", year=2025),
        m.Funding(owner_id=ada.id, funder="NSF", start_year=2020, end_year=2025),
        m.Funding(owner_id=ada.id, funder="DARPA", start_year=2024),  # open-ended
        m.Funding(owner_id=ada.id, funder="Old", start_year=2018, end_year=2022),
        m.Funding(owner_id=ada.id, funder="Undated"),
        m.Funding(owner_id=ada.id, funder="Future", start_year=2027),
        m.Award(owner_id=ada.id, title="Best Paper", year=2026),
        m.Award(owner_id=ada.id, title="Private prize", year=2026, visibility="private"),
        m.Award(owner_id=ada.id, title="Last year's", year=2025),
        m.NewsItem(owner_id=ada.id, year=2025, month=10, body="October news"),
        m.NewsItem(owner_id=ada.id, year=2025, month=6, body="June news"),
        m.NewsItem(owner_id=ada.id, year=2026, body="Undated-month news"),
        m.RecruitingNotice(owner_id=ada.id, level="phd", description="Open",
                           created_at=datetime(2025, 6, 1, tzinfo=UTC)),
        m.RecruitingNotice(owner_id=ada.id, level="postdoc", description="Closed",
                           created_at=datetime(2025, 1, 1, tzinfo=UTC),
                           expires_on=date(2025, 5, 1)),
    ])  # fmt: skip
    db.commit()
    return {"ada": ada, "bob": bob, "mia": mia, "dan": dan, "sam": sam}


def viewers(dept: dict[str, Any]) -> dict[str, Viewer]:
    return {
        "admin": Viewer("admin", is_admin=True),
        "owner": Viewer("ada", person_id=dept["ada"].id),
        "delegate": Viewer("dan", person_id=dept["dan"].id),
        "chair": Viewer("chair", is_chair=True),
    }


#: The person's report of Ada for 2025–26, as each viewer may see it.
ADA = {
    "published": 3, "accepted": 1, "in_progress": 1, "students_current": 1,
    "students_graduated": 2, "teaching": 2, "service": 1, "funding": 2, "awards": 2, "news": 2,
    "recruiting": 1, "coauthors": 1,
}  # fmt: skip
#: A delegate sees what a member sees: not the private paper, nor the private award.
ADA_FOR_DELEGATE = {**ADA, "published": 2, "awards": 1}


SEEN_BY = [("admin", ADA), ("owner", ADA), ("delegate", ADA_FOR_DELEGATE)]


@pytest.mark.parametrize(("who", "expected"), SEEN_BY)
def test_every_count_of_a_persons_report(db, dept, who, expected) -> None:
    report = person_report(db, viewers(dept)[who], dept["ada"], YEAR)
    assert report.totals() == expected
    titles = {group: sorted(p.title for p in report.group(group))
              for group in ("published", "accepted", "in_progress")}  # fmt: skip
    published = ["Joint OSDI", "No month", "Private paper"]
    if who == "delegate":
        published.remove("Private paper")
    assert titles == {"published": published, "accepted": ["Accepted undated"],
                      "in_progress": ["Under review"]}  # fmt: skip
    assert [(s.name, s.placement_kind) for s in report.graduated_students] == [
        ("Tom Typed", "faculty"), ("Vic Unplaced", None)]  # fmt: skip
    assert [c.title for c in report.entries["teaching"]] == ["Systems", "Compilers"]
    assert sorted(f.funder for f in report.entries["funding"]) == ["DARPA", "NSF"]
    assert dict(report.counts_by_type("published")) == (
        {"conference": 2, "workshop": 1} if who != "delegate" else {"conference": 1, "workshop": 1}
    )
    venues = dict(report.venues())
    assert venues == ({"OSDI": 2, "A Workshop": 1} if who != "delegate"
                      else {"OSDI": 1, "A Workshop": 1})  # fmt: skip
    assert [(node.name, papers) for node, papers in report.coauthors()] == [("Bob Builder", 1)]


def test_what_a_persons_report_cannot_count(db, dept) -> None:
    report = person_report(db, viewers(dept)["owner"], dept["ada"], YEAR)
    found = sorted((p.kind, p.title) for p in report.problems)
    assert found == [
        ("funding_no_dates", "Undated"),
        ("graduation_no_year", "Uma Undated"),
        ("paper_no_year", "Undated paper"),
        ("placement", "Uma Undated"),
        ("placement", "Vic Unplaced"),
        ("venue_no_short", "No month"),
    ]
    assert all(p.slug == "ada-lovelace" and p.entry_id for p in report.problems)


#: The department's totals for 2025–26 as an admin sees them, and for 2024–25.
DEPARTMENT = {
    "published": 4, "accepted": 1, "in_progress": 1, "students_current": 1,
    "students_graduated": 2, "teaching": 2, "service": 1, "funding": 2, "awards": 2, "news": 2,
    "recruiting": 1,
}  # fmt: skip
PREVIOUS = {
    "published": 1, "accepted": 1, "in_progress": 0, "students_current": 1,
    "students_graduated": 0, "teaching": 1, "service": 1, "funding": 2, "awards": 1, "news": 1,
    "recruiting": 2,
}  # fmt: skip


def test_every_count_of_the_departments_report(db, dept) -> None:
    report = department_report(db, viewers(dept)["admin"], YEAR, areas=AREAS)
    assert report.totals == DEPARTMENT
    assert report.previous.label == "2024–25"
    assert report.previous_totals == PREVIOUS
    assert report.change("published") == 3
    assert dict(report.types) == {"conference": 3, "workshop": 1}
    rows = {row.name: row.counts for row in report.people}
    assert set(rows) == {"Ada Lovelace", "Bob Builder", "Mia Member"}  # the faculty
    assert rows["Ada Lovelace"] == {**DEPARTMENT, "published": 3}
    assert rows["Bob Builder"] == {**dict.fromkeys(DEPARTMENT, 0), "published": 2}
    assert rows["Mia Member"] == dict.fromkeys(DEPARTMENT, 0)
    assert report.years == [2022, 2023, 2024, 2025, 2026]
    assert report.venues == [("OSDI", {2025: 2}), ("NSDI", {2025: 1}), ("SOSP", {2025: 1})]
    assert report.areas == [("Systems", {2025: 3}), ("Other", {2025: 1})]
    assert [(g.name, g.kind, g.advisor) for g in report.graduates] == [
        ("Tom Typed", "faculty", "Ada Lovelace"),
        ("Vic Unplaced", None, "Ada Lovelace"),
    ]
    assert report.placements == [("faculty", 1), ("", 1)]
    assert report.funders == [("DARPA", 1), ("NSF", 1)]
    assert report.problems.counts == {"paper_no_year": 1, "venue_no_short": 1,
                                      "funding_no_dates": 1, "graduation_no_year": 1,
                                      "placement": 2}  # fmt: skip


def test_the_chair_counts_only_what_a_member_may_see(db, dept) -> None:
    """The private paper (Ada's, an OSDI paper of the year) and the private award are not
    counted for the chair, who is no admin."""
    report = department_report(db, viewers(dept)["chair"], YEAR, areas=AREAS)
    assert report.totals == {**DEPARTMENT, "published": 3, "awards": 1}
    assert {r.name: r.counts["published"] for r in report.people}["Ada Lovelace"] == 2
    assert report.venues == [("NSDI", {2025: 1}), ("OSDI", {2025: 1}), ("SOSP", {2025: 1})]
    assert report.areas == [("Systems", {2025: 2}), ("Other", {2025: 1})]


def test_every_role_and_a_hidden_profile(db, dept) -> None:
    """Rows for everyone listed; a private profile is counted for nobody but admins."""
    admin, chair = viewers(dept)["admin"], viewers(dept)["chair"]
    everyone = department_report(db, admin, YEAR, role="")
    assert {r.name for r in everyone.people} == {"Ada Lovelace", "Bob Builder", "Mia Member",
                                                 "Dan Delegate", "Sam Student"}  # fmt: skip
    dept["bob"].visibility = "private"
    db.commit()
    hidden = department_report(db, chair, YEAR)
    assert "Bob Builder" not in {r.name for r in hidden.people}
    # Bob's NSDI paper is on his profile only: gone; the joint paper stays (Ada's profile).
    assert hidden.totals["published"] == 2
    assert build_network(db, chair, YEAR, 100).pairs == []


def test_the_network_counts_joint_papers_and_lays_out_the_same_every_time(db, dept) -> None:
    admin = viewers(dept)["admin"]
    network = build_network(db, admin, YEAR, 100)
    assert [(n.name, n.papers) for n in network.nodes] == [("Ada Lovelace", 3),
                                                          ("Bob Builder", 2)]  # fmt: skip
    assert [(p.first.name, p.second.name, p.papers) for p in network.pairs] == [
        ("Ada Lovelace", "Bob Builder", 1)]  # fmt: skip
    kept = build_network(db, admin, YEAR, 100)  # the same graph: its layout is kept
    forget_layouts()
    again = build_network(db, admin, YEAR, 100)  # laid out anew
    assert [(n.x, n.y) for n in again.nodes] == [(n.x, n.y) for n in network.nodes]
    assert [(n.x, n.y) for n in kept.nodes] == [(n.x, n.y) for n in network.nodes]
    assert network.nodes[0].x != network.nodes[1].x or network.nodes[0].y != network.nodes[1].y
    # The joint paper is of October 2025: no pair in the calendar year 2024.
    assert build_network(db, admin, calendar_year(2024), 100).pairs == []
    assert build_network(db, admin, YEAR, 1).left_out == 1


def test_the_department_lists_its_problems_up_to_a_limit(db, dept, monkeypatch) -> None:
    from directory.services.reports import quality

    monkeypatch.setattr(quality, "DEPARTMENT_LIMIT", 1)
    problems = department_report(db, viewers(dept)["admin"], YEAR).problems
    assert problems.counts["placement"] == 2
    assert [p.kind for p in problems.shown].count("placement") == 1
    assert problems.total == 6


@pytest.mark.parametrize("period", [YEAR, calendar_year(2025), academic_year(2024, 7)],
                         ids=lambda p: f"{p.kind}-{p.label}")  # fmt: skip
def test_the_python_twin_of_the_paper_groups_agrees_with_the_sql(db, make_person, period) -> None:
    """The department counts its papers in Python from one grouped statement; each paper's
    group there is the one the SQL of the person's report gives."""
    from sqlalchemy import select

    from directory.services.reports import counting

    ada = make_person(user_key="ada")
    statuses = ("published", "accepted", "under_review", "preprint", "in_preparation")
    for status in statuses:
        for year in (None, 2023, 2024, 2025, 2026, 2027):
            for month in (None, 1, 6, 7, 8, 9, 12):
                db.add(m.Publication(title=f"{status} {year} {month}", status=status, year=year,
                                     month=month, created_by_id=ada.id))  # fmt: skip
    db.commit()
    pub = m.Publication
    rows = db.execute(select(pub.status, pub.year, pub.month, counting.paper_group(period, pub)))
    disagreements = [
        (status, year, month, group)
        for status, year, month, group in rows
        if counting.paper_group_of(period, status, year, month) != group
    ]
    assert disagreements == []


def test_the_rows_read_by_the_papers_index_keep_only_listed_members(db, dept, make_person):
    """The network and the per-person rows read a paper's listing rows by the paper and keep
    the listed members' in Python: a co-author whose profile is not listed (an alumnus) is no
    node, a row hidden from a profile counts for nobody, and a person's own network has the
    pairs the department's has with them."""
    ada, bob, mia = dept["ada"], dept["bob"], dept["mia"]
    al = make_person("Al Alumnus", role="alumni")
    paper = _paper(db, "Four of us", [ada, bob, mia, al], year=2025, month=11)
    db.query(m.ProfilePublication).filter_by(person_id=mia.id, publication_id=paper.id).update(
        {"hidden": True}
    )
    db.commit()
    admin = viewers(dept)["admin"]
    network = build_network(db, admin, YEAR, 100)
    assert [(n.name, n.papers) for n in network.nodes] == [("Ada Lovelace", 4),
                                                          ("Bob Builder", 3)]  # fmt: skip
    assert [(p.first.name, p.second.name, p.papers) for p in network.pairs] == [
        ("Ada Lovelace", "Bob Builder", 2)]  # fmt: skip
    own = person_report(db, admin, ada, YEAR)
    assert [(n.name, papers) for n, papers in own.coauthors()] == [("Bob Builder", 2)]
    rows = {r.name: r.counts for r in department_report(db, admin, YEAR).people}
    assert (rows["Ada Lovelace"]["published"], rows["Bob Builder"]["published"],
            rows["Mia Member"]["published"]) == (4, 3, 0)  # fmt: skip


def test_the_department_counts_each_period_with_the_statements_built_for_another(db, dept) -> None:
    """The department's statements are built once and each request binds its periods: a
    report counted after another period's is the one counted by statements built for it."""
    from directory.services.reports import memo

    admin = viewers(dept)["admin"]
    periods = (calendar_year(2023), YEAR, academic_year(2026, 9))
    after_another = [department_report(db, admin, period) for period in periods]
    fresh = []
    for period in periods:
        memo._BUILT.clear()
        fresh.append(department_report(db, admin, period))
    assert [(r.totals, r.previous_totals, [p.counts for p in r.people], r.problems.counts)
            for r in after_another] == [
        (r.totals, r.previous_totals, [p.counts for p in r.people], r.problems.counts)
        for r in fresh]  # fmt: skip
    assert after_another[1].totals != after_another[0].totals
