"""Structured recruiting terms: a notice's intake is a season and a year, or rolling (open to
any intake). A term filter shows that term's notices and every rolling one, labelled; the old
free-text intake is read by the migration, the importer and the model, and text naming no
term is kept as written and flagged to its owner and the admins, never dropped."""

from __future__ import annotations

import re

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import column, func, inspect, select, table, text

from directory import migrate
from directory import models as m
from directory.db import make_engine
from directory.services.interchange import export_person
from tests.conftest import login, scratch_database
from tests.services.test_interchange import faculty_doc, write
from tests.support.editing import post
from tests.support.pages import get, notice_owners

BASE = "/directory/people/ada-lovelace/edit/recruiting"


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("Fall 2027", ("fall", 2027)),
        ("Spring 2027", ("spring", 2027)),
        ("2027 fall", ("fall", 2027)),
        ("  autumn,  2026 ", ("fall", 2026)),
        ("WINTER-2028", ("winter", 2028)),
        ("", (None, None)),
        (None, (None, None)),
        ("Rolling", (None, None)),
        ("any time", (None, None)),
        ("when funding allows", None),
        ("2027", None),
        ("Fall 1492", None),
    ],
)
def test_typed_intakes_are_read_as_a_season_and_a_year(typed, expected) -> None:
    term = m.parse_term(typed)
    assert (tuple(term) if term is not None else None) == expected


#: When the rows written below the migration were made.
NOW = "2026-01-05 00:00:00"


def test_the_migration_reads_the_old_text_and_the_downgrade_writes_it_back(tmp_path) -> None:
    with scratch_database(tmp_path) as url:
        engine = make_engine(url)  # as the CLI's: SQLite enforces foreign keys
        try:
            # The migration below terms_1 (whichever the chain puts there).
            scripts = ScriptDirectory.from_config(migrate.alembic_config(engine))
            below = scripts.get_revision("terms_1").down_revision
            migrate.upgrade(engine, below)
            typed = ["Fall 2027", "Spring 2027", "2027 fall", "", None, "when funding allows"]
            # Plain tables of the columns written (the models' defaults name later columns).
            people = table(
                "directory_people", *map(column, ("id", "slug", "full_name", "sort_name", "role",
                    "name_variants", "section_intros", "active", "visibility", "version",
                    "created_at", "updated_at"))
            )  # fmt: skip
            notices = m.RecruitingNotice.__table__
            with engine.begin() as conn:
                conn.execute(
                    people.insert().values(
                        id=1,
                        slug="ada",
                        full_name="Ada",
                        sort_name="Ada",
                        role="faculty",
                        name_variants="[]",
                        section_intros="{}",
                        active=True,
                        visibility="public",
                        version=1,
                        created_at=NOW,
                        updated_at=NOW,
                    )  # fmt: skip
                )
                for i, term in enumerate(typed, start=1):
                    # Only the columns the table has below terms_1 (no term_season, term_year).
                    conn.execute(
                        notices.insert().values(
                            id=i, owner_id=1, level="phd", term=term, description="x", position=i
                        )  # fmt: skip
                    )
                area = m.ResearchArea.__table__
                conn.execute(area.insert().values(id=1, slug="systems", name="Systems"))
                conn.execute(
                    m.notice_areas.insert(), [{"notice_id": i, "area_id": 1} for i in (1, 2)]
                )
            tagged = select(func.count()).select_from(m.notice_areas)
            migrate.upgrade(engine, "terms_1")
            query = text(
                "SELECT term_season, term_year, term FROM directory_recruiting_notices ORDER BY id"
            )
            with engine.connect() as conn:
                assert [tuple(row) for row in conn.execute(query)] == [
                    ("fall", 2027, None),
                    ("spring", 2027, None),
                    ("fall", 2027, None),
                    (None, None, None),
                    (None, None, None),
                    # Names no term: kept as written, flagged on the editor.
                    (None, None, "when funding allows"),
                ]
            with engine.connect() as conn:
                assert conn.scalar(tagged) == 2  # the notices' areas are still there
            migrate.downgrade(engine, below)
            with engine.connect() as conn:
                assert conn.scalar(tagged) == 2  # and still there (no table copy cascaded)
            columns = {
                c["name"] for c in inspect(engine).get_columns("directory_recruiting_notices")
            }
            assert "term_season" not in columns and "term_year" not in columns
            with engine.connect() as conn:
                terms = conn.execute(
                    text("SELECT term FROM directory_recruiting_notices ORDER BY id")
                ).scalars()
                assert list(terms) == [
                    "Fall 2027",
                    "Spring 2027",
                    "Fall 2027",
                    None,
                    None,
                    "when funding allows",
                ]
        finally:
            engine.dispose()


