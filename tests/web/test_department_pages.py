"""The department pages on small made-to-measure departments: recruiting filters, notices and
their feed's escaping, alumni paging, publications (filters, paging, chart, BibTeX), news and
its feed. The demo department's pages are in test_department_demo.py."""

from __future__ import annotations

import re
from datetime import date

from directory import models as m
from tests.support.pages import ATOM, atom_entries, feed_link, get, notice_owners

# ----------------------------------------------------------------------------- listing


def test_empty_listing_says_so(client) -> None:
    assert "No one is listed yet." in get(client, "/directory/")
    assert "No one matches these filters." in get(client, "/directory/?q=nobody")


def test_the_area_choices_are_the_areas_whose_filter_finds_someone(client, make_person, db):
    """An area is offered when a listed person works in it or in an area under it, at any
    depth; not for an area of a private profile only, nor for an area with no one."""
    top = m.ResearchArea(slug="top", name="Top Area")
    mid = m.ResearchArea(slug="mid", name="Mid Area", parent=top)
    leaf = m.ResearchArea(slug="leaf", name="Leaf Area", parent=mid)
    hidden = m.ResearchArea(slug="hidden", name="Hidden Area")
    empty = m.ResearchArea(slug="empty", name="Empty Area", parent=top)
    db.add_all([top, mid, leaf, hidden, empty])
    db.commit()
    make_person("Lea Leaf", areas=[leaf])
    make_person("Pia Private", visibility="private", areas=[hidden])
    html = get(client, "/directory/")
    area_filter = html.split('id="filter-area"')[1].split("</select>")[0]
    assert re.findall(r'<option value="([a-z]+)"', area_filter) == ["leaf", "mid", "top"]
    assert "Lea Leaf" in get(client, "/directory/?area=top")


def test_each_card_says_what_its_person_recruits_for(client, make_person, db) -> None:
    """Badges of the people shown: the same notices in another order say the same, other
    notices say otherwise, a closed notice says nothing."""
    ada, bob, cy, di = (make_person(n) for n in ("Ada A", "Bob B", "Cy C", "Di D"))
    fall = {"term_season": "fall", "term_year": 2027}
    for owner, notices in (
        (ada, [("phd", fall), ("intern", {})]),
        (bob, [("intern", {}), ("phd", fall)]),
        (cy, [("phd", fall)]),
        (di, [("phd", {"expires_on": date(2020, 1, 1)})]),
    ):
        for position, (level, values) in enumerate(notices):
            db.add(m.RecruitingNotice(owner_id=owner.id, level=level, description="x",
                                      position=position, **values))  # fmt: skip
    db.commit()
    html = get(client, "/directory/")
    badges = dict(
        re.findall(r'person=([a-z-]+)">Recruiting(?:: ([^<]*))?<span', html.replace("\n", ""))
    )
    assert badges["ada-a"] == badges["bob-b"] != badges["cy-c"]
    assert "Fall 2027" in badges["cy-c"] and "any time" in badges["ada-a"]
    assert "di-d" not in badges


# ----------------------------------------------------------------------------- research areas


def test_unknown_area_is_a_404(client) -> None:
    assert client.get("/directory/areas/no-such-area").status_code == 404


# ----------------------------------------------------------------------------- recruiting


def test_recruiting_filters_by_term_person_and_funding(client, make_person, db) -> None:
    ada = make_person()
    bob = make_person("Bob Builder")
    db.add_all(
        [
            m.RecruitingNotice(owner_id=ada.id, level="phd", term="Fall 2027", description="a"),
            m.RecruitingNotice(
                owner_id=ada.id, level="postdoc", description="b", funded=True, funding_note="NSF"
            ),
            m.RecruitingNotice(owner_id=bob.id, level="phd", term="Spring 2027", description="c"),
        ]
    )
    db.commit()
    html = get(client, "/directory/recruiting")
    # Terms offered are the ones in use, soonest first, and "rolling only" (the postdoc).
    offered = re.findall(
        r'<option value="([^"]*)"', html.split('name="term"')[1].split("</select>")[0]
    )
    assert offered == ["", "Spring 2027", "Fall 2027", "rolling"]
    # A term shows that term's notices and the rolling ones, labelled as such.
    fall = get(client, "/directory/recruiting?term=Fall+2027")
    assert notice_owners(fall) == ["ada-lovelace/PhD students", "ada-lovelace/Postdocs"]
    assert fall.count("Rolling: any time") == 1
    assert notice_owners(get(client, "/directory/recruiting?term=rolling")) == [
        "ada-lovelace/Postdocs"
    ]
    assert notice_owners(get(client, "/directory/recruiting?person=bob-builder")) == [
        "bob-builder/PhD students"
    ]
    funded = get(client, "/directory/recruiting?funded=1")
    assert notice_owners(funded) == ["ada-lovelace/Postdocs"]
    assert "Funding: NSF." in funded


