"""The backup carries every row of a profile: ``flask directory export --all`` then
``flask directory import-profile`` into an empty database gives back the same rows, table by
table, column by column.

Comparing an export with an export cannot see a kind, or a column, that the export leaves
out: it is missing from both. So this test compares the database rows themselves, on a
department (:func:`build_department`) that has rows in every table the backup carries and
every column of them holding something other than its default, and the sets of tables and
columns are read from the models: a table added later fails
:func:`test_every_table_is_carried_or_says_why_not` until it is carried or listed below with
its reason, and a kind or a column the fixture leaves empty fails
:func:`test_the_department_fills_every_carried_column`.

Rows are compared by content: ids are the new database's own, so a foreign key is compared
as the row it points at, named by its natural key where it has one (an authorship's person by
the person's slug, a paper by its uid), else by its content (a project's parent project).

Found by this test and now carried: a person's ``published`` and an advising relation's
``advisor_confirmed`` and ``student_confirmed`` (a restore published unpublished profiles and
showed claims nobody had confirmed).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from datetime import date, datetime
from typing import Any

from sqlalchemy import Column, Connection, Table, select, update

from directory import migrate
from directory import models as m
from directory.formats.names import make_slug, sort_name
from directory.formats.placements import structure_placement
from directory.services.photos import placeholder_portrait
from tests.conftest import make_app

#: Tables that are no part of a profile, and so of no backup, with the reason.
TABLES_NOT_CARRIED = {
    "directory_changes": "the history of changes: a restore is recorded as imports, not replayed",
    "directory_pending_changes": "proposals awaiting approval are not the profile yet",
    "directory_delegations": "who may edit whose profile is the department's grant, not the "
    "profile's content; the profile document has no place for it",
    "directory_import_drafts": "pasted BibTeX awaiting its owner's review, for a few hours",
    "directory_invitations": "one-time sign-in links; a token must not outlive its e-mail",
    "directory_local_accounts": "password hashes never leave the server in a profile document",
    "directory_reminders": "the log of reminder e-mails sent",
    "directory_sign_in_throttle": "failed sign-ins, forgotten after a while",
    "directory_sign_in_sessions": "the built-in login's open sessions, tied to this server",
    "directory_cache_state": "the page cache's generation counter",
    "directory_search_documents": "the search index, rebuilt from the rows (every import "
    "writes it; `flask directory reindex`); it names rows by their ids",
    "directory_claim_candidates": "works a harvest found, not yet the profile: the next "
    "harvest finds them again",
    "directory_harvest_runs": "the log of harvest runs",
    "directory_harvest_locks": "the harvest's lock, held only while a run lasts",
    "directory_harvest_requests": '"check now" requests, used up by the next run',
    "directory_expertise_vectors": "the expertise index's vectors, made again from the papers' "
    "and profiles' text by every import (`flask directory reindex`); it names rows by their ids",
}

#: Columns no table carries over, whatever the table.
COLUMNS_NEVER_CARRIED = {
    "id": "surrogate keys: the new database numbers its rows itself (references are "
    "compared by the content of what they point at)",
    "version": "the edit counter that detects conflicting edits; a restored row starts at 1",
    "created_at": "when the row was written: the restore writes it anew",
    "updated_at": "when the row was last written: the restore writes it anew",
}

#: Columns of one table that the backup does not carry, with the reason.
COLUMNS_NOT_CARRIED = {
    ("directory_publications", "created_by_id"): "a shared paper is one record: the restore "
    "credits it to the profile whose document brings it first",
    ("directory_areas", "description"): "the research-area taxonomy is the department's: a "
    "profile document names its areas only, and the restore creates them by name",
    ("directory_areas", "parent_id"): "as description: the taxonomy's tree is not in a profile",
    ("directory_areas", "position"): "as description: the taxonomy's order is not in a profile",
}


def carried_tables() -> list[Table]:
    return [t for t in m.Base.metadata.sorted_tables if t.name not in TABLES_NOT_CARRIED]


def carried_columns(table: Table) -> list[Column]:
    return [
        column
        for column in table.columns
        if column.name not in COLUMNS_NEVER_CARRIED
        and (table.name, column.name) not in COLUMNS_NOT_CARRIED
    ]


# ----------------------------------------------------------------------------- the rows


def _plain(value: Any) -> Any:
    if isinstance(value, bytes):
        return "sha256:" + hashlib.sha256(value).hexdigest()
    if isinstance(value, date | datetime):
        return value.isoformat()
    raise TypeError(type(value))


class DatabaseRows:
    """The carried rows of one database, each as its carried columns' values, a foreign key
    as the row it points at (:meth:`_target`)."""

    def __init__(self, conn: Connection) -> None:
        self.rows = {t.name: conn.execute(select(t)).mappings().all() for t in carried_tables()}
        self._by_key: dict[tuple[str, str], dict[Any, Any]] = {}

    def _target(self, column: Column, value: Any) -> Any:
        """The row a foreign key points at, by its natural key where it has one (a person's
        slug, a paper's uid), else by its content."""
        (fk,) = column.foreign_keys
        table, key = fk.column.table, fk.column.name
        assert table.name not in TABLES_NOT_CARRIED, f"{column} points into {table.name}"
        index = self._by_key.get((table.name, key))
        if index is None:
            index = self._by_key[(table.name, key)] = {r[key]: r for r in self.rows[table.name]}
        row = index[value]
        natural = _natural_key(table)
        return {natural: row[natural]} if natural else self.content(table, row)

    def content(self, table: Table, row: Any) -> dict[str, Any]:
        out = {}
        for column in carried_columns(table):
            value = row[column.name]
            out[column.name] = (
                self._target(column, value) if column.foreign_keys and value is not None else value
            )
        return out

    def by_table(self) -> dict[str, Counter[str]]:
        """Every carried table's rows as canonical JSON, counted."""
        return {
            table.name: Counter(
                json.dumps(self.content(table, row), sort_keys=True, default=_plain)
                for row in self.rows[table.name]
            )
            for table in carried_tables()
        }


def _natural_key(table: Table) -> str | None:
    """A carried column that names a row of ``table`` by itself (unique, never NULL)."""
    for column in carried_columns(table):
        if column.unique and not column.nullable:
            return column.name
    return None


def explain(lost: list[str], gained: list[str]) -> list[Any]:
    """Rows a round trip lost or gained, each lost row paired with the gained row most like
    it and shown as the columns that differ (``{"published": [False, True]}``)."""
    lost_rows = [json.loads(row) for row in lost]
    gained_rows = [json.loads(row) for row in gained]
    out: list[Any] = []
    for row in lost_rows:
        if not gained_rows:
            out.append({"lost": row})
            continue
        twin = max(gained_rows, key=lambda g: sum(g.get(k) == v for k, v in row.items()))
        gained_rows.remove(twin)
        out.append({k: [row.get(k), twin.get(k)] for k in row | twin if row.get(k) != twin.get(k)})
    return out + [{"gained": row} for row in gained_rows]


def differences(before: dict[str, Counter[str]], after: dict[str, Counter[str]]) -> dict:
    """The tables whose rows differ, each with :func:`explain`'s account."""
    return {
        table: explain(sorted((before[table] - after[table]).elements()),
                       sorted((after[table] - before[table]).elements()))
        for table in before
        if before[table] != after[table]
    }  # fmt: skip


def _filled(value: Any, default: Any) -> bool:
    return value is not None and value not in ("", [], {}) and value != default


def unfilled_columns(conn: Connection) -> list[str]:
    """The carried tables without rows and the carried columns that hold nothing but NULL,
    empty or their default in every row: what a round trip could drop unseen."""
    found = []
    rows = DatabaseRows(conn).rows
    for table in carried_tables():
        if not rows[table.name]:
            found.append(f"{table.name}: no row")
            continue
        for column in carried_columns(table):
            default = column.default.arg if column.default is not None else None
            default = None if callable(default) else default
            if not any(_filled(row[column.name], default) for row in rows[table.name]):
                found.append(f"{table.name}.{column.name}")
    return found


# ----------------------------------------------------------------------------- the department

#: One entry of each kind with every field given, and one with only what it needs (so that
#: each list has two rows, and the order of a list is compared too).
FULL_ENTRIES: dict[str, dict[str, Any]] = {
    "news": dict(year=2025, month=6, day=3, body="Keynote at **SOSP**.",
                 url="https://example.org/keynote", archived=True, visibility="members"),
    "education": dict(degree="PhD", field="Computer Science", institution="University of "
                      "Cambridge", unit="Computer Laboratory", place="Cambridge, UK",
                      advisors="Charles Babbage", thesis="On Analytical Engines",
                      thesis_url="https://example.org/thesis.pdf", note="With distinction.",
                      start_year=2010, start_month=9, end_year=2015, end_month=6,
                      is_current=True, visibility="private"),
    "experience": dict(kind="internship", title="Research Intern", organisation="Example Labs",
                       place="Seattle, WA", hosts="Grace Hopper", hosts_label="Mentor",
                       description="Built a *compiler*.", url="https://example.org/labs",
                       start_year=2013, start_month=6, end_year=2013, end_month=9,
                       is_current=True, visibility="members"),
    "teaching": dict(course_code="CS 101", title="Introduction to Computing", term="Fall 2025",
                     year=2025, institution="Example University", role="co_instructor",
                     url="https://example.org/cs101", visibility="members"),
    "service": dict(kind="program_committee", venue="OSDI", year=2026, role="Co-Chair",
                    note="Artifact track", visibility="members"),
    "funding": dict(funder="National Science Foundation", title="Engines at Scale",
                    grant_number="CNS-0000001", url="https://example.org/grant", start_year=2024,
                    end_year=2028, note="Lead PI.", visibility="private"),
    "custom_sections": dict(title="Outreach", body="Summer school **lectures**.",
                            visibility="members"),
    "awards": dict(title="华为火花奖", title_translation="Huawei Spark Award", year=2022,
                   giver="Huawei", url="https://example.org/award", note="For the engine paper.",
                   visibility="members"),
}  # fmt: skip
MINIMAL_ENTRIES: dict[str, dict[str, Any]] = {
    "news": dict(year=2024, body="Joined the department."),
    "education": dict(degree="BA", institution="University of London"),
    "experience": dict(title="Engineer", organisation="Example Corp"),
    "teaching": dict(title="Operating Systems"),
    "service": dict(kind="reviewer", venue="SOSP"),
    "funding": dict(funder="Example Foundation"),
    "custom_sections": dict(title="Hobbies", body="Chess."),
    "awards": dict(title="Best Teacher"),
}


def _person(**values: Any) -> m.Person:
    values.setdefault("slug", make_slug(values["full_name"]))
    values.setdefault("sort_name", sort_name(values["full_name"]))
    return m.Person(**values)


def build_department(db) -> dict[str, m.Person]:
    """Two people with rows in every table a backup carries and every carried column
    holding something other than its default somewhere (checked by
    :func:`test_the_department_fills_every_carried_column`)."""
    ada = _person(
        full_name="Ada Lovelace", native_name="艾达", name_variants=["A. Lovelace", "A. King"],
        role="faculty", rank="associate_professor", title="Associate Professor of Engines",
        unit="Computer Science", institution="Example University", email="ada@example.edu",
        office="Room 101", address="1 Engine Way\nLondon", phone="+44 20 0000 0000",
        pronouns="she/her", interests="Engines, *notes*", bio="Writes **programs**.",
        section_intros={"students": "I advise **curious** people.", "publications": "Papers."},
        last_confirmed=date(2026, 1, 15), user_key="ada", visibility="members",
        repeat_selected=True, unpublished_in_year=True, cv_sections=["publications", "education"],
        orcid="0000-0002-1825-0097", dblp_pid="12/3456-1", openalex_id="A5023888391",
        semantic_scholar_id="1741101",
    )  # fmt: skip
    bo = _person(full_name="Bo Chen", role="phd_student", active=False, published=False)
    db.add_all([ada, bo])
    engines, notes = (m.ResearchArea(slug=make_slug(n), name=n) for n in ("Engines", "Notes"))
    ada.areas = [engines, notes]
    ada.links = [
        m.PersonLink(kind="homepage", url="https://ada.example.org", position=0),
        m.PersonLink(kind="scholar", url="https://scholar.example/ada", label="Scholar (all)",
                     position=1),
    ]  # fmt: skip
    ada.photo = placeholder_portrait(ada.full_name)
    ada.photo.focus_x, ada.photo.focus_y = 25, 10
    db.flush()

    for kind, full in FULL_ENTRIES.items():
        model = m.ENTRY_MODELS[kind]
        db.add_all([model(owner_id=ada.id, position=0, **MINIMAL_ENTRIES[kind]),
                    model(owner_id=ada.id, position=1, **full)])  # fmt: skip

    engine_paper = m.Publication(
        title="Sketch of the Analytical Engine", venue="Scientific Memoirs",
        venue_short="SciMem'43", year=1983, month=8, type="journal", status="accepted",
        abstract="Notes on the *engine*.", doi="10.1000/engine", arxiv_id="8308.00001",
        volume="3", number="2", pages="666--731", article="e1", publisher="Taylor",
        location="London", note="Translated with notes.", labels=["CCF A", "Classic"],
        citation_key="lovelace1983", bibtex="@article{lovelace1983, title={Sketch}}",
        visibility="members", created_by_id=ada.id, authors_incomplete=True,
    )  # fmt: skip
    engine_paper.authorships = [
        m.Authorship(position=0, name="A. A. Lovelace", person_id=ada.id, co_first=True,
                     corresponding=True, given="Augusta Ada", particle="de", family="Lovelace",
                     suffix="Jr.", role="editor"),
        m.Authorship(position=1, name="B. Chen", suggested_person_id=bo.id),
        m.Authorship(position=2, name="Charles Babbage", suggestion_declined=True),
    ]  # fmt: skip
    engine_paper.links = [
        m.PublicationLink(kind="paper", url="https://example.org/engine.pdf", position=0),
        m.PublicationLink(kind="video", url="https://example.org/talk", label="Talk (Chinese)",
                          position=1),
    ]  # fmt: skip
    engine_paper.awards = [m.PublicationAward(name="Best Paper", position=0),
                           m.PublicationAward(name="Test of Time", position=1)]  # fmt: skip
    engine_paper.badges = [m.ArtifactBadge(name="Artifacts Available", issuer="ACM", position=0),
                           m.ArtifactBadge(name="Reproduced", position=1)]  # fmt: skip
    extended = m.Publication(title="Notes, Extended", year=1984, created_by_id=ada.id)
    extended.authorships = [m.Authorship(position=0, name="Ada Lovelace", person_id=ada.id)]
    shared = m.Publication(title="A Paper by Both", year=2025, created_by_id=ada.id)
    shared.authorships = [
        m.Authorship(position=0, name="Bo Chen", person_id=bo.id),
        m.Authorship(position=1, name="Ada Lovelace", person_id=ada.id),
    ]
    db.add_all([engine_paper, extended, shared])
    db.flush()
    extended.relations = [m.PublicationRelation(kind="extended_version_of", target=engine_paper)]
    db.add_all([
        m.ProfilePublication(person_id=ada.id, publication_id=extended.id, position=0),
        m.ProfilePublication(person_id=ada.id, publication_id=engine_paper.id, position=1,
                             selected=True, hidden=True, section="Survey"),
        m.ProfilePublication(person_id=ada.id, publication_id=shared.id, position=2),
        m.ProfilePublication(person_id=bo.id, publication_id=shared.id, position=0, hidden=True),
    ])  # fmt: skip

    award = db.scalars(select(m.Award).where(m.Award.owner_id == ada.id, m.Award.position == 1))
    award.one().publication_id = engine_paper.id
    engines_project = m.ResearchProject(owner_id=ada.id, position=0, title="Engines",
                                        summary="Making them *think*.",
                                        url="https://example.org/engines", status="past",
                                        visibility="members")  # fmt: skip
    engines_project.publications = [engine_paper]
    engines_project.children = [m.ResearchProject(owner_id=ada.id, position=0, title="Notes")]
    db.add_all([engines_project, m.ResearchProject(owner_id=ada.id, position=1, title="Looms")])

    # Advising both ways: Ada advises Bo (Bo has not confirmed it yet) and an alumnus outside
    # the department; Bo's own entries name an outside advisor, and Ada (not yet confirmed).
    advising = [
        m.AdvisingRelation(owner_id=ada.id, position=0, advisor_id=ada.id, student_id=bo.id,
                           role="co_advisor", degree="masters", start_year=2021, end_year=2023,
                           status="graduated", thesis="Looms as Engines",
                           placement="Postdoc at UC Berkeley (2024)",
                           placement_organisation="UC Berkeley", placement_kind="postdoc",
                           placement_year=2024, note="Jointly with the maths department.",
                           student_confirmed=False, visibility="members"),
        m.AdvisingRelation(owner_id=ada.id, position=1, advisor_id=ada.id,
                           student_name="Sam Scholar", placement="Somewhere, eventually"),
        m.AdvisingRelation(owner_id=bo.id, position=0, student_id=bo.id,
                           advisor_name="Prof. Tom Anderson, UW", degree="undergraduate"),
        m.AdvisingRelation(owner_id=bo.id, position=1, advisor_id=ada.id, student_id=bo.id,
                           advisor_confirmed=False),
    ]  # fmt: skip
    for relation in advising:
        structure_placement(relation)
    db.add_all(advising)

    db.add_all([
        m.RecruitingNotice(owner_id=ada.id, position=0, level="phd", term_season="fall",
                           term_year=2027, title="PhD students in engines",
                           description="Join **us**.", how_to_apply="Write to me.",
                           deadline=date(2026, 12, 1), expires_on=date(2027, 1, 31),
                           funding_note="Fully funded for five years.", funded=True,
                           last_confirmed=date(2026, 2, 1), visibility="members",
                           areas=[engines, notes]),
        m.RecruitingNotice(owner_id=ada.id, position=1, level="intern", description="Summers.",
                           term="Whenever funding allows"),
        # Answers "not mine", one row per key of the work: carried as "rejected_works".
        m.ClaimRejection(person_id=ada.id, work_key="doi:10.1234/stranger",
                         title="A Stranger's Paper", reason="removed"),
        m.ClaimRejection(person_id=ada.id, work_key="title:a strangers paper|2024",
                         title="A Stranger's Paper", reason="removed"),
        m.ClaimRejection(person_id=bo.id, work_key="arxiv:2401.00001", title="Not Bo's"),
    ])  # fmt: skip
    db.commit()
    return {"ada": ada, "bo": bo}


# ----------------------------------------------------------------------------- the tests


def test_every_table_is_carried_or_says_why_not() -> None:
    tables = set(m.Base.metadata.tables)
    assert set(TABLES_NOT_CARRIED) <= tables, "a table listed here is no more"
    assert {table for table, _ in COLUMNS_NOT_CARRIED} <= tables
    for table, column in COLUMNS_NOT_CARRIED:
        assert column in m.Base.metadata.tables[table].columns, (table, column)
    # Every kind of entry a profile has is in the backup.
    entry_tables = {model.__table__.name for model in m.ENTRY_MODELS.values()}
    assert entry_tables <= {table.name for table in carried_tables()}


def test_the_department_fills_every_carried_column(db, connection, app) -> None:
    """The fixture can catch a dropped column only where it holds something: every carried
    table has rows, every carried column a value other than NULL, empty or its default."""
    with app.app_context():
        build_department(db)
    assert unfilled_columns(connection) == []


def test_the_comparison_names_the_column_that_changed(db, connection, app) -> None:
    """What the round trip's comparison reports: one column changed in one row shows as that
    column, before and after; a row gone shows whole."""
    with app.app_context():
        people = build_department(db)
    before = DatabaseRows(connection).by_table()
    db.execute(update(m.Teaching).where(m.Teaching.position == 1).values(term="Spring 2026"))
    db.delete(people["ada"].links[1])
    db.commit()
    after = DatabaseRows(connection).by_table()
    assert differences(before, after) == {
        "directory_teaching": [{"term": ["Fall 2025", "Spring 2026"]}],
        "directory_person_links": [
            {"lost": {"kind": "scholar", "label": "Scholar (all)", "person_id":
                      {"slug": "ada-lovelace"}, "position": 1,
                      "url": "https://scholar.example/ada"}}
        ],
    }  # fmt: skip


def test_export_all_then_import_into_an_empty_database_gives_back_every_row(
    db, connection, app, runner, tmp_path, scratch_url
) -> None:
    with app.app_context():
        build_department(db)
    backup = tmp_path / "backup"
    result = runner.invoke(args=["directory", "export", "--all", str(backup)])
    assert result.exit_code == 0, result.output
    before = DatabaseRows(connection).by_table()

    empty = make_app(DIRECTORY_DATABASE_URL=scratch_url)
    engine = empty.extensions["directory"].db.engine
    migrate.upgrade(engine)
    files = sorted(str(path) for path in backup.iterdir())
    result = empty.test_cli_runner().invoke(args=["directory", "import-profile", *files])
    assert result.exit_code == 0, result.output
    with engine.connect() as restored:
        after = DatabaseRows(restored).by_table()
    empty.extensions["directory"].db.dispose()

    assert differences(before, after) == {}, "columns as [before, after]"
