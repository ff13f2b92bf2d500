"""The chair counting placements: the alumni summary (counts per year, degree, kind and advisor,
its chart and table), the CSV and the API's alumni with the same filters, the editor's
placement fields, the migration that read the old free texts, and the interchange format."""

from __future__ import annotations

import csv
import io
import json
import re
from html import unescape
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import select

from directory import migrate
from directory import models as m
from directory.db import make_engine
from directory.formats.charts import stacked_bar_chart
from directory.formats.placements import structure_placement
from directory.services.interchange import export_person, import_documents
from tests.conftest import login, scratch_database
from tests.support.editing import post

P = "/directory"


@pytest.fixture
def world(db, make_person) -> dict[str, Any]:
    systems = m.ResearchArea(slug="systems", name="Systems")
    theory = m.ResearchArea(slug="theory", name="Theory")
    db.add_all([systems, theory])
    db.commit()
    ada = make_person("Ada Advisor", user_key="ada", areas=[systems])
    bob = make_person("Bob Advisor", areas=[theory])
    cy = make_person("Cy Alumnus", role="alumni")
    gus = make_person("Gus Hidden", role="alumni", visibility="private")
    make_person("Hal Noyear", role="alumni")

    def graduate(
        advisor: m.Person | None,
        degree: str,
        year: int,
        placement: str | None,
        student: m.Person | None = None,
        name: str | None = None,
        **values: Any,
    ) -> m.AdvisingRelation:
        rel = m.AdvisingRelation(
            owner_id=(advisor or student).id,
            advisor_id=advisor.id if advisor else None,
            advisor_name=None if advisor else "Prof. Outside",
            student_id=student.id if student else None,
            student_name=name,
            status="graduated",
            degree=degree,
            end_year=year,
            placement=placement,
            **values,
        )
        structure_placement(rel)
        db.add(rel)
        return rel

    graduate(ada, "phd", 2022, "Assistant Professor, CMU (2022)", cy, thesis="On Caches")
    graduate(ada, "phd", 2023, "Research Scientist, Google DeepMind", name="Dee Name")
    graduate(bob, "phd", 2023, None, name="Dee Name", role="co_advisor")
    graduate(bob, "masters", 2023, '=HYPERLINK("http://evil.example")', name="Ева Иванова")
    graduate(ada, "phd", 2025, "清华大学助理教授", name="李明")
    graduate(ada, "phd", 2025, "Postdoc at MIT", name="Fay Private", visibility="private")
    graduate(ada, "phd", 2021, "Software Engineer @ ByteDance", gus)
    # Only an outside advisor: not an alumnus of the department.
    olaf = make_person("Olaf Outside", role="phd_student")
    graduate(None, "phd", 2020, "Google", olaf)
    db.commit()
    return {"ada": ada, "bob": bob, "cy": cy}


def text(client, url: str, status: int = 200) -> str:
    response = client.get(P + url)
    assert response.status_code == status, (url, response.get_data(as_text=True)[:500])
    return response.get_data(as_text=True)


def table(html: str, heading_id: str) -> dict[str, str]:
    """The rows (label: count) of the summary table under ``heading_id``."""
    section = html.split(f'id="{heading_id}"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<th scope="row">(?:<a [^>]*>)?([^<]+)(?:</a>)?</th><td>(\d+)</td>', section)
    return {unescape(label): count for label, count in rows}


def csv_rows(client, url: str) -> list[dict[str, str]]:
    response = client.get(P + url)
    assert response.status_code == 200
    assert response.mimetype == "text/csv" and response.mimetype_params["charset"] == "utf-8"
    raw = response.get_data()
    assert raw.startswith(b"\xef\xbb\xbf")  # a spreadsheet reads it as UTF-8
    return list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline="")))


# ----------------------------------------------------------------------------- the summary