def test_recruiting_offers_rolling_only_for_an_open_rolling_notice(client, make_person, db):
    """The term filter's choices (one statement finds the terms and the rolling intake): a
    notice whose intake is unreadable text is neither a term nor rolling, and an expired
    rolling notice offers nothing."""
    ada = make_person()
    db.add_all(
        [
            m.RecruitingNotice(owner_id=ada.id, level="phd", term="Fall 2027", description="a"),
            m.RecruitingNotice(owner_id=ada.id, level="phd", term="after my move", description="b"),
            m.RecruitingNotice(owner_id=ada.id, level="postdoc", description="c",
                               expires_on=date(2020, 1, 1)),
        ]
    )  # fmt: skip
    db.commit()

    def offered() -> list[str]:
        html = get(client, "/directory/recruiting")
        return re.findall(
            r'<option value="([^"]*)"', html.split('name="term"')[1].split("</select>")[0]
        )

    assert offered() == ["", "Fall 2027"]
    db.add(m.RecruitingNotice(owner_id=ada.id, level="intern", description="d"))
    db.commit()
    assert offered() == ["", "Fall 2027", "rolling"]


def test_recruiting_is_paginated_and_offers_the_people_shown(
    client, make_person, db, app, monkeypatch
) -> None:
    """The recruiting page comes a page at a time (its feed holds every notice), keeping the
    filters; the person filter offers the owners of the notices shown and the one filtered
    by, and any recruiting person's slug filters."""
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 2)
    people = [make_person(f"Prof Number{i}") for i in range(5)]
    db.add_all(
        m.RecruitingNotice(owner_id=p.id, level="phd", term="Fall 2027", description=f"n{i}")
        for i, p in enumerate(people)
    )
    db.commit()
    first = get(client, "/directory/recruiting?level=phd")
    assert "5 open positions." in first and "Showing 1–2 of 5" in first
    assert len(notice_owners(first)) == 2
    assert 'href="/directory/recruiting?level=phd&amp;page=2"' in first
    offered = re.findall(
        r'<option value="([^"]*)"', first.split('name="person"')[1].split("</select>")[0]
    )
    assert offered == ["", "prof-number0", "prof-number1"]
    last = get(client, "/directory/recruiting?level=phd&page=9")  # past the last: the last
    assert notice_owners(last) == ["prof-number4/PhD students"]
    # The feed is not paged, and its link carries no page number.
    assert 'href="/directory/recruiting.atom?level=phd"' in last
    assert get(client, "/directory/recruiting.atom?level=phd").count("<entry>") == 5
    one = get(client, "/directory/recruiting?person=prof-number3")
    assert notice_owners(one) == ["prof-number3/PhD students"]
    assert '<option value="prof-number3" selected>' in one


def test_each_notice_shows_how_to_apply_and_when_it_was_last_confirmed(
    client, make_person, db
) -> None:
    ada = make_person()
    db.add(
        m.RecruitingNotice(
            owner_id=ada.id,
            level="phd",
            description="Join us.",
            how_to_apply="Write to [the lab](https://lab.example)",
            last_confirmed=date(2026, 3, 7),
            deadline=date(2026, 12, 15),
        )
    )
    db.commit()
    html = get(client, "/directory/recruiting")
    assert 'How to apply:</strong> Write to <a href="https://lab.example"' in html
    assert "Last confirmed March 7, 2026." in html  # the locale's long date (Babel, "en")
    assert "Apply by December 15, 2026." in html


def test_feed_text_is_escaped_by_the_xml_writer(client, make_person, db) -> None:
    ada = make_person("Ada <Lovelace> & Co")
    db.add(
        m.RecruitingNotice(
            owner_id=ada.id,
            level="phd",
            title="Students & <friends>",
            description="<script>alert(1)</script> **bold** & more",
        )
    )
    db.commit()
    (entry,) = atom_entries(client, "/directory/recruiting.atom")
    assert entry.findtext(f"{ATOM}title") == "Students & <friends>"
    assert entry.findtext(f"{ATOM}author/{ATOM}name") == "Ada <Lovelace> & Co"
    content = entry.findtext(f"{ATOM}content")
    assert "<strong>bold</strong>" in content
    assert "<script>" not in content


