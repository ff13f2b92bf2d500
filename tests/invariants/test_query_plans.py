"""The listing rules' statements never scan a table once per row.

SQLite runs a correlated subquery (the "listed on a visible profile" EXISTS) or the inner side
of a join as a nested loop: a SCAN there reads the whole table for every outer row, which made
the department's publication pages quadratic. Each rule's statement is run against the
migrated schema (on SQLite, whatever the suite's database) and SQLite's ``EXPLAIN QUERY PLAN``
is read: a table may be scanned only as the outer loop of a query evaluated once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

import pytest
from sqlalchemy import Engine, create_engine, event, exists, select, text
from sqlalchemy.orm import Session, aliased

from directory import migrate
from directory import models as m
from directory.services import access, alumni
from directory.services.department.people import ListingFilters, listing
from directory.services.department.publications import (
    PublicationFilters,
    publication_conditions,
    publications_stmt,
)
from directory.services.identity import ANONYMOUS, Viewer

VIEWERS = {
    "anonymous": ANONYMOUS,
    "member": Viewer(key="a-member", person_id=1),
    "admin": Viewer(key="admin", is_admin=True),
}
DAY = date(2026, 12, 1)


def _owner() -> type[m.Person]:
    return aliased(m.Person, name="owner")


def listed_publications(viewer: Viewer):
    return select(m.Publication.id).where(access.listed_publications(viewer, m.Publication))


def filtered_publications(viewer: Viewer):
    """The benchmark's quadratic page: papers of an area's people in a year."""
    filters = PublicationFilters(area="systems", year=2026)
    return publications_stmt(viewer, filters)


def area_papers_walked(viewer: Viewer):
    """A research area's newest papers, each paper read newest first checked against the
    area's listing people (an IN list inside the correlated EXISTS, built once)."""
    filters = PublicationFilters(area="systems")
    return select(m.Publication.id).where(*publication_conditions(viewer, filters, walk=True))


def listed_people(viewer: Viewer):
    return select(m.Person.id).where(access.listed_people(viewer))


def listed_notices(viewer: Viewer):
    return select(m.RecruitingNotice.id).where(access.listed_notices(viewer, DAY))


RULES = [
    listed_publications,
    filtered_publications,
    area_papers_walked,
    listed_people,
    listed_notices,
]


@dataclass
class PlanStep:
    id: int
    parent: int
    detail: str


#: Plan steps that start a query of their own: a subquery, a CTE or subquery computed once
#: (materialised, or a co-routine feeding its reader), and the two halves of a recursive CTE
#: (its start, and the step run on each row taken from its queue, whose SCAN of the CTE reads
#: that one row). A SCAN is the outer loop of its query when it is the first table read there.
QUERY_STARTS = ("SUBQUERY", "MATERIALIZE", "CO-ROUTINE", "SETUP", "RECURSIVE STEP")
#: Subqueries SQLite computes once per statement when they are not correlated.
ONCE = ("LIST SUBQUERY", "SCALAR SUBQUERY")


def per_row_scans(plan: list[PlanStep]) -> list[str]:
    """The steps of ``plan`` that read a whole table once per row of something else: a SCAN
    inside a correlated subquery (at any depth), or a SCAN that is not the outermost loop of
    its query (an automatic index, built per statement because no real one fits, counts too)."""
    by_id = {step.id: step for step in plan}

    def ancestors(step: PlanStep) -> Iterator[PlanStep]:
        parent = by_id.get(step.parent)
        while parent is not None:
            yield parent
            parent = by_id.get(parent.parent)

    def scope(step: PlanStep) -> PlanStep | None:
        return next((a for a in ancestors(step) if any(k in a.detail for k in QUERY_STARTS)), None)

    def per_outer_row(step: PlanStep) -> bool:
        """Whether the query ``step`` is in runs again for each row of an outer one: inside a
        correlated subquery, unless an uncorrelated subquery between them is computed once
        (SQLite builds an uncorrelated IN list once per statement, even inside a correlated
        subquery: the listing people a paper's rows are checked against)."""
        for above in ancestors(step):
            if "CORRELATED" in above.detail:
                return True
            if above.detail.startswith(ONCE):
                return False
        return False

    found = []
    loops_seen: dict[int | None, int] = {}
    for step in plan:
        detail = step.detail
        table_access = detail.startswith(("SCAN", "SEARCH")) and "CONSTANT ROW" not in detail
        if not table_access:
            continue
        outer = scope(step)
        key = outer.id if outer is not None else None
        position = loops_seen.get(key, 0)
        loops_seen[key] = position + 1
        correlated = per_outer_row(step)
        per_row = detail.startswith("SCAN") and (correlated or position > 0)
        if per_row or "AUTOMATIC" in detail:
            found.append(detail)
    return found