def test_the_summary_counts_per_year_degree_kind_and_advisor(client, world) -> None:
    html = text(client, "/alumni/summary")
    # Cy, Dee (one record, two advisors), Ева, 李明, Hal; not Fay (private), Gus (hidden
    # profile) nor Olaf (no department advisor).
    assert "5 alumni." in html
    assert table(html, "by-kind") == {"Faculty": "2", "Industry research": "1", "Not known": "2"}
    assert table(html, "by-degree") == {"PhD": "3", "Master's": "1", "Not recorded": "1"}
    assert table(html, "by-advisor") == {"Ada Advisor": "3", "Bob Advisor": "2"}
    # The chart's table: every year with alumni, split by kind; 2024 had none.
    years = html.split("Alumni per year as a table", 1)[1].split("</table>", 1)[0]
    heads = re.findall(r'<th scope="col">([^<]+)</th>', years)
    assert heads == ["Year", "Faculty", "Industry research", "Not known", "All"]
    rows = re.findall(r'<tr><th scope="row"><a [^>]*>(\d+)</a></th>((?:<td>\d+</td>)+)</tr>', years)
    assert [(y, re.findall(r"\d+", cells)) for y, cells in rows] == [
        ("2025", ["1", "0", "0", "1"]),
        ("2023", ["0", "1", "1", "2"]),
        ("2022", ["1", "0", "0", "1"]),
    ]
    assert "(1 more without a year)" in html


def test_the_chart_is_drawn_on_the_server_and_described(client, world) -> None:
    html = text(client, "/alumni/summary")
    svg = re.search(r"<svg [^>]*>.*?</svg>", html, re.S).group(0)
    assert 'role="img"' in svg and 'aria-labelledby="alumni-chart-title alumni-chart-desc"' in svg
    assert '<title id="alumni-chart-title">' in svg
    desc = re.search(r"<desc [^>]*>(.*?)</desc>", svg, re.S).group(1)
    assert "2022: 1 (1 faculty)" in desc and "2023: 2 (1 industry research, 1 not known)" in desc
    assert "2024" not in desc  # an empty year has a slot but nothing to describe
    # One rectangle per (year, kind) with alumni, in the kind's colour class.
    segments = re.findall(r'class="chart__seg chart__seg--(\w+)"', svg)
    assert segments == ["faculty", "industry_research", "unknown", "faculty"]
    # 2022..2025: four slots; a legend names the kinds drawn.
    assert len(re.findall(r'<g class="chart__group">', svg)) == 4
    legend = re.search(r'<ul class="chart__legend".*?</ul>', html, re.S).group(0)
    assert re.findall(r"</span>([^<]+)</li>", legend) == [
        "Faculty",
        "Industry research",
        "Not known",
    ]
    assert "<script" not in html.split('<div class="directory alumni alumni-summary">')[1]


@pytest.mark.parametrize(
    ("args", "total", "kinds"),
    [
        ("year_from=2023", 3, {"Faculty": "1", "Industry research": "1", "Not known": "1"}),
        ("year_to=2022", 1, {"Faculty": "1"}),
        ("year_from=2023&year_to=2023", 2, {"Industry research": "1", "Not known": "1"}),
        ("kind=faculty", 2, {"Faculty": "2"}),
        ("kind=unknown", 2, {"Not known": "2"}),
        ("degree=masters", 1, {"Not known": "1"}),
        ("advisor=bob-advisor", 2, {"Industry research": "1", "Not known": "1"}),
        ("area=theory", 2, {"Industry research": "1", "Not known": "1"}),
        ("year=2025", 1, {"Faculty": "1"}),
        # A range ending before it starts: the end is dropped, the page still opens.
        (
            "year_from=2023&year_to=2020",
            3,
            {"Faculty": "1", "Industry research": "1", "Not known": "1"},
        ),
        (
            "kind=astronaut&year_from=x",
            5,
            {"Faculty": "2", "Industry research": "1", "Not known": "2"},
        ),
    ],
)
def test_the_summary_s_filters(client, world, args, total, kinds) -> None:
    html = text(client, f"/alumni/summary?{args}")
    assert f"{total} alumn{'us' if total == 1 else 'i'}" in html
    assert table(html, "by-kind") == kinds
    response = client.get(f"{P}/api/v1/alumni/summary?{args}")
    if "x" in args or "2020" in args:  # the API reads strictly: a 400 naming the parameter
        assert response.status_code == 400
        return
    api = response.get_json()
    assert api["total"] == total
    assert {k["kind_label"] or "Not known": str(k["count"]) for k in api["kinds"]} == kinds


def test_the_alumni_list_shows_the_structure_and_links_the_summary(client, world) -> None:
    html = text(client, "/alumni?kind=faculty")
    assert "2 alumni." in html
    assert 'href="/directory/alumni/summary?kind=faculty"' in html
    assert 'href="/directory/alumni.csv?kind=faculty"' in html
    assert "Assistant Professor, CMU (2022)" in html and "清华大学助理教授" in html
    assert '<span class="tag">Faculty</span>' in html
    assert "Google DeepMind" not in html


