"""Department pages cost a fixed number of SQL statements, however large the department: the
same page run against a small and a three times larger department issues the same count."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event, select

from directory import models as m
from directory.formats.names import make_slug, sort_name
from directory.services.reports import memo
from tests.conftest import login
from tests.support.statements import count_rows, count_statements

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
    "/directory/alumni/summary?advisors=2",
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


def rows_fetched(client, engine, urls: list[str]) -> dict[str, int]:
    """The rows each of ``urls`` fetches from the database (one request each, answered 200)."""
    found = {}
    for url in urls:
        with count_statements(engine) as log, count_rows(log):
            assert client.get(url).status_code == 200
        found[url] = log.rows
    return found


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


# ----------------------------------------------------------------------------- every page

#: Every page (a GET route of the blueprint): who asks, and its URL in the department built
#: above ({slug}, {pub_id}, {uid}, {entry_id}, {area_id}: Prof Person0's profile, one of its
#: papers and news items, the first area). Prof Person0's profile grows with the department.
EVERY_PAGE = {
    "directory.index": ("", "/"),
    "directory.areas": ("", "/areas/"),
    "directory.area": ("", "/areas/area-0"),
    "directory.alumni": ("", "/alumni"),
    "directory.alumni_summary": ("", "/alumni/summary"),
    "directory.alumni_csv": ("", "/alumni.csv"),
    "directory.recruiting": ("", "/recruiting"),
    "directory.recruiting_feed": ("", "/recruiting.atom"),
    "directory.news": ("", "/news"),
    "directory.news_feed": ("", "/news.atom"),
    "directory.publications": ("", "/publications?area=area-0"),
    "directory.department_publications_bibtex": ("", "/publications.bib"),
    "directory.department_publications_csl": ("", "/publications.csl.json"),
    "directory.paper": ("", "/publications/{uid}"),
    "directory.publication_record": ("admin", "/publications/{uid}/record"),
    "directory.search": ("", "/search?q=Person"),
    "directory.sitemap_xml": ("", "/sitemap.xml"),
    "directory.profile": ("", "/people/{slug}"),
    "directory.photo": ("", "/people/{slug}/photo"),
    "directory.person_publications": ("", "/people/{slug}/publications?page=1"),
    "directory.person_publications_bibtex": ("", "/people/{slug}/publications.bib"),
    "directory.person_publications_csl": ("", "/people/{slug}/publications.csl.json"),
    "directory.cv": ("", "/people/{slug}/cv"),
    "directory.me": ("owner", "/me"),
    "directory.edit_person": ("admin", "/people/{slug}/edit"),
    "directory.edit_profile": ("owner", "/people/{slug}/edit/profile"),
    "directory.edit_photo": ("owner", "/people/{slug}/edit/photo"),
    "directory.edit_entry": ("owner", "/people/{slug}/edit/news/{entry_id}"),
    "directory.edit_publication": ("owner", "/people/{slug}/edit/publications/{pub_id}"),
    "directory.delegates": ("owner", "/people/{slug}/edit/delegates"),
    "directory.history": ("owner", "/people/{slug}/history"),
    "directory.my_publications_import": ("owner", "/me/publications/import"),
    "directory.publications_import": ("owner", "/people/{slug}/publications/import"),
    "directory.publications_manage": ("owner", "/people/{slug}/publications/manage"),
    "directory.admin_index": ("admin", "/admin/"),
    "directory.admin_people": ("admin", "/admin/people"),
    "directory.admin_person": ("admin", "/admin/people/{slug}"),
    "directory.admin_merge": ("admin", "/admin/merge"),
    "directory.admin_areas": ("admin", "/admin/areas/{area_id}"),
    "directory.admin_stale": ("admin", "/admin/stale"),
    "directory.admin_harvest": ("admin", "/admin/harvest"),
    "directory.approvals": ("admin", "/approvals"),
    "directory.api_index": ("", "/api/v1/"),
    "directory.api_openapi": ("", "/api/v1/openapi.json"),
    "directory.api_people": ("", "/api/v1/people"),
    "directory.api_person": ("", "/api/v1/people/{slug}"),
    "directory.api_positions": ("", "/api/v1/positions"),
    "directory.api_publications": ("", "/api/v1/publications"),
    "directory.api_areas": ("", "/api/v1/areas"),
    "directory.api_alumni": ("", "/api/v1/alumni"),
    "directory.api_alumni_summary": ("", "/api/v1/alumni/summary"),
    "directory.edit_papers_and_cv": ("owner", "/people/{slug}/edit/papers-and-cv"),
    "directory.admin_import_people": ("admin", "/admin/people/import"),
    "directory.person_report_page": ("owner", "/people/{slug}/report?year=2024"),
    "directory.person_report_csv": ("owner", "/people/{slug}/report.csv?year=2024"),
    "directory.person_report_json": ("owner", "/people/{slug}/report.json?year=2024"),
    "directory.department_report_page": ("admin", "/reports/department?year=2024&role="),
    "directory.department_report_csv": ("admin", "/reports/department.csv?year=2024"),
    "directory.department_network": ("admin", "/reports/network?year=2024"),
}

#: GET routes that are not measured here, and why.
NOT_PAGES = {
    "directory.static": "files from the package, no SQL",
    "directory.api_not_found": "a 404 for any unknown API path, no SQL",
    "directory.logout": "a sign-out confirmation, no department data",
    "directory.login": "the built-in sign-in form (off in the test host), no department data",
    "directory.claim_profile": "one invitation looked up by its token",
    "directory.publications_preview": "an import draft: its cost grows with the file, not the "
    "department (benchmarks/bench_bibtex_import.py measures it)",
    "directory.cv_pdf": "the CV page's statements (directory.cv) rendered by WeasyPrint",
    "directory.person_report_pdf": "the report page's statements rendered by WeasyPrint",
    "directory.department_report_pdf": "the report page's statements rendered by WeasyPrint",
    "directory.still_current": "one reminder looked up by the signed token of its e-mail",
    "directory.found_link": "a digest's signed link, checked without SQL, and a redirect",
}


def test_every_page_is_counted() -> None:
    from tests.invariants.test_security import GET_ENDPOINTS

    assert set(GET_ENDPOINTS) == set(EVERY_PAGE) | set(NOT_PAGES)


def _grow_profile(db, owner: m.Person, numbers: range) -> None:
    """More students, papers, news and history on ``owner``'s profile."""
    for i in numbers:
        student = m.Person(
            full_name=f"Extra Student{i}", slug=f"extra-student{i}", sort_name=f"S{i}",
            role="phd_student",
        )  # fmt: skip
        db.add(student)
        db.flush()
        db.add(m.AdvisingRelation(owner_id=owner.id, advisor_id=owner.id, student_id=student.id))
        db.add(m.NewsItem(owner_id=owner.id, year=2024, month=1, body=f"More news {i}"))
        pub = m.Publication(title=f"Extra paper {i}", year=2020 - i)
        pub.authorships.append(m.Authorship(position=0, name=owner.full_name, person=owner))
        db.add(pub)
        db.flush()
        db.add(m.ProfilePublication(person_id=owner.id, publication_id=pub.id))
    db.commit()