@pytest.fixture(scope="module")
def sqlite_engine(tmp_path_factory) -> Iterator[Engine]:
    path = tmp_path_factory.mktemp("plans") / "plans.sqlite3"
    engine = create_engine(f"sqlite:///{path}")
    migrate.upgrade(engine)
    yield engine
    engine.dispose()


def explain(engine: Engine, statement) -> list[tuple[str, list[PlanStep]]]:
    """Every SQL statement ``statement`` sends (an ORM select may send several, e.g. its
    ``selectinload``s), each with SQLite's plan for it."""
    return explain_calls(engine, lambda session: session.execute(statement).all())


def explain_calls(engine: Engine, run) -> list[tuple[str, list[PlanStep]]]:
    """Every SQL statement ``run(session)`` sends, each with SQLite's plan for it."""
    plans: list[tuple[str, list[PlanStep]]] = []

    def capture(conn, cursor, sql, parameters, context, executemany) -> None:
        rows = cursor.connection.execute(f"EXPLAIN QUERY PLAN {sql}", parameters).fetchall()
        plans.append((sql, [PlanStep(r[0], r[1], r[3]) for r in rows]))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        with Session(engine) as session:
            run(session)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    return plans


def people_in_area(viewer: Viewer):
    """The listing's and the area page's rule: listed people of an area and its sub-areas."""
    return select(m.Person.id).where(access.people_in_area(viewer, "systems"))


def notices_in_area(viewer: Viewer):
    return select(m.RecruitingNotice.id).where(
        access.listed_notices(viewer, DAY), access.notice_in_area("systems")
    )


def _alumni_parts(viewer: Viewer, **filters: str):
    filters = alumni.AlumniFilters(**filters)
    return alumni._records(viewer, filters, None)


def alumni_page(viewer: Viewer):
    """The alumni outputs' page of records, with an area filter."""
    return alumni._records_page(_alumni_parts(viewer, area="systems", kind="faculty"), "en")


def alumni_counts(viewer: Viewer):
    """The pages' totals, the summary's counts and the filters' choices."""
    return alumni._record_counts(_alumni_parts(viewer, area="systems"))


def alumni_advisors(viewer: Viewer):
    """The summary's table of advisors."""
    return alumni._advisors_ranked(_alumni_parts(viewer, degree="phd"), "zh_Hans")


def alumni_graduations_in_full(viewer: Viewer):
    """The CSV's read."""
    return alumni._full_rows(viewer, every=True)


RULES += [people_in_area, notices_in_area, alumni_page, alumni_counts, alumni_advisors,
          alumni_graduations_in_full]  # fmt: skip


@pytest.mark.parametrize("viewer", VIEWERS)
@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.__name__)
def test_listing_rules_scan_no_table_per_row(sqlite_engine, rule, viewer) -> None:
    plans = explain(sqlite_engine, rule(VIEWERS[viewer]))
    assert plans
    for sql, plan in plans:
        assert per_row_scans(plan) == [], (sql, [s.detail for s in plan])


def test_the_check_finds_the_scan_a_missing_index_causes(tmp_path) -> None:
    """Without the index on directory_profile_publications.publication_id, the rule for listed
    publications scans that table for every paper, and the check above says so."""
    engine = create_engine(f"sqlite:///{tmp_path / 'no-index.sqlite3'}")
    try:
        migrate.upgrade(engine)
        with engine.begin() as conn:
            conn.execute(text("DROP INDEX ix_directory_profile_publications_publication_id"))
        # The rule as it was written before it read the profiles once: correlated per paper.
        correlated = select(m.Publication.id).where(
            exists().where(m.ProfilePublication.publication_id == m.Publication.id)
        )
        plans = explain(engine, correlated)
    finally:
        engine.dispose()
    scans = [scan for _, plan in plans for scan in per_row_scans(plan)]
    assert any("directory_profile_publications" in scan for scan in scans), plans