def test_alumni_hidden_from_a_visitor_appear_for_those_who_may_see_them(client, world) -> None:
    assert "Fay Private" not in text(client, "/alumni")
    login(client, "admin")
    html = text(client, "/alumni/summary")
    assert "7 alumni." in html  # Fay and Gus too
    assert table(html, "by-kind")["Postdoc"] == "1"
    assert "Fay Private" in text(client, "/alumni")
    assert "Olaf Outside" not in text(client, "/alumni")


# ----------------------------------------------------------------------------- CSV


def test_the_csv_has_every_alumnus_the_filters_keep(client, world, app, monkeypatch) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 2)  # all pages, not one
    rows = csv_rows(client, "/alumni.csv")
    assert [r["Name"] for r in rows] == [
        "李明",
        "Dee Name",
        "Ева Иванова",
        "Cy Alumnus",
        "Hal Noyear",
    ]
    dee = rows[1]
    assert dee["Advisors"] == "Ada Advisor; Bob Advisor"
    assert (dee["Organisation"], dee["Kind of position"]) == (
        "Google DeepMind",
        "Industry research",
    )
    cy = rows[3]
    assert (cy["Year"], cy["Thesis"], cy["Placement year"]) == ("2022", "On Caches", "2022")
    assert cy["Profile"] == "http://directory.test/directory/people/cy-alumnus"
    assert [r["Name"] for r in csv_rows(client, "/alumni.csv?kind=faculty&year_to=2024")] == [
        "Cy Alumnus"
    ]


def test_the_csv_runs_no_formula_and_quotes_what_it_must(client, world) -> None:
    raw = client.get(f"{P}/alumni.csv?degree=masters").get_data().decode("utf-8-sig")
    # The text that would be a formula starts with an apostrophe, its quotes doubled.
    assert '"\'=HYPERLINK(""http://evil.example"")"' in raw
    row = csv_rows(client, "/alumni.csv?degree=masters")[0]
    assert row["Placement"] == '\'=HYPERLINK("http://evil.example")'
    assert row["Organisation"].startswith("'=")
    assert row["Name"] == "Ева Иванова"
    assert raw.endswith("\r\n") and raw.count("\r\n") == 2


# ----------------------------------------------------------------------------- the API


def test_the_api_lists_alumni_with_their_placement(client, world) -> None:
    body = json.loads(text(client, "/api/v1/alumni?per_page=2"))
    assert (body["total"], body["pages"], len(body["items"])) == (5, 3, 2)
    first = body["items"][0]
    assert first["name"] == "李明" and first["year"] == 2025
    assert first["placement"] == {
        "text": "清华大学助理教授",
        "organisation": "清华大学",
        "kind": "faculty",
        "kind_label": "Faculty",
        "year": None,
    }
    cy = json.loads(text(client, "/api/v1/alumni?advisor=ada-advisor&year_to=2022"))["items"]
    assert [(a["name"], a["person"], a["url"]) for a in cy] == [
        ("Cy Alumnus", "cy-alumnus", "http://directory.test/directory/people/cy-alumnus")
    ]
    summary = json.loads(text(client, "/api/v1/alumni/summary?degree=phd"))
    assert summary["total"] == 3
    assert summary["years"][0] == {
        "year": 2022,
        "count": 1,
        "kinds": [{"kind": "faculty", "count": 1}],
    }
    assert [y["year"] for y in summary["years"]] == [2022, 2023, 2024, 2025]
    assert summary["advisors"] == [
        {"person": "ada-advisor", "name": "Ada Advisor", "count": 3},
        {"person": "bob-advisor", "name": "Bob Advisor", "count": 1},
    ]
    assert summary["links"]["csv"] == "http://directory.test/directory/alumni.csv?degree=phd"


@pytest.mark.parametrize(
    ("args", "parameter"),
    [
        ("kind=astronaut", "kind"),
        ("year_from=1800", "year_from"),
        ("year_from=2023&year_to=2020", "year_to"),
        ("advisor=nobody", "advisor"),
        ("area=nowhere", "area"),
        ("degree=phd%00", "degree"),
    ],
)
def test_the_api_refuses_a_bad_filter_naming_it(client, world, args, parameter) -> None:
    for endpoint in ("/api/v1/alumni", "/api/v1/alumni/summary"):
        response = client.get(f"{P}{endpoint}?{args}")
        assert response.status_code == 400
        assert response.get_json()["parameter"] == parameter