# ----------------------------------------------------------------------------- alumni


def test_alumni_are_paginated(client, make_person, db, app, monkeypatch) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 2)
    for i in range(5):
        make_person(f"Alum Number{i}", role="alumni")
    first = get(client, "/directory/alumni")
    assert "5 alumni." in first and "Showing 1–2 of 5" in first
    assert 'href="/directory/alumni?page=3"' in first
    assert "Showing 5–5 of 5" in get(client, "/directory/alumni?page=3")


# ----------------------------------------------------------------------------- publications


def test_every_department_paper_is_listed_once_with_authors_linked(
    client, make_person, make_publication
) -> None:
    ada = make_person()
    bob = make_person("Bob Builder", role="phd_student")
    make_publication("Shared Engines", authors=(bob, "Outside Person", ada))
    html = get(client, "/directory/publications")
    body = html.split("</head>", 1)[1]  # the head's JSON-LD names the paper too
    assert body.count("Shared Engines") == 1
    assert 'href="/directory/people/bob-builder">Bob Builder' in html
    assert 'href="/directory/people/ada-lovelace">Ada Lovelace' in html


def test_publication_filters(client, make_person, make_publication, db) -> None:
    area = m.ResearchArea(slug="databases", name="Databases")
    ada = make_person(areas=[area])
    bob = make_person("Bob Builder")
    make_publication("Old Journal", authors=(ada,), year=2019, type="journal", venue="TODS")
    make_publication("New Conf", authors=(bob,), year=2024, venue_short="OSDI'24")
    awarded = make_publication("Prized", authors=(bob,), year=2024, venue_short="SOSP")
    awarded.awards.append(m.PublicationAward(name="Best Paper Award"))
    db.commit()

    def titles(query: str) -> set[str]:
        html = get(client, "/directory/publications" + query)
        return set(re.findall(r'<cite class="pub__title">(?:<a [^>]*>)?([^<]+)', html))

    assert titles("") == {"Old Journal", "New Conf", "Prized"}
    assert titles("?year=2024") == {"New Conf", "Prized"}
    assert titles("?type=journal") == {"Old Journal"}
    assert titles("?person=bob-builder") == {"New Conf", "Prized"}
    assert titles("?area=databases") == {"Old Journal"}
    assert titles("?venue=osdi") == {"New Conf"}
    assert titles("?venue=tods") == {"Old Journal"}
    assert titles("?awards=1") == {"Prized"}
    assert titles("?year=2024&person=ada-lovelace") == set()
    html = get(client, "/directory/publications?awards=1")
    assert 'class="pub pub--awarded"' in html and "Best Paper Award" in html
    # The venue suggestions drop the year: OSDI'24 is offered as OSDI.
    assert '<option value="OSDI">' in get(client, "/directory/publications")


def test_publications_are_paginated_keeping_the_filters(
    client, make_person, make_publication, app, monkeypatch
) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 2)
    ada = make_person()
    for i in range(5):
        make_publication(f"Paper {i}", authors=(ada,), year=2020 + i)
    first = get(client, "/directory/publications?person=ada-lovelace")
    assert first.count('<cite class="pub__title">') == 2
    assert "Paper 4" in first and "Paper 3" in first
    assert 'href="/directory/publications?person=ada-lovelace&amp;page=2"' in first
    last = get(client, "/directory/publications?person=ada-lovelace&page=3")
    assert last.count('<cite class="pub__title">') == 1 and "Paper 0" in last
    # Past the end: the last page, not an error.
    assert "Paper 0" in get(client, "/directory/publications?page=99")