def test_every_page_costs_the_same_statements_in_a_larger_department(app, client, db) -> None:
    build_department(db, range(0, 2))
    owner = db.scalar(select(m.Person).where(m.Person.slug == make_slug("Prof Person0")))
    owner.user_key = "prof-0"
    db.commit()
    pub = db.scalar(
        select(m.Publication)
        .join(m.ProfilePublication)
        .where(m.ProfilePublication.person_id == owner.id)
        .order_by(m.Publication.id)
    )
    news = db.scalar(select(m.NewsItem).where(m.NewsItem.owner_id == owner.id))
    area = db.scalar(select(m.ResearchArea).where(m.ResearchArea.slug == "area-0"))
    values = {"slug": owner.slug, "pub_id": pub.id, "uid": pub.uid, "entry_id": news.id,
              "area_id": area.id}  # fmt: skip
    viewers = {"": None, "owner": "prof-0", "admin": "admin"}

    def counts() -> dict[str, int]:
        found = {}
        for endpoint, (viewer, path) in EVERY_PAGE.items():
            login(client, viewers[viewer])
            url = "/directory" + path.format(**values)
            client.get(url)  # a first request may fill caches of its own
            memo.forget()  # but a report is counted anew (kept reports cost 3 statements)
            with counting(app) as statements:
                response = client.get(url)
            assert response.status_code == 200, (endpoint, url, response.status_code)
            found[endpoint] = len(statements)
        return found

    small = counts()
    build_department(db, range(2, 6))
    _grow_profile(db, owner, range(6, 12))
    large = counts()
    assert {e: (small[e], large[e]) for e in small if small[e] != large[e]} == {}