def test_a_hidden_advisor_is_an_unknown_one(client, db, world) -> None:
    world["bob"].visibility = "private"
    db.commit()
    assert client.get(f"{P}/api/v1/alumni?advisor=bob-advisor").status_code == 400
    login(client, "admin")
    assert client.get(f"{P}/api/v1/alumni?advisor=bob-advisor").status_code == 200


# ----------------------------------------------------------------------------- the editor


def _relation_form(**values: str) -> dict[str, str]:
    return {
        "side": "student",
        "other_id": "",
        "other_name": "Nia Newgrad",
        "role": "advisor",
        "degree": "phd",
        "status": "graduated",
        "end_year": "2024",
        "visibility": "public",
        "placement_kind": "",
        **values,
    }


def _saved(db) -> m.AdvisingRelation:
    return db.scalar(
        select(m.AdvisingRelation).where(m.AdvisingRelation.student_name == "Nia Newgrad")
    )


def test_the_editor_reads_the_structure_from_the_text(client, db, world) -> None:
    login(client, "ada")
    url = f"{P}/people/ada-advisor/edit/advising/new"
    response = post(client, url, _relation_form(placement="Postdoc at MIT (2024)"))
    assert response.status_code == 302
    rel = _saved(db)
    assert (
        rel.placement,
        rel.placement_organisation,
        rel.placement_kind,
        rel.placement_year,
        rel.placement_unparsed,
    ) == ("Postdoc at MIT (2024)", "MIT", "postdoc", 2024, False)
    # What the editor gives wins over the text.
    response = post(
        client,
        f"{P}/people/ada-advisor/edit/advising/{rel.id}",
        _relation_form(
            placement="Postdoc at MIT (2024)",
            placement_organisation="Harvard",
            placement_kind="faculty",
            placement_year="2025",
            version=str(rel.version),
        ),
    )
    assert response.status_code == 302
    db.refresh(rel)
    assert (rel.placement_organisation, rel.placement_kind, rel.placement_year) == (
        "Harvard",
        "faculty",
        2025,
    )


def test_a_text_the_editor_cannot_read_is_flagged_where_editors_see_it(client, db, world) -> None:
    login(client, "ada")
    response = post(
        client,
        f"{P}/people/ada-advisor/edit/advising/new",
        _relation_form(placement="travelling the world"),
    )
    assert response.status_code == 302
    rel = _saved(db)
    assert rel.placement == "travelling the world" and rel.placement_unparsed is True
    editor = text(client, "/me")
    entry = editor.split(f'id="advising-{rel.id}"', 1)[1].split("</li>", 1)[0]
    assert "Placement to complete" in entry
    form = text(client, f"/people/ada-advisor/edit/advising/{rel.id}")
    assert "This placement could not be read" in form
    # Completing it clears the flag.
    post(
        client,
        f"{P}/people/ada-advisor/edit/advising/{rel.id}",
        _relation_form(
            placement="travelling the world",
            placement_organisation="Nowhere",
            placement_kind="other",
            version=str(rel.version),
        ),
    )
    db.refresh(rel)
    assert rel.placement_unparsed is False
    assert "Placement to complete" not in text(client, "/me")


def test_an_entry_with_text_only_gets_the_structure_suggested_in_its_form(
    client, db, world
) -> None:
    rel = m.AdvisingRelation(
        owner_id=world["ada"].id,
        advisor_id=world["ada"].id,
        student_name="Old Entry",
        placement="Research Scientist, Google DeepMind",
    )
    db.add(rel)
    db.commit()
    login(client, "ada")
    form = text(client, f"/people/ada-advisor/edit/advising/{rel.id}")
    assert re.search(r'id="placement_organisation"[^>]*value="Google DeepMind"', form)
    assert re.search(
        r'<option selected value="industry_research">|<option value="industry_research" selected>',
        form,
    )


def test_an_organisation_without_its_kind_is_kept_and_flagged(client, db, world) -> None:
    login(client, "ada")
    response = post(
        client,
        f"{P}/people/ada-advisor/edit/advising/new",
        _relation_form(placement="Stanford", placement_organisation="Stanford University"),
    )
    assert response.status_code == 302
    rel = _saved(db)
    assert (rel.placement_organisation, rel.placement_kind) == ("Stanford University", None)
    assert rel.placement_unparsed is True
    assert "Placement to complete" in text(client, "/me")


