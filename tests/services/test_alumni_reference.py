"""The alumni outputs equal a straightforward computation of the same records.

:mod:`directory.services.alumni` merges, counts, orders and pages the records in SQL, on
stored name forms (a typed name case-folded and its order, a profile's name order). Here a
department with the awkward cases (a student with two degrees, advisors outside the
department, typed names that differ only in case, hidden profiles and relations, people
listed as alumni without a record, no year, Chinese names, equal names in one year) is read
the plain way: every listed graduation as an object, merged, sorted and filtered in Python,
as the alumni page did before. Every filter, for every kind of viewer, in English and in
Chinese (pinyin order), must give the same records in the same order on every page, in the
CSV's rows and in the API's list, the same summary and the same choices.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import select

from directory import models as m
from directory.formats.names import name_sort_key, person_sort_key
from directory.formats.placements import structure_placement
from directory.i18n import current_locale
from directory.services import alumni, alumni_counts
from directory.services.access import listed_alumni_people, listed_graduations
from directory.services.identity import ANONYMOUS, Viewer

P = "/directory"


# ----------------------------------------------------------------------------- the department


@pytest.fixture
def world(db, make_person) -> dict[str, Any]:
    systems = m.ResearchArea(slug="systems", name="Systems")
    kernels = m.ResearchArea(slug="kernels", name="Kernels", parent=systems)
    theory = m.ResearchArea(slug="theory", name="Theory")
    db.add_all([systems, kernels, theory])
    db.commit()
    ada = make_person("Ada Advisor", user_key="ada-key", areas=[systems])
    bob = make_person("Bob Advisor", areas=[theory])
    pam = make_person("Pam Private", visibility="private", user_key="pam-key")
    uli = make_person("Uli Unpublished", published=False)
    cy = make_person("Cy Alumnus", role="alumni", areas=[kernels])
    wang = make_person("Wei Wang", role="alumni", native_name="王伟")
    zed = make_person("Zed Able", role="alumni")
    gus = make_person("Gus Hidden", role="alumni", visibility="private")
    una = make_person("Una Unlisted", role="alumni", published=False)
    make_person("Hal Norecord", role="alumni", areas=[theory])
    make_person("Ivy Hidden", role="alumni", visibility="members")
    make_person("安娜", role="alumni", native_name="安娜", sort_name="An, Na")
    olaf = make_person("Olaf Outside", role="phd_student")
    position = iter(range(1000))

    def graduate(advisor: m.Person | str, year: int | None, student: m.Person | str, **values):
        owner = next((p for p in (advisor, student) if isinstance(p, m.Person)), ada)
        rel = m.AdvisingRelation(
            owner_id=owner.id,
            advisor_id=advisor.id if isinstance(advisor, m.Person) else None,
            advisor_name=None if isinstance(advisor, m.Person) else advisor,
            student_id=student.id if isinstance(student, m.Person) else None,
            student_name=None if isinstance(student, m.Person) else student,
            status=values.pop("status", "graduated"),
            degree=values.pop("degree", "phd"),
            end_year=year,
            position=values.pop("position", next(position) % 3),
            **values,
        )
        structure_placement(rel)
        db.add(rel)

    # Cy: a PhD under Ada (no placement) and an outside co-advisor whose relation is later and
    # has one; a master's under Bob; an outside advisor of a degree never taken here.
    graduate(ada, 2022, cy, thesis=None)
    graduate("Prof. Outside", 2023, cy, placement="Assistant Professor, CMU", thesis="On Caches")
    graduate(bob, 2018, cy, degree="masters", placement="Software Engineer @ Acme")
    graduate("Dr. Elsewhere", 2017, cy, degree="undergraduate", placement="Google")
    # Typed names that are one student once case-folded ("ß" folds to "ss").
    graduate(ada, 2023, "Dee Name", placement="Research Scientist, Google DeepMind")
    graduate(bob, 2023, "DEE NAME", role="co_advisor", placement="Postdoc at MIT")
    graduate(ada, 2020, "Jo Straße", degree="masters")
    graduate(bob, 2021, "JO STRASSE", degree="masters", placement="Engineer at Siemens")
    # Chinese names: 李明 typed, 王伟 a profile with a native name; Zed sorts before them in
    # English and after them in pinyin ("li", "wang").
    graduate(ada, 2025, "李明", placement="清华大学助理教授")
    graduate(bob, 2025, wang, placement="Postdoc at Peking University")
    graduate(ada, 2025, zed)
    # Equal names in one year: the order they were merged in.
    graduate(bob, 2022, "Sam Same", placement="Industry, Acme")
    graduate(ada, 2022, "Sam Same", degree="masters")
    graduate(ada, None, "Nora Noyear", placement="Government of Canada")
    # Hidden: a private student profile, an unpublished one, a private relation, a private
    # and an unpublished advisor, an unconfirmed claim, a current student, a blank name.
    graduate(ada, 2021, gus, placement="Software Engineer @ ByteDance")
    graduate(bob, 2019, una)
    graduate(ada, 2024, "Fay Private", visibility="private")
    graduate(bob, 2024, "Mo Members", visibility="members", placement="Faculty, ETH")
    graduate(pam, 2020, "Pia Student", placement="Postdoc at Stanford")
    graduate(uli, 2020, "Ulla Student")
    graduate(ada, 2019, "Cora Claimed", student_confirmed=False)
    graduate(ada, None, "Kim Current", status="current")
    graduate(ada, 2018, "")
    # Only an outside advisor: not an alumnus of the department.
    graduate("Prof. Outside", 2020, olaf)
    db.commit()
    return {"ada": ada, "pam": pam}


def _viewers(world: dict[str, Any]) -> dict[str, Viewer]:
    return {
        "anonymous": ANONYMOUS,
        "member": Viewer(key="a-member"),
        "admin": Viewer(key="admin", is_admin=True),
        "owner": Viewer(key="ada-key", person_id=world["ada"].id),
        "private advisor": Viewer(key="pam-key", person_id=world["pam"].id),
    }


#: Every filter, one at a time and a few together.
FILTERS = [
    "",
    *(f"year={y}" for y in (2018, 2021, 2022, 2023, 2025, 2030)),
    *(f"year_from={y}" for y in (2019, 2022, 2025)),
    *(f"year_to={y}" for y in (2018, 2021, 2024)),
    "year_from=2021&year_to=2023",
    *(f"advisor={s}" for s in ("ada-advisor", "bob-advisor", "pam-private", "uli-unpublished",
                               "cy-alumnus", "nobody")),
    *(f"degree={d}" for d in m.values(m.DEGREES)),
    *(f"kind={k}" for k in alumni.KIND_ORDER),
    *(f"area={a}" for a in ("systems", "kernels", "theory", "nowhere")),
    "kind=unknown&area=systems",
    "year_from=2021&degree=phd&advisor=ada-advisor",
    "degree=masters&kind=industry&year_to=2022",
]  # fmt: skip


# ----------------------------------------------------------------------------- the reference


def _reference(db, viewer: Viewer, filters: alumni.AlumniFilters) -> dict[str, Any]:
    """The records, their summary and choices, the plain way."""
    rels = db.scalars(
        select(m.AdvisingRelation)
        .where(listed_graduations(viewer))
        .order_by(m.AdvisingRelation.position, m.AdvisingRelation.id)
    ).all()
    own = [r for r in rels if r.advisor_id is not None]
    students = {r.student_id for r in own if r.student_id}
    others = [r for r in rels if r.advisor_id is None and r.student_id in students]
    records: dict[Any, dict[str, Any]] = {}
    for rel in own + others:
        if rel.student_id is None and not rel.student_name:
            continue
        key = (rel.student_id or rel.student_name.casefold(), rel.degree)
        if rel.advisor_id is None and key not in records:
            continue
        record = records.setdefault(
            key,
            {"name": rel.student_display, "person": rel.student, "degree": rel.degree,
             "years": [], "thesis": None, "placement": None, "advisors": []},
        )  # fmt: skip
        record["years"].append(rel.end_year)
        record["thesis"] = record["thesis"] or rel.thesis
        if record["placement"] is None and (
            rel.placement or rel.placement_organisation or rel.placement_kind
        ):
            record["placement"] = rel
        record["advisors"].append(rel)
    covered = {key[0] for key in records}
    people = db.scalars(
        select(m.Person).where(listed_alumni_people(viewer)).order_by(m.Person.sort_name)
    )
    for person in people:
        if person.id not in covered:
            records[person.id, ""] = {"name": person.full_name, "person": person, "degree": None,
                                      "years": [], "thesis": None, "placement": None,
                                      "advisors": []}  # fmt: skip
    locale = current_locale()

    def year(record: dict[str, Any]) -> int | None:
        return max((y for y in record["years"] if y), default=None)

    def name_key(record: dict[str, Any]) -> tuple[str, ...]:
        if record["person"] is not None:
            return person_sort_key(record["person"], locale)
        return name_sort_key(record["name"], None, locale)

    everyone = sorted(records.values(), key=lambda r: (-(year(r) or 0), name_key(r)))

    def below(slug: str) -> set[int]:
        found = {
            a.id for a in db.scalars(select(m.ResearchArea).where(m.ResearchArea.slug == slug))
        }
        while True:
            more = set(
                db.scalars(select(m.ResearchArea.id).where(m.ResearchArea.parent_id.in_(found)))
            )
            if more <= found:
                return found
            found |= more

    def people_of(record: dict[str, Any]) -> list[m.Person]:
        return [p for p in (record["person"], *(r.advisor for r in record["advisors"])) if p]

    area_ids = below(filters.area) if filters.area else set()

    def kind(record: dict[str, Any]) -> str:
        return (record["placement"].placement_kind if record["placement"] else None) or "unknown"

    def keeps(record: dict[str, Any]) -> bool:
        y = year(record)
        return (
            (filters.year is None or y == filters.year)
            and (filters.year_from is None or (y is not None and y >= filters.year_from))
            and (filters.year_to is None or (y is not None and y <= filters.year_to))
            and (not filters.degree or record["degree"] == filters.degree)
            and (not filters.advisor
                 or filters.advisor in {r.advisor.slug for r in record["advisors"] if r.advisor})
            and (not filters.kind or kind(record) == filters.kind)
            and (not filters.area
                 or any(a.id in area_ids for p in people_of(record) for a in p.areas))
        )  # fmt: skip

    shown = [r for r in everyone if keeps(r)]

    def as_tuple(record: dict[str, Any]) -> tuple[Any, ...]:
        placed = record["placement"]
        return (
            record["name"],
            record["person"].slug if record["person"] else None,
            record["degree"],
            year(record),
            [(r.advisor_display, r.advisor.slug if r.advisor else None, r.role)
             for r in record["advisors"]],
            record["thesis"],
            *((placed.placement, placed.placement_organisation, placed.placement_kind,
               placed.placement_year) if placed else (None, None, None, None)),
        )  # fmt: skip

    advisors: dict[int, list[Any]] = {}
    per_year: dict[int, dict[str, int]] = {}
    for record in shown:
        for person in {r.advisor.id: r.advisor for r in record["advisors"] if r.advisor}.values():
            advisors.setdefault(person.id, [person, 0])[1] += 1
        if year(record):
            kinds = per_year.setdefault(year(record), {})
            kinds[kind(record)] = kinds.get(kind(record), 0) + 1
    related = {p.id: p for r in everyone for p in people_of(r)}
    areas = set()
    for person in related.values():
        for area in person.areas:
            while area is not None:
                areas.add(area.slug)
                area = area.parent
    return {
        "records": [as_tuple(r) for r in shown],
        "summary": {
            "total": len(shown),
            "no_year": sum(1 for r in shown if not year(r)),
            "years": sorted(per_year.items()),
            "degrees": sorted((str(r["degree"]), 1) for r in shown),
            "kinds": sorted((kind(r), 1) for r in shown),
            "advisors": [
                (p.slug, n)
                for p, n in sorted(
                    advisors.values(),
                    key=lambda pair: (-pair[1], person_sort_key(pair[0], locale), pair[0].id),
                )
            ],  # fmt: skip
        },
        "years": sorted({year(r) for r in everyone if year(r)}, reverse=True),
        "degrees": [d for d in m.values(m.DEGREES) if d in {r["degree"] for r in everyone}],
        "areas": sorted(areas),
    }


# ----------------------------------------------------------------------------- the outputs


def _as_tuple(a: alumni.Alumnus) -> tuple[Any, ...]:
    return (
        a.name,
        a.person.slug if a.person else None,
        a.degree,
        a.year,
        [(adv.name, adv.person.slug if adv.person else None, adv.role) for adv in a.advisors],
        a.thesis,
        a.placement,
        a.placement_organisation,
        a.placement_kind,
        a.placement_year,
    )


def _expanded(pairs: list[tuple[Any, int]]) -> list[tuple[str, int]]:
    """Counts per value as the reference lists them (one (value, 1) per alumnus)."""
    return sorted((str(value), 1) for value, count in pairs for _ in range(count))


@pytest.mark.slow
@pytest.mark.parametrize("locale", ["en", "zh_Hans"])
def test_every_output_equals_the_plain_computation(app, db, world, locale) -> None:
    checked = 0
    with app.test_request_context(f"{P}/alumni?lang={locale}"):
        assert current_locale() == locale
        for viewer in _viewers(world).values():
            for args in FILTERS:
                filters = alumni_counts.AlumniSummaryFilters.from_args(
                    dict(a.split("=") for a in args.split("&") if a)
                )
                expected = _reference(db, viewer, filters)
                # Every page, two alumni a page, read one after the other.
                first = alumni.alumni_page(db, viewer, filters, 2)
                pages = [first.page] + [
                    alumni.alumni_page(db, viewer, replace(filters, page=n), 2).page
                    for n in range(2, first.page.pages + 1)
                ]
                got = [_as_tuple(a) for page in pages for a in page.items]
                assert got == expected["records"], (viewer, args)
                assert all(p.total == len(expected["records"]) for p in pages)
                rows = alumni.alumni_rows(db, viewer, filters)
                assert [_as_tuple(a) for a in rows] == expected["records"], (viewer, args)

                summary = alumni_counts.alumni_summary(db, viewer, filters, 2)
                want = expected["summary"]
                assert summary.total == want["total"] and summary.no_year == want["no_year"]
                assert [(y, k) for y, k in summary.years if k] == want["years"]
                assert _expanded(summary.degrees) == want["degrees"]
                assert _expanded(summary.kinds) == want["kinds"]
                # The table of advisors, two a page, every page; the API's whole list.
                table = [(p.slug, n) for p, n in summary.advisor_page.items]
                assert table == want["advisors"][:2]
                assert [(p.slug, n) for p, n in summary.advisors] == table
                for number in range(2, summary.advisor_page.pages + 1):
                    more = alumni_counts.alumni_summary(
                        db, viewer, replace(filters, advisors=number), 2
                    )
                    table += [(p.slug, n) for p, n in more.advisor_page.items]
                assert table == want["advisors"]
                whole = alumni_counts.alumni_summary(db, viewer, filters)
                assert [(p.slug, n) for p, n in whole.advisors] == want["advisors"]
                assert whole.total == want["total"] and whole.advisor_page is None

                choices = first.choices
                assert choices.years == expected["years"] == summary.choices.years
                assert choices.degrees == expected["degrees"]
                assert sorted(a.slug for a in choices.areas) == expected["areas"]
                on_page = {s for item in first.page.items for _, s, _ in _as_tuple(item)[4] if s}
                offered = {p.slug for p in choices.advisors}
                assert on_page <= offered <= on_page | {filters.advisor}
                checked += 1
    assert checked == len(FILTERS) * 5


def test_the_awkward_cases_come_out_as_intended(app, db, world) -> None:
    """What the reference says, written down: a change to both would show here."""
    with app.test_request_context(f"{P}/alumni"):
        rows = alumni.alumni_rows(db, ANONYMOUS, alumni.AlumniFilters())
    assert [(a.name, a.degree, a.year) for a in rows] == [
        ("Zed Able", "phd", 2025),  # "Able, Zed"
        ("Wei Wang", "phd", 2025),
        ("李明", "phd", 2025),  # a Han name after the Latin ones
        ("Cy Alumnus", "phd", 2023),  # the outside advisor's later year
        ("Dee Name", "phd", 2023),  # and "DEE NAME": one student
        ("Sam Same", "masters", 2022),  # equal names: as merged (by position)
        ("Sam Same", "phd", 2022),
        ("Jo Straße", "masters", 2021),  # and "JO STRASSE"
        ("Cy Alumnus", "masters", 2018),
        ("安娜", None, None),  # listed as an alumna, no record: "An, Na"
        ("Nora Noyear", "phd", None),
        ("Hal Norecord", None, None),
    ]
    with app.test_request_context(f"{P}/alumni?lang=zh_Hans"):
        chinese = alumni.alumni_page(db, ANONYMOUS, alumni.AlumniFilters(year=2025), 50)
    # A profile's native name sorts by its pinyin ("wang wei"); a typed name is sorted as
    # typed (name_sort_key without a native name), as the alumni page always did.
    assert [a.name for a in chinese.page.items] == ["Zed Able", "Wei Wang", "李明"]
    cy = rows[3]
    assert [a.name for a in cy.advisors] == ["Ada Advisor", "Prof. Outside"]
    assert (cy.placement_kind, cy.thesis) == ("faculty", "On Caches")
    dee = rows[4]
    assert [a.role for a in dee.advisors] == ["advisor", "co_advisor"]
    assert dee.placement_organisation == "Google DeepMind"


@pytest.mark.parametrize("args", FILTERS)
def test_the_api_and_the_csv_list_the_same_records(client, app, db, world, args) -> None:
    with app.test_request_context(f"{P}/alumni"):
        filters = alumni.AlumniFilters.from_args(dict(a.split("=") for a in args.split("&") if a))
        expected = _reference(db, ANONYMOUS, filters)["records"]
    response = client.get(f"{P}/api/v1/alumni?per_page=3&{args}")
    if response.status_code == 400:  # a hidden or unknown advisor or area, named
        assert response.get_json()["parameter"] in ("advisor", "area")
        assert not expected
        return
    body = response.get_json()
    items = list(body["items"])
    for page in range(2, body["pages"] + 1):
        more = client.get(f"{P}/api/v1/alumni?per_page=3&page={page}&{args}").get_json()
        items += more["items"]
    assert body["total"] == len(expected)
    assert [(i["name"], i["person"], i["degree"], i["year"]) for i in items] == [
        r[:4] for r in expected
    ]
    assert [[(a["name"], a["person"], a["role"]) for a in i["advisors"]] for i in items] == [
        r[4] for r in expected
    ]
    past = client.get(f"{P}/api/v1/alumni?per_page=3&page={body['pages'] + 1}&{args}")
    assert past.get_json()["items"] == []
    csv = client.get(f"{P}/alumni.csv?{args}").get_data().decode("utf-8-sig").splitlines()
    assert len(csv) == 1 + len(expected)
    summary = json.loads(client.get(f"{P}/api/v1/alumni/summary?{args}").get_data())
    assert summary["total"] == len(expected)


def test_the_alumni_pages_read_the_page_they_show_not_the_directory(app, client, db, monkeypatch):
    """Rows fetched by the alumni page, its page 2, the summary (its advisors a page at a
    time) and the API's alumni, in a department and in one four times larger, with the same
    page size: one more per year with alumni, no more (they used to read every graduation of
    the directory)."""
    from tests.invariants.test_query_counts import build_department, rows_fetched

    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 3)
    engine = app.extensions["directory"].db.engine
    urls = [
        f"{P}/alumni",
        f"{P}/alumni?page=2",
        f"{P}/alumni?degree=phd&page=2",
        f"{P}/alumni/summary",
        f"{P}/alumni/summary?advisors=2",
        f"{P}/api/v1/alumni?per_page=3",
        f"{P}/api/v1/alumni?per_page=3&page=2",
    ]

    def years() -> int:
        return len(set(db.scalars(select(m.AdvisingRelation.end_year))))

    build_department(db, range(0, 6))
    small, small_years = rows_fetched(client, engine, urls), years()
    build_department(db, range(6, 24))
    large, more_years = rows_fetched(client, engine, urls), years() - small_years
    # Each new graduation year is one row more (the counts per year, degree and kind the
    # totals, the summary and the year filter's choices are read from), nothing else.
    assert more_years == 18
    grown = {url: (small[url], large[url]) for url in urls if large[url] > small[url] + more_years}
    assert grown == {}


@pytest.mark.parametrize("args", ["", "degree=masters", "advisor=ada-advisor", "year=2030"])
def test_the_apis_summary_pages_its_advisors(client, app, db, world, monkeypatch, args) -> None:
    """The API's summary gives its advisors a page at a time (the site's page size), most
    alumni first; following ``next_advisors`` from the first page lists every advisor once,
    as the plain computation counts them, and ``prev_advisors`` leads back."""
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 1)
    with app.test_request_context(f"{P}/alumni"):
        filters = alumni.AlumniFilters.from_args(dict(a.split("=") for a in args.split("&") if a))
        expected = _reference(db, ANONYMOUS, filters)["summary"]["advisors"]
    url, seen, pages = f"{P}/api/v1/alumni/summary?{args}", [], []
    while url:
        body = json.loads(client.get(url).get_data())
        assert body["total"] == len(_reference(db, ANONYMOUS, filters)["records"])
        seen += [(a["person"].rsplit("/", 1)[-1], a["count"]) for a in body["advisors"]]
        pages.append(body["advisor_pages"])
        url = body["links"]["next_advisors"]
    assert seen == expected
    assert [p["page"] for p in pages] == list(range(1, max(1, len(expected)) + 1))
    assert all(p["total"] == len(expected) and p["per_page"] == 1 for p in pages)
    if len(pages) > 1:
        back = json.loads(client.get(f"{P}/api/v1/alumni/summary?{args}&advisors=2").get_data())
        assert back["links"]["prev_advisors"].endswith("advisors=1")
    past = json.loads(client.get(f"{P}/api/v1/alumni/summary?{args}&advisors=99").get_data())
    assert past["advisor_pages"]["page"] == max(1, len(expected))  # past the last: the last
