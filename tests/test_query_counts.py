"""Department pages cost a fixed number of SQL statements, however large the department: the
same page run against a small and a three times larger department issues the same count."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event, select

from directory import models as m
from directory.formats.names import make_slug, sort_name

from .conftest import login

PAGES = [
    "/directory/",
    "/directory/?q=person&recruiting=1&letter=P",
    "/directory/areas/",
    "/directory/areas/area-0",
    "/directory/recruiting",
    "/directory/recruiting?level=phd&area=area-1",
    "/directory/recruiting.atom",
    "/directory/alumni",
    "/directory/alumni?kind=industry&area=area-0&year_from=2020",
    "/directory/alumni/summary",
    "/directory/alumni/summary?advisor=prof-person0&area=area-1",
    "/directory/alumni.csv",
    "/directory/api/v1/alumni",
    "/directory/api/v1/alumni/summary?kind=unknown",
    "/directory/publications",
    "/directory/publications?area=area-0&awards=1",
    "/directory/publications.bib",
    "/directory/news",
    "/directory/news.atom",
    "/directory/sitemap.xml",
]


def build_department(db, numbers: range) -> None:
    """Faculty numbered ``numbers``, each with a student, an alumnus, a notice, news and two
    papers, in three research areas."""
    areas = list(db.scalars(select(m.ResearchArea).order_by(m.ResearchArea.slug)))
    if not areas:
        areas = [m.ResearchArea(slug=f"area-{i}", name=f"Area {i}") for i in range(3)]
        db.add_all(areas)

    def person(name: str, **values) -> m.Person:
        p = m.Person(full_name=name, slug=make_slug(name), sort_name=sort_name(name), **values)
        db.add(p)
        return p

    for i in numbers:
        prof = person(
            f"Prof Person{i}",
            role="faculty",
            rank=("professor", "associate_professor", "assistant_professor")[i % 3],
            title="Professor",
            areas=areas[: 1 + i % 3],
            links=[m.PersonLink(kind="homepage", url=f"https://example.org/{i}")],
        )
        prof.photo = m.PersonPhoto(data=b"x", mime_type="image/png", width=1, height=1, etag="e")
        student = person(f"Stu Person{i}", role="phd_student", areas=areas[:1])
        alum = person(f"Alum Person{i}", role="alumni")
        db.flush()
        db.add_all(
            [
                m.AdvisingRelation(owner_id=prof.id, advisor_id=prof.id, student_id=student.id),
                m.AdvisingRelation(
                    owner_id=prof.id,
                    advisor_id=prof.id,
                    student_id=alum.id,
                    status="graduated",
                    end_year=2020 + i,
                    placement="Somewhere",
                    placement_organisation="Somewhere",
                    placement_kind=("industry", "faculty", None)[i % 3],
                ),
                m.AdvisingRelation(
                    owner_id=alum.id,
                    advisor_name="Outside Advisor",
                    student_id=alum.id,
                    role="co_advisor",
                    status="graduated",
                    end_year=2020 + i,
                ),
                m.RecruitingNotice(
                    owner_id=prof.id, level="phd", description="Join", areas=areas[1:2]
                ),
                m.NewsItem(owner_id=prof.id, year=2025, month=1 + i % 12, body=f"News {i}"),
            ]
        )
        for j in range(2):
            pub = m.Publication(
                title=f"Paper {i}-{j}",
                year=2015 + (i + j) % 10,
                venue_short=f"CONF'{i}",
                authorships=[
                    m.Authorship(position=0, name=student.full_name, person=student),
                    m.Authorship(position=1, name=prof.full_name, person=prof),
                ],
                links=[m.PublicationLink(kind="paper", url=f"https://example.org/p{i}{j}")],
                awards=[m.PublicationAward(name="Best Paper")],
            )
            db.add(pub)
            db.flush()
            db.add(m.ProfilePublication(person_id=prof.id, publication_id=pub.id))
            db.add(m.ProfilePublication(person_id=student.id, publication_id=pub.id))
    db.commit()


@contextmanager
def counting(app) -> Iterator[list[str]]:
    statements: list[str] = []
    engine = app.extensions["directory"].db.engine

    def count(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


def statement_counts(app, client) -> dict[str, int]:
    counts = {}
    for url in PAGES:
        with counting(app) as statements:
            assert client.get(url).status_code == 200, url
        counts[url] = len(statements)
    return counts


@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "member"])
def test_statement_counts_do_not_grow_with_the_department(app, client, db, signed_in) -> None:
    if signed_in:
        login(client, "a-member")
    build_department(db, range(0, 2))
    small = statement_counts(app, client)
    build_department(db, range(2, 6))
    large = statement_counts(app, client)
    assert large == small
    # And a page is a handful of statements, not dozens.
    assert max(small.values()) <= 20, small


def test_the_editor_costs_the_same_statements_however_many_entries_it_lists(
    app, client, db
) -> None:
    """``/me`` of a profile with advising relations, notices and papers: a larger department
    (more students advised by the same person, more papers on the profile) costs no more."""
    build_department(db, range(0, 2))
    owner = db.scalar(select(m.Person).where(m.Person.slug == make_slug("Prof Person0")))
    owner.user_key = "prof-0"
    db.commit()
    login(client, "prof-0")

    def editor_statements() -> int:
        with counting(app) as statements:
            page = client.get("/directory/me")
        assert page.status_code == 200
        assert "Prof Person0" in page.text
        return len(statements)

    small = editor_statements()
    # More students and papers on the same profile.
    for i in range(2, 6):
        student = m.Person(
            full_name=f"Extra Student{i}", slug=f"extra-student{i}", sort_name=f"S{i}",
            role="phd_student",
        )  # fmt: skip
        db.add(student)
        db.flush()
        db.add(m.AdvisingRelation(owner_id=owner.id, advisor_id=owner.id, student_id=student.id))
        pub = m.Publication(title=f"Extra paper {i}", year=2020)
        db.add(pub)
        db.flush()
        db.add(m.ProfilePublication(person_id=owner.id, publication_id=pub.id))
    db.commit()
    assert editor_statements() == small