@pytest.mark.parametrize(
    ("values", "field", "message"),
    [
        ({"placement_year": "2024"}, "placement_organisation", "Name the organisation"),
        ({"placement_kind": "faculty"}, "placement_organisation", "Name the organisation"),
        (
            {"placement_kind": "astronaut", "placement_organisation": "NASA"},
            "placement_kind",
            "Not a valid choice",
        ),
        (
            {
                "placement_year": "1066",
                "placement_organisation": "CMU",
                "placement_kind": "faculty",
            },
            "placement_year",
            "Enter a year such as 2024.",
        ),
        (
            {"placement_organisation": "x" * 201, "placement_kind": "faculty"},
            "placement_organisation",
            "Field cannot be longer than 200 characters.",
        ),
    ],
)
def test_the_placement_fields_are_validated_next_to_the_field(
    client, db, world, values, field, message
) -> None:
    login(client, "ada")
    before = db.scalar(select(sa.func.count()).select_from(m.AdvisingRelation))
    response = post(client, f"{P}/people/ada-advisor/edit/advising/new", _relation_form(**values))
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    errors = re.search(rf'<ul class="field__errors" id="{field}-errors">(.*?)</ul>', html, re.S)
    assert errors and message in errors.group(1)
    assert db.scalar(select(sa.func.count()).select_from(m.AdvisingRelation)) == before


# ----------------------------------------------------------------------------- interchange


def test_the_interchange_format_carries_the_structured_placement(db, world) -> None:
    ada = world["ada"]
    rel = db.scalar(
        select(m.AdvisingRelation).where(
            m.AdvisingRelation.student_name == "Dee Name", m.AdvisingRelation.advisor_id == ada.id
        )
    )
    rel.placement_organisation, rel.placement_kind, rel.placement_year = (
        "DeepMind",
        "industry_research",
        2023,
    )
    db.commit()
    doc = export_person(db, ada)
    exported = next(a for a in doc["advising"] if a.get("student_name") == "Dee Name")
    assert (
        exported["placement"],
        exported["placement_organisation"],
        exported["placement_kind"],
        exported["placement_year"],
    ) == ("Research Scientist, Google DeepMind", "DeepMind", "industry_research", 2023)
    assert "placement_unparsed" not in exported
    # Back in (replacing the profile), the same structure; and an older document, with the
    # text only, gets the structure read from the text.
    older = json.loads(json.dumps(doc))
    for entry in older["advising"]:
        for key in ("placement_organisation", "placement_kind", "placement_year"):
            entry.pop(key, None)
    import_documents(db, [("again", doc)])
    db.commit()
    again = export_person(db, db.scalar(select(m.Person).where(m.Person.slug == "ada-advisor")))
    assert again["advising"] == doc["advising"]
    import_documents(db, [("older", older)])
    db.commit()
    rels = {
        r.student_name: r
        for r in db.scalars(select(m.AdvisingRelation).where(m.AdvisingRelation.owner_id == ada.id))
    }
    assert (rels["Dee Name"].placement_organisation, rels["Dee Name"].placement_kind) == (
        "Google DeepMind",
        "industry_research",
    )
    assert rels["李明"].placement_organisation == "清华大学"


# ----------------------------------------------------------------------------- the migration