# ----------------------------------------------------------------------------- the form


def _form_errors(html: str) -> dict[str, list[str]]:
    """The error messages shown next to each field, by field id."""
    return {
        field: re.findall(r"<li>(.*?)</li>", block)
        for field, block in re.findall(
            r'<ul class="field__errors" id="([a-z_]+)-errors">(.*?)</ul>', html, re.S
        )
    }


def test_the_notice_form_takes_a_season_and_a_year_or_rolling(client, db, make_person) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    form = get(client, f"{BASE}/new")
    assert 'id="term_season" name="term_season"><option selected value="">Rolling' in form
    assert '<option selected value="">Rolling / any time</option>' in form
    assert 'name="term_year"' in form and 'inputmode="numeric"' in form

    response = post(
        client, f"{BASE}/new", {"level": "phd", "term_season": "fall", "description": "Join us."}
    )
    assert response.status_code == 400
    assert _form_errors(response.text) == {
        "term_year": ["Enter the year the position starts, e.g. 2027."]
    }
    response = post(
        client, f"{BASE}/new", {"level": "phd", "term_year": "2027", "description": "Join us."}
    )
    assert response.status_code == 400
    assert _form_errors(response.text) == {
        "term_year": [
            "Choose a season for this year, or leave the year empty for a rolling notice."
        ]
    }
    response = post(
        client,
        f"{BASE}/new",
        {"level": "phd", "term_season": "fall", "term_year": "3000", "description": "Join us."},
    )
    assert _form_errors(response.text) == {"term_year": ["Enter a year such as 2027."]}
    assert db.scalars(select(m.RecruitingNotice)).all() == []

    response = post(
        client,
        f"{BASE}/new",
        {"level": "phd", "term_season": "fall", "term_year": "2027", "description": "Join us."},
    )
    assert response.status_code == 302
    post(client, f"{BASE}/new", {"level": "intern", "description": "Any time."})
    notices = db.scalars(select(m.RecruitingNotice).order_by(m.RecruitingNotice.level)).all()
    assert [(n.level, n.term_season, n.term_year, n.term) for n in notices] == [
        ("intern", None, None, None),
        ("phd", "fall", 2027, None),
    ]
    assert notices[0].is_rolling and notices[1].term_label == "Fall 2027"
    assert ada.id == notices[0].owner_id


def test_an_unreadable_old_intake_is_flagged_kept_or_replaced(client, db, make_person) -> None:
    ada = make_person(user_key="ada")
    notice = m.RecruitingNotice(
        owner_id=ada.id, level="phd", term="when funding allows", description="Join us."
    )
    db.add(notice)
    db.commit()
    assert notice.term_unreadable and notice.term == "when funding allows"

    login(client, "ada")
    editor = get(client, "/directory/me")
    assert "“when funding allows”: names no term, choose one" in editor
    form = get(client, f"{BASE}/{notice.id}")
    assert 'id="unreadable-term"' in form and "names no season and year" in form
    assert '<option selected value="keep">Keep as written: “when funding allows”</option>' in form

    # Saving something else keeps the text as it was written.
    post(
        client,
        f"{BASE}/{notice.id}",
        {"level": "phd", "term_season": "keep", "description": "Join us soon.", "version": "1"},
    )
    db.refresh(notice)
    assert (notice.description, notice.term) == ("Join us soon.", "when funding allows")
    # Admins see it listed too, with a link to the notice.
    login(client, "admin")
    admin = get(client, "/directory/admin/")
    assert "Recruiting notices with no term" in admin
    assert f'{BASE}/{notice.id}">Ada Lovelace: PhD students, “when funding allows”' in admin

    login(client, "ada")
    post(
        client,
        f"{BASE}/{notice.id}",
        {
            "level": "phd",
            "term_season": "spring",
            "term_year": "2027",
            "description": "Join us soon.",
            "version": str(notice.version),
        },
    )
    db.refresh(notice)
    assert (notice.term_season, notice.term_year, notice.term) == ("spring", 2027, None)
    login(client, "admin")
    assert "Recruiting notices with no term" not in get(client, "/directory/admin/")


# ----------------------------------------------------------------------------- the filters


