"""The department's papers are read in two shapes of one rule
(:func:`~directory.services.access.on_visible_profile_clause`): probed paper by paper (a page
walked newest first, the department's count) or read from the listing people's rows (a
person's papers, an area's count). Both must keep the very papers the rule's definition keeps,
in the same order and with the same counts, for every kind of viewer: a paper is listed when
the viewer may see it and it is on the list, not hidden, of a profile the viewer may see (of
someone in the area or the person asked for). Compared here with that definition written out
in Python over a department with private and members-only papers, hidden rows, members-only,
private, unpublished and alumni profiles, and an area with a sub-area."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import select

from directory import models as m
from directory.services.access import can_view
from directory.services.department.areas import area_page
from directory.services.department.publications import (
    PublicationFilters,
    publications_page,
    shown_publications,
)
from directory.services.identity import ANONYMOUS, Viewer


@pytest.fixture
def department(db, make_person):
    systems = m.ResearchArea(slug="systems", name="Systems")
    kernels = m.ResearchArea(slug="kernels", name="Kernels", parent=systems)
    theory = m.ResearchArea(slug="theory", name="Theory")
    db.add_all([systems, kernels, theory])
    db.flush()
    people = {
        "ada": make_person("Ada Public", user_key="ada", areas=[systems]),
        "ben": make_person("Ben Members", visibility="members", areas=[kernels]),
        "cy": make_person("Cy Private", visibility="private", areas=[systems]),
        "di": make_person("Di Unlisted", published=False, areas=[kernels]),
        "ed": make_person("Ed Alumnus", role="alumni", areas=[systems]),
        "flo": make_person("Flo Theory", areas=[theory]),
    }
    names = list(people)
    papers = []
    for i in range(36):
        paper = m.Publication(
            title=f"Paper {i % 7}",
            year=2020 + i % 5 if i % 11 else None,
            month=(i * 5) % 13 or None,
            type=("conference", "journal", "preprint")[i % 3],
            visibility=("public", "public", "members", "private")[i % 4],
            created_by_id=people["ada"].id if i % 8 == 3 else None,
        )
        db.add(paper)
        db.flush()
        papers.append(paper)
        for k in range(1 + i % 3):  # one to three profiles list it, some of them hidden
            person = people[names[(i + 2 * k) % len(names)]]
            hidden = (i + k) % 5 == 0
            db.add(
                m.ProfilePublication(person_id=person.id, publication_id=paper.id, hidden=hidden)
            )
    db.add(m.Publication(title="On no profile", year=2024))
    db.commit()
    return people, papers


def _viewers(people) -> list[Viewer]:
    return [
        ANONYMOUS,
        Viewer(key="ada", person_id=people["ada"].id),
        Viewer(key="someone"),
        Viewer(key="admin", is_admin=True),
    ]


def _profile_visible(viewer: Viewer, person: m.Person) -> bool:
    """The definition of a profile the viewer may see (person_clause), for one person."""
    if not can_view(viewer, person, owner_id=person.id):
        return False
    return person.published or viewer.is_admin or person.id == viewer.person_id


def _expected(db, viewer: Viewer, filters: PublicationFilters) -> list[m.Publication]:
    """The listed papers matching ``filters``, newest first, by the rule's definition."""
    areas = {a.slug: a for a in db.scalars(select(m.ResearchArea))}

    def in_area(person: m.Person, slug: str) -> bool:
        def under(area) -> bool:
            return area is not None and (area.slug == slug or under(area.parent))

        return any(under(area) for area in person.areas)

    def listed_by(paper: m.Publication, keep) -> bool:
        rows = db.scalars(
            select(m.ProfilePublication).where(m.ProfilePublication.publication_id == paper.id)
        )
        return any(
            not row.hidden
            and _profile_visible(viewer, person := db.get(m.Person, row.person_id))
            and keep(person)
            for row in rows
        )

    assert not filters.area or filters.area in areas
    kept = []
    for paper in db.scalars(select(m.Publication)):
        if not can_view(viewer, paper, owner_id=paper.created_by_id):
            continue
        if not listed_by(paper, lambda person: True):
            continue
        if filters.person and not listed_by(paper, lambda p: p.slug == filters.person):
            continue
        if filters.area and not listed_by(paper, lambda p: in_area(p, filters.area)):
            continue
        if filters.year and paper.year != filters.year:
            continue
        kept.append(paper)
    # Newest first: year and month descending, unknown ones last; then title, then id.
    return sorted(
        kept,
        key=lambda p: (
            p.year is None,
            -(p.year or 0),
            p.month is None,
            -(p.month or 0),
            p.title,
            p.id,
        ),
    )


FILTERS = [
    PublicationFilters(),
    PublicationFilters(year=2022),
    PublicationFilters(area="systems"),
    PublicationFilters(area="kernels"),
    PublicationFilters(area="systems", year=2021),
    PublicationFilters(area="theory", year=2023),
    PublicationFilters(person="ada-public"),
    PublicationFilters(person="ben-members", area="systems"),
    PublicationFilters(person="ed-alumnus", year=2024),
]


def test_both_shapes_read_the_papers_of_the_rule_in_its_order(db, department) -> None:
    people, _papers = department
    for viewer in _viewers(people):
        for filters in FILTERS:
            expected = [p.uid for p in _expected(db, viewer, filters)]
            for walk in (False, True):
                for limit, offset in ((50, 0), (3, 2)):
                    shown = shown_publications(db, viewer, filters, limit, offset, walk=walk)
                    assert [p.uid for p in shown] == expected[offset : offset + limit], (
                        viewer,
                        filters,
                        walk,
                    )


def test_the_counts_and_the_page_are_those_of_the_rule(db, department) -> None:
    people, _papers = department
    for viewer in _viewers(people):
        for filters in FILTERS:
            page, choices = publications_page(db, viewer, filters, 4)
            expected = _expected(db, viewer, filters)
            assert page.total == len(expected), (viewer, filters)
            assert [p.uid for p in page.items] == [p.uid for p in expected[:4]]
            every_year = _expected(db, viewer, replace(filters, year=None))
            counted = dict(choices.years)
            for year in {p.year for p in every_year if p.year is not None}:
                assert counted[year] == sum(p.year == year for p in every_year), (viewer, year)
            assert sum(counted.values()) == sum(p.year is not None for p in every_year)
            assert set(choices.types) == {p.type for p in every_year}


def test_an_area_page_shows_the_newest_papers_of_its_people_either_way(
    db, department, monkeypatch
) -> None:
    """Whether the area's share of the listed people has its papers walked or read from its
    people, the page shows the same ten."""
    from datetime import date

    from directory.services.department import areas

    people, _papers = department
    for viewer in _viewers(people):
        for slug in ("systems", "kernels", "theory"):
            expected = [p.uid for p in _expected(db, viewer, PublicationFilters(area=slug))][:10]
            for share in (0.0, 2.0):  # every area walked; none
                monkeypatch.setattr(areas, "AREA_WALK_SHARE", share)
                page = area_page(db, viewer, date(2026, 1, 1), slug, 20)
                assert [p.uid for p in page.publications] == expected, (viewer, slug, share)