def test_the_migration_reads_existing_placements_and_flags_the_rest(tmp_path) -> None:
    with scratch_database(tmp_path) as url:
        engine = make_engine(url)
        try:
            migrate.upgrade(engine, "speed_1")
            people = sa.table(
                "directory_people",
                *(
                    sa.column(c)
                    for c in (
                        "id",
                        "slug",
                        "full_name",
                        "sort_name",
                        "role",
                        "active",
                        "visibility",
                        "version",
                        "name_variants",
                        "section_intros",
                        "created_at",
                        "updated_at",
                    )
                ),
            )
            texts = [
                "Assistant Professor, CMU (2024)",
                "Postdoc at MIT",
                "Stanford University",
                None,
                "Software Engineer @ ByteDance",
            ]
            columns = (
                "id",
                "owner_id",
                "advisor_id",
                "student_name",
                "role",
                "degree",
                "status",
                "placement",
                "advisor_confirmed",
                "student_confirmed",
                "position",
                "visibility",
                "version",
                "created_at",
                "updated_at",
            )
            advising = sa.table("directory_advising", *(sa.column(c) for c in columns))
            now = sa.func.current_timestamp()
            with engine.begin() as conn:
                conn.execute(
                    people.insert().values(
                        id=1,
                        slug="ada",
                        full_name="Ada",
                        sort_name="Ada",
                        role="faculty",
                        active=True,
                        visibility="public",
                        version=1,
                        name_variants="[]",
                        section_intros="{}",
                        created_at=now,
                        updated_at=now,
                    )
                )
                for i, placement in enumerate(texts, start=1):
                    conn.execute(
                        advising.insert().values(
                            id=i,
                            owner_id=1,
                            advisor_id=1,
                            student_name=f"S{i}",
                            role="advisor",
                            degree="phd",
                            status="graduated",
                            placement=placement,
                            advisor_confirmed=True,
                            student_confirmed=True,
                            position=i,
                            visibility="public",
                            version=1,
                            created_at=now,
                            updated_at=now,
                        )
                    )
            migrate.upgrade(engine, "alumni_1")
            with engine.connect() as conn:
                rows = conn.execute(
                    sa.text(
                        "SELECT placement, placement_organisation, placement_kind, placement_year, "
                        "placement_unparsed FROM directory_advising ORDER BY id"
                    )
                ).all()
            assert [tuple(r) for r in rows] == [
                ("Assistant Professor, CMU (2024)", "CMU", "faculty", 2024, False),
                ("Postdoc at MIT", "MIT", "postdoc", None, False),
                ("Stanford University", "Stanford University", None, None, True),
                (None, None, None, None, False),
                ("Software Engineer @ ByteDance", "ByteDance", "industry", None, False),
            ]
            migrate.downgrade(engine, "speed_1")
            with engine.connect() as conn:
                kept = conn.execute(sa.text("SELECT placement FROM directory_advising ORDER BY id"))
                assert [r[0] for r in kept] == texts  # the text is never dropped
        finally:
            engine.dispose()


def test_the_stacked_chart_s_segments_add_up_to_each_bar() -> None:
    chart = stacked_bar_chart(
        [(2020, {"faculty": 2, "industry": 1}), (2021, {}), (2022, {"unknown": 6, "gone": 9})],
        ("faculty", "industry", "unknown"),
    )
    first, empty, last = chart.bars
    assert (first.value, empty.value, last.value, chart.total) == (3, 0, 6, 9)
    assert [s.series for s in first.segments] == ["faculty", "industry"]  # bottom up
    assert first.segments[0].y + first.segments[0].height == chart.baseline
    assert first.segments[1].y + first.segments[1].height == first.segments[0].y
    # The tallest bar (6, twice the first) fills the plot; the others are in proportion.
    first_height = first.segments[0].height + first.segments[1].height
    assert last.segments[0].height == round(2 * first_height, 1) == chart.baseline - 18
    assert empty.segments == [] and chart.series == ["faculty", "industry", "unknown"]
    assert not stacked_bar_chart([(2020, {})], ("faculty",))


# ----------------------------------------------------------------------------- bounded pages


def test_the_summary_s_advisors_come_a_page_at_a_time(client, world, app, monkeypatch) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 1)
    html = text(client, "/alumni/summary")
    assert table(html, "by-advisor") == {"Ada Advisor": "3"}
    assert 'href="/directory/alumni/summary?advisors=2" rel="next"' in html
    second = text(client, "/alumni/summary?advisors=2")
    assert table(second, "by-advisor") == {"Bob Advisor": "2"}
    assert "5 alumni." in second  # the page of advisors is no filter
    # The advisor filter offers the advisors in the table shown, and the one filtered by.
    options = re.findall(r'<option value="([a-z-]+-advisor)"', second)
    assert options == ["bob-advisor"]
    filtered = text(client, "/alumni/summary?advisor=ada-advisor&advisors=2")
    assert re.findall(r'<option value="([a-z-]+-advisor)"', filtered) == [
        "ada-advisor",
        "bob-advisor",
    ]
    assert "advisors=2" not in filtered.split('id="by-kind"', 1)[1].split("</table>", 1)[0]
    # Past the last page: the last one.
    assert table(text(client, "/alumni/summary?advisors=9"), "by-advisor") == {"Bob Advisor": "2"}


def test_the_alumni_page_offers_the_advisors_of_the_alumni_shown(client, world) -> None:
    html = text(client, "/alumni?year=2022")  # Cy, under Ada
    assert re.findall(r'<option value="([a-z-]+-advisor)"', html) == ["ada-advisor"]
    assert 'id="filter-advisor-hint"' in html
    html = text(client, "/alumni?year=2022&advisor=bob-advisor")  # nobody: Bob still offered
    assert re.findall(r'<option value="([a-z-]+-advisor)"', html) == ["bob-advisor"]
    assert "No alumni match these filters." in html