def test_a_rolling_notice_matches_every_term_and_is_labelled_rolling(
    client, db, make_person
) -> None:
    ada, bob = make_person(), make_person("Bob Builder")
    db.add_all(
        [
            m.RecruitingNotice(owner_id=ada.id, level="phd", term="Fall 2026", description="a"),
            m.RecruitingNotice(owner_id=bob.id, level="phd", description="b"),
            m.RecruitingNotice(owner_id=bob.id, level="phd", term="someday", description="c"),
        ]
    )
    db.commit()
    for spelling in ("Fall+2026", "fall+2026", "2026+Fall", "Autumn+2026"):
        html = get(client, f"/directory/recruiting?level=phd&term={spelling}")
        assert notice_owners(html) == ["bob-builder/PhD students", "ada-lovelace/PhD students"]
        assert html.count("Rolling: any time") == 1
        assert "Fall 2026 or rolling" in html  # the active filter says what it shows
    html = get(client, "/directory/recruiting?term=Spring+2031")
    assert notice_owners(html) == ["bob-builder/PhD students"]
    assert notice_owners(get(client, "/directory/recruiting?term=rolling")) == [
        "bob-builder/PhD students"
    ]
    # A term the filter cannot read: the page drops it (a bookmark still opens) and shows all;
    # the API answers 400 naming the parameter.
    html = get(client, "/directory/recruiting?term=someday")
    assert len(notice_owners(html)) == 3
    response = client.get("/directory/api/v1/positions?term=someday")
    assert response.status_code == 400 and response.get_json()["parameter"] == "term"
    assert "season and a year" in response.get_json()["detail"]


def test_the_profile_badge_names_each_level_and_term_once(client, db, make_person) -> None:
    ada = make_person()
    db.add_all(
        [
            m.RecruitingNotice(owner_id=ada.id, level="phd", term="Fall 2027", description="a"),
            m.RecruitingNotice(owner_id=ada.id, level="phd", term="Fall 2027", description="b"),
            m.RecruitingNotice(owner_id=ada.id, level="phd", description="c"),
            m.RecruitingNotice(owner_id=ada.id, level="intern", description="d"),
            m.RecruitingNotice(owner_id=ada.id, level="phd", term="Spring 2027", description="e"),
        ]
    )
    db.commit()
    expected = "PhD students (Spring 2027, Fall 2027, any time); Research interns (any time)"
    profile = get(client, "/directory/people/ada-lovelace")
    assert f'<a href="#recruiting">Recruiting: {expected}</a>' in profile
    listing = get(client, "/directory/")
    card = 'href="/directory/recruiting?person=ada-lovelace">Recruiting: '
    assert f"{card}{expected}<" in listing


# ----------------------------------------------------------------------------- interchange


def test_documents_carry_the_structured_term_and_old_ones_still_import(
    runner, db, tmp_path
) -> None:
    old = faculty_doc()  # "term": "Fall 2027", as documents were written before
    old["recruiting"].append({"level": "intern", "term": "when funding allows", "description": "x"})
    old["recruiting"].append({"level": "postdoc", "term": "", "description": "y"})
    result = runner.invoke(args=["directory", "import-profile", write(tmp_path, "old.json", old)])
    assert result.exit_code == 0, result.output
    assert "recruiting intake 'when funding allows' names no season and year" in result.output
    person = db.scalar(select(m.Person).where(m.Person.slug == "grace-hopper"))
    notices = db.scalars(
        select(m.RecruitingNotice).where(m.RecruitingNotice.owner_id == person.id)
        .order_by(m.RecruitingNotice.position)
    ).all()  # fmt: skip
    assert [(n.term_season, n.term_year, n.term) for n in notices] == [
        ("fall", 2027, None),
        (None, None, "when funding allows"),
        (None, None, None),
    ]
    exported = export_person(db, person)["recruiting"]
    assert [(n["term_season"], n["term_year"], n["term"]) for n in exported] == [
        ("fall", 2027, None),
        (None, None, "when funding allows"),
        (None, None, None),
    ]

    half = faculty_doc(slug="ada-lovelace", full_name="Ada Lovelace")
    half["recruiting"] = [{"level": "phd", "term_season": "fall", "description": "z"}]
    result = runner.invoke(args=["directory", "import-profile", write(tmp_path, "half.json", half)])
    assert result.exit_code == 1
    assert "half.json: $.recruiting[0]: term_season and term_year go together" in result.output
