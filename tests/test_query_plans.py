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
from directory.services import access, department
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
    filters = department.PublicationFilters(area="systems", year=2026)
    return department.publications_stmt(viewer, filters)


def listed_people(viewer: Viewer):
    return select(m.Person.id).where(access.listed_people(viewer))


def listed_notices(viewer: Viewer):
    return select(m.RecruitingNotice.id).where(access.listed_notices(viewer, DAY))


RULES = [listed_publications, filtered_publications, listed_people, listed_notices]


@dataclass
class PlanStep:
    id: int
    parent: int
    detail: str


def per_row_scans(plan: list[PlanStep]) -> list[str]:
    """The steps of ``plan`` that read a whole table once per row of something else: a SCAN
    inside a correlated subquery, or a SCAN that is not the outermost loop of its query (an
    automatic index, built per statement because no real one fits, counts too)."""
    by_id = {step.id: step for step in plan}

    def scope(step: PlanStep) -> PlanStep | None:
        parent = by_id.get(step.parent)
        while parent is not None and "SUBQUERY" not in parent.detail:
            parent = by_id.get(parent.parent)
        return parent

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
        correlated = outer is not None and "CORRELATED" in outer.detail
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
    plans: list[tuple[str, list[PlanStep]]] = []

    def capture(conn, cursor, sql, parameters, context, executemany) -> None:
        rows = cursor.connection.execute(f"EXPLAIN QUERY PLAN {sql}", parameters).fetchall()
        plans.append((sql, [PlanStep(r[0], r[1], r[3]) for r in rows]))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        with Session(engine) as session:
            session.execute(statement).all()
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    return plans


#: A known gap, kept visible: the area filter's recursive area tree (sub-areas included) is
#: read once per paper on SQLite. A strict xfail, so fixing it makes this fail until removed.
AREA_TREE_GAP = pytest.mark.xfail(
    strict=True, reason="the recursive area tree of the area filter is scanned per paper"
)


@pytest.mark.parametrize("viewer", VIEWERS)
@pytest.mark.parametrize(
    "rule",
    [pytest.param(r, marks=AREA_TREE_GAP) if r is filtered_publications else r for r in RULES],
    ids=lambda r: r.__name__,
)
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