def test_the_person_and_venue_choices_are_those_of_the_papers_shown(
    client, make_person, make_publication, app, monkeypatch
) -> None:
    """The filters' lists stay a page's worth in a whole university: the person filter offers
    the authors (with a visible profile) of the papers shown, and the person filtered by; the
    venue suggestions are the venues shown. Any person still filters (``?person=``, without
    JavaScript), and the type choices count every paper but the type's own filter."""
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 1)
    ada = make_person()
    bob = make_person("Bob Builder")
    hidden = make_person("Hidden Person", visibility="private")
    make_publication("Newest", authors=(ada, hidden), year=2024, venue_short="OSDI'24")
    make_publication("Older", authors=(bob,), year=2020, venue_short="SOSP", type="journal")

    def options(html: str, name: str) -> list[str]:
        select = html[html.index(f'name="{name}"') :]
        return re.findall(r'<option value="([^"]*)"', select[: select.index("</select>")])

    first = get(client, "/directory/publications")
    assert options(first, "person") == ["", "ada-lovelace"]
    assert '<option value="OSDI">' in first and '<option value="SOSP">' not in first
    assert options(first, "type") == ["", "conference", "journal"]
    # Bob is on no page shown first, and is found by his slug; he is then offered, selected.
    bobs = get(client, "/directory/publications?person=bob-builder")
    assert re.findall(r'<cite class="pub__title">(?:<a [^>]*>)?([^<]+)', bobs) == ["Older"]
    assert '<option value="bob-builder" selected>Bob Builder</option>' in bobs
    assert options(bobs, "type") == ["", "journal"]
    # A type filtered by still offers the others (counted without the type).
    journals = get(client, "/directory/publications?type=journal")
    assert options(journals, "type") == ["", "conference", "journal"]
    assert "1 paper match" in journals


def test_papers_per_year_chart_is_server_svg_with_a_text_alternative(
    client, make_person, make_publication
) -> None:
    ada = make_person()
    make_publication("A", authors=(ada,), year=2020, venue="Solo")
    make_publication("B", authors=(ada,), year=2022)
    make_publication("C", authors=(ada,), year=2022)
    html = get(client, "/directory/publications?year=2022")
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert 'role="img"' in svg and 'aria-labelledby="chart-title"' in svg
    assert "style=" not in svg
    # One bar per year with papers (the empty year 2021 has a slot but no bar).
    assert svg.count("<rect") == 2
    assert svg.count("chart__bar--selected") == 1
    table = html[html.index('<details class="chart__table">') : html.index("</details>")]
    rows = re.findall(r"<a href=\"[^\"]*year=(\d+)[^\"]*\"[^>]*>\d+</a></th><td>(\d+)</td>", table)
    assert rows == [("2022", "2"), ("2020", "1")]
    assert "3 from 2020 to 2022" in html
    # One year alone makes no chart.
    html = get(client, "/directory/publications?venue=Solo")
    assert "1 paper match" in html and "<svg" not in html


def test_bibtex_export_holds_what_is_shown_on_every_page(
    client, make_person, make_publication, app, monkeypatch
) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 1)
    ada = make_person()
    make_publication("Kept One", authors=(ada,), year=2024, venue="OSDI")
    make_publication("Kept Two", authors=(ada,), year=2024, venue="SOSP")
    make_publication("Filtered Out", authors=(ada,), year=2019)
    html = get(client, "/directory/publications?year=2024")
    assert 'href="/directory/publications.bib?year=2024"' in html
    response = client.get("/directory/publications.bib?year=2024")
    assert response.status_code == 200
    assert response.mimetype == "application/x-bibtex"
    text = response.get_data(as_text=True)
    assert text.count("@") == 2
    assert "Kept One" in text and "Kept Two" in text and "Filtered Out" not in text
    assert "Ada Lovelace" in text or "Lovelace, Ada" in text


# ----------------------------------------------------------------------------- news


def test_news_gathers_profiles_newest_first_with_a_feed(client, make_person, db) -> None:
    ada = make_person()
    bob = make_person("Bob Builder")
    db.add_all(
        [
            m.NewsItem(owner_id=ada.id, year=2025, month=5, body="Older *news*"),
            m.NewsItem(owner_id=bob.id, year=2026, month=1, body="Newest & best"),
            m.NewsItem(owner_id=ada.id, year=2025, body="Year only"),
        ]
    )
    db.commit()
    html = get(client, "/directory/news")
    assert html.index("Newest &amp; best") < html.index("Older <em>news</em>")
    assert html.index("Older <em>news</em>") < html.index("Year only")
    assert 'href="/directory/people/bob-builder">Bob Builder' in html
    assert feed_link(html) == "http://directory.test/directory/news.atom"
    entries = atom_entries(client, "/directory/news.atom")
    assert [e.findtext(f"{ATOM}title") for e in entries] == [
        "Bob Builder: Newest & best",
        "Ada Lovelace: Older news",
        "Ada Lovelace: Year only",
    ]
    assert entries[0].findtext(f"{ATOM}published") == "2026-01-01T00:00:00Z"
    assert entries[1].findtext(f"{ATOM}content") == "Older <em>news</em>"