def test_the_check_finds_the_area_filter_read_through_the_whole_tree(sqlite_engine) -> None:
    """The area filter as it was: every area paired with each area under it (the whole tree),
    then the one asked for picked from it, which SQLite does through an index it builds for
    the statement. The check above says so; the filter now walks down from the one area."""
    area = aliased(m.ResearchArea, name="asked")
    tree = access.AREA_TREE
    whole_tree = select(m.Person.id).where(
        m.Person.id.in_(
            select(m.person_areas.c.person_id).where(
                m.person_areas.c.area_id.in_(
                    select(tree.c.sub_id)
                    .join(area, area.id == tree.c.area_id)
                    .where(area.slug == "systems")
                )
            )
        )
    )
    scans = [scan for _, plan in explain(sqlite_engine, whole_tree) for scan in per_row_scans(plan)]
    assert any("AUTOMATIC" in scan for scan in scans), scans


def test_the_check_finds_a_scan_in_a_correlated_subquery(sqlite_engine) -> None:
    """A table scanned inside a correlated subquery is read once per outer row."""
    inner = aliased(m.ResearchArea, name="inner_area")
    per_person = select(m.Person.id).where(
        exists().where(inner.name == m.Person.full_name)  # no index on the name: a SCAN
    )
    scans = [scan for _, plan in explain(sqlite_engine, per_person) for scan in per_row_scans(plan)]
    assert any("inner_area" in scan for scan in scans), scans


def test_the_check_finds_a_scan_in_a_list_the_correlated_subquery_builds_per_row(
    sqlite_engine,
) -> None:
    """An IN list inside a correlated subquery is built once only when it is not correlated
    itself: one that reads the outer row is built, and its table scanned, for every row."""
    inner = aliased(m.Person, name="inner_person")
    row = m.ProfilePublication
    per_paper = select(m.Publication.id).where(
        exists().where(
            row.publication_id == m.Publication.id,
            row.person_id.in_(
                select(inner.id)
                .where(inner.full_name == m.Publication.title)
                .correlate(m.Publication)
            ),
        )
    )
    scans = [scan for _, plan in explain(sqlite_engine, per_paper) for scan in per_row_scans(plan)]
    assert any("inner_person" in scan for scan in scans), scans


# ----------------------------------------------------------------------------- the listing


@pytest.fixture(scope="module")
def listed_someone(sqlite_engine) -> None:
    """Someone for the listing to show (with no one it sends no page statement)."""
    with Session(sqlite_engine) as session:
        area = m.ResearchArea(slug="systems", name="Systems")
        person = m.Person(slug="xingda-wei", full_name="Xingda Wei", sort_name="Wei, Xingda",
                          native_name="魏星达", role="faculty", rank="professor", areas=[area],
                          unit="Systems Lab")  # fmt: skip
        session.add(person)
        session.flush()
        session.add(m.RecruitingNotice(owner_id=person.id, level="phd", description="Join us"))
        session.commit()


#: The listing with each of its filters (a letter, a page past the last, a search).
LISTINGS = [
    ListingFilters(),
    ListingFilters(role="faculty", page=3),
    ListingFilters(area="systems", letter="W"),
    ListingFilters(recruiting=True),
    ListingFilters(q="wei systems", unit="Systems Lab"),
]


@pytest.mark.parametrize("locale", ["en", "zh_Hans"])
@pytest.mark.parametrize("viewer", VIEWERS)
@pytest.mark.parametrize(
    "filters", LISTINGS, ids=lambda f: "&".join(f"{k}={v}" for k, v in f.to_args().items()) or "all"
)
def test_the_listing_scans_no_table_per_row(
    app, sqlite_engine, listed_someone, filters, viewer, locale
) -> None:
    """Every statement of a page of the people listing (its counts, its page in the locale's
    stored name order, the cards' areas, links and photos, the badges of the people shown,
    the filter choices)."""
    from directory.i18n import force_locale

    found: list = []

    def run(session: Session) -> None:
        found.append(listing(session, VIEWERS[viewer], DAY, filters, 150))

    with app.app_context(), force_locale(locale):
        plans = explain_calls(sqlite_engine, run)
    assert [p.slug for p in found[0].people] == ["xingda-wei"]
    assert len(plans) >= 7
    for sql, plan in plans:
        assert per_row_scans(plan) == [], (sql, [s.detail for s in plan])
