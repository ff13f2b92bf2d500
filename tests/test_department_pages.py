"""The department pages: listing, research areas, recruiting (with expiry and its feed), alumni,
publications (chart, BibTeX), news (feed), sitemap and structured data."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from xml.etree import ElementTree as ET

from sqlalchemy import select

from directory import department
from directory import models as m

from .conftest import login

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def get(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


def card_slugs(html: str) -> list[str]:
    """Profile slugs of the person cards, in page order."""
    return re.findall(r'class="card__name"><a href="/directory/people/([^"]+)"', html)


def groups(html: str) -> dict[str, list[str]]:
    """Listing group key → card slugs in it."""
    parts = re.split(r'<section class="listing__group" id="group-([a-z_]+)"', html)
    return {key: card_slugs(body) for key, body in zip(parts[1::2], parts[2::2], strict=True)}


def notice_owners(html: str) -> list[str]:
    """(owner slug, level) of every notice on a page, in order."""
    found = re.findall(
        r'<article class="notice" id="notice-\d+">.*?people/([^"#]+)".*?tag--level">([^<]+)<',
        html,
        re.S,
    )
    return [f"{slug}/{level}" for slug, level in found]


def atom_entries(client, url: str) -> list[ET.Element]:
    response = client.get(url)
    assert response.status_code == 200
    assert response.mimetype == "application/atom+xml"
    feed = ET.fromstring(response.data)  # noqa: S314 - our own output
    assert feed.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated"):
        assert feed.find(f"{ATOM}{required}") is not None
    return feed.findall(f"{ATOM}entry")


def feed_link(html: str) -> str:
    match = re.search(
        r'<link rel="alternate" type="application/atom\+xml" title="[^"]*" href="([^"]+)">', html
    )
    assert match, "no Atom feed advertised in the page head"
    head = html[: html.index("</head>")]
    assert match.group(0) in head
    return match.group(1).replace("&amp;", "&")


# ----------------------------------------------------------------------------- listing


def test_demo_listing_groups_people_by_role_and_faculty_by_rank(client, demo, db) -> None:
    html = get(client, "/directory/")
    by_group = groups(html)
    assert list(by_group) == ["faculty", "research_staff", "phd_student", "masters_student"]
    assert by_group["faculty"] == ["xingda-wei", "danyang-zhuo"]  # associate before assistant
    assert html.index("Associate Professors") < html.index("Assistant Professors")
    assert by_group["research_staff"] == ["jiangfei-duan"]
    assert len(by_group["phd_student"]) == 10 and "alexander-du" in by_group["phd_student"]
    assert len(by_group["masters_student"]) == 6
    # Sorted by surname within a group: Chen, Cheng, Du, ...
    assert by_group["phd_student"][:3] == ["zhuo-chen", "rongxin-cheng", "alexander-du"]
    # Alumni have their own page.
    assert "samantha-miller" not in card_slugs(html)
    assert 'href="/directory/alumni"' in html

    # Cards: photo, title, areas, recruiting badge.
    wei = db.scalar(select(m.Person).where(m.Person.slug == "xingda-wei"))
    wei.photo = m.PersonPhoto(data=b"x", mime_type="image/png", width=1, height=1, etag="abc")
    db.commit()
    html = get(client, "/directory/?role=faculty")
    card = next(c for c in html.split('<article class="card">')[1:] if "xingda-wei" in c)
    assert 'src="/directory/people/xingda-wei/photo"' in card
    assert "Associate Professor (Tenure Track)" in card
    assert 'href="/directory/areas/distributed-systems">Distributed Systems' in card
    assert 'href="/directory/recruiting?person=xingda-wei"' in card
    assert "danyang-zhuo/photo" not in html  # no photo: initials instead

    # Structured data: the people shown, in the order shown, without email addresses.
    raw = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S).group(1)
    data = json.loads(raw)
    assert data["@type"] == "CollectionPage"
    items = data["mainEntity"]["itemListElement"]
    assert [item["item"]["name"] for item in items] == ["Xingda Wei", "Danyang Zhuo"]
    assert items[0]["item"]["url"] == "http://directory.test/directory/people/xingda-wei"
    assert items[0]["item"]["image"] == "http://directory.test/directory/people/xingda-wei/photo"
    assert "wxdwfc@sjtu.edu.cn" not in raw


def test_every_listing_filter_is_a_query_parameter(client, demo) -> None:
    assert card_slugs(get(client, "/directory/?role=research_staff")) == ["jiangfei-duan"]
    assert set(card_slugs(get(client, "/directory/?recruiting=1"))) == {
        "xingda-wei",
        "danyang-zhuo",
    }
    storage = card_slugs(get(client, "/directory/?area=storage-systems"))
    assert "xingda-wei" in storage and "danyang-zhuo" not in storage
    ipads = "Institute of Parallel and Distributed Systems (IPADS), School of Computer Science"
    in_ipads = card_slugs(get(client, "/directory/?unit=" + ipads))
    assert "xingda-wei" in in_ipads and "danyang-zhuo" not in in_ipads
    # Name or interest, several words all required, case-insensitive.
    assert card_slugs(get(client, "/directory/?q=SERVERLESS")) == ["xingda-wei"]
    assert card_slugs(get(client, "/directory/?q=zhuo+chen")) == ["zhuo-chen"]
    # Filters combine.
    assert card_slugs(get(client, "/directory/?role=faculty&area=operating-systems")) == [
        "danyang-zhuo"
    ]
    # A bad value is dropped, not an error: the page still opens.
    assert len(card_slugs(get(client, "/directory/?role=wizard&letter=%%"))) == 19


def test_a_to_z_index_and_filter_form_work_without_javascript(client, demo) -> None:
    html = get(client, "/directory/?role=phd_student")
    assert 'href="/directory/?letter=W&amp;role=phd_student"' in html
    assert re.search(r'<span class="az__empty" aria-hidden="true">B</span>', html)
    w = card_slugs(get(client, "/directory/?letter=W&role=phd_student"))
    assert w == ["jiahao-wang"]
    # Groups keep their order: faculty first.
    assert card_slugs(get(client, "/directory/?letter=w")) == ["xingda-wei", "jiahao-wang"]

    # The filter form works without JavaScript: a GET form of labelled fields.
    html = get(client, "/directory/?area=networking&recruiting=1")
    form = html[html.index('<form class="filters"') : html.index("</form>")]
    assert 'method="get"' in form
    for name in ("q", "role", "area", "unit", "recruiting"):
        assert f'name="{name}"' in form
        assert re.search(rf'<label for="filter-{name}">', form)
    assert '<option value="networking" selected>' in form
    assert 'name="recruiting" value="1" checked' in form
    # Active filters are listed, each linking to the page without it.
    assert 'href="/directory/?recruiting=1">Networking' in html


def test_empty_listing_says_so(client) -> None:
    assert "No one is listed yet." in get(client, "/directory/")
    assert "No one matches these filters." in get(client, "/directory/?q=nobody")


# ----------------------------------------------------------------------------- research areas


def test_research_areas_index_and_area_page(client, demo) -> None:
    html = get(client, "/directory/areas/")
    item = html[html.index(">Machine Learning Systems</a>") :][:300]
    assert "19 people" in item
    assert "2 open positions" in item and 'href="/directory/recruiting?area=machine' in item

    # An area's page: its people, open notices and recent papers.
    html = get(client, "/directory/areas/operating-systems")
    assert "<h1>Operating Systems</h1>" in html
    assert "danyang-zhuo" in card_slugs(html) and "xingda-wei" not in card_slugs(html)
    assert notice_owners(html) == ["danyang-zhuo/PhD students"]
    papers = html[html.index('id="papers"') :]
    assert papers.count('class="pub') >= 1
    assert feed_link(html).endswith("/directory/recruiting.atom?area=operating-systems")


def test_unknown_area_is_a_404(client) -> None:
    assert client.get("/directory/areas/no-such-area").status_code == 404


# ----------------------------------------------------------------------------- recruiting


def test_demo_recruiting_filters_by_level_and_area_return_exactly_the_matching_notices(
    client, demo
) -> None:
    everything = notice_owners(get(client, "/directory/recruiting"))
    assert sorted(everything) == [
        "danyang-zhuo/PhD students",
        "xingda-wei/PhD students",
        "xingda-wei/Research interns",
    ]
    assert notice_owners(get(client, "/directory/recruiting?level=phd")) == [
        "xingda-wei/PhD students",
        "danyang-zhuo/PhD students",
    ]
    url = "/directory/recruiting?level=phd&area=machine-learning-systems"
    assert notice_owners(get(client, url)) == ["xingda-wei/PhD students"]
    url = "/directory/recruiting?level=intern&area=distributed-systems"
    assert notice_owners(get(client, url)) == ["xingda-wei/Research interns"]
    html = get(client, "/directory/recruiting?level=intern&area=operating-systems")
    assert notice_owners(html) == []
    assert "No open position matches these filters." in html


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
    # Terms offered are the ones in use.
    assert "<option>Fall 2027</option>" in html and "<option>Spring 2027</option>" in html
    assert notice_owners(get(client, "/directory/recruiting?term=Fall+2027")) == [
        "ada-lovelace/PhD students"
    ]
    assert notice_owners(get(client, "/directory/recruiting?person=bob-builder")) == [
        "bob-builder/PhD students"
    ]
    funded = get(client, "/directory/recruiting?funded=1")
    assert notice_owners(funded) == ["ada-lovelace/Postdocs"]
    assert "Funding: NSF." in funded


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
    assert "Last confirmed 7 March 2026." in html
    assert "Apply by 15 December 2026." in html


def test_an_expired_notice_disappears_by_itself(client, demo, db, monkeypatch) -> None:
    notice = db.scalar(select(m.RecruitingNotice).where(m.RecruitingNotice.level == "intern"))
    today = date.today()
    notice.expires_on = today + timedelta(days=1)
    db.commit()
    assert "xingda-wei/Research interns" in notice_owners(get(client, "/directory/recruiting"))
    assert "xingda-wei" in card_slugs(get(client, "/directory/?recruiting=1"))
    assert len(atom_entries(client, "/directory/recruiting.atom")) == 3

    # A day passes; nobody touches the database.
    monkeypatch.setattr(department, "today", lambda: today + timedelta(days=1))
    assert "xingda-wei/Research interns" not in notice_owners(get(client, "/directory/recruiting"))
    assert len(atom_entries(client, "/directory/recruiting.atom")) == 2
    assert len(atom_entries(client, "/directory/recruiting.atom?level=intern")) == 0
    area = get(client, "/directory/areas/distributed-systems")
    assert notice_owners(area) == ["xingda-wei/PhD students"]


def test_recruiting_feed_follows_the_filters_and_is_advertised_in_the_head(client, demo) -> None:
    html = get(client, "/directory/recruiting?level=phd&area=machine-learning-systems")
    url = feed_link(html)
    assert url == (
        "http://directory.test/directory/recruiting.atom?level=phd&area=machine-learning-systems"
    )
    entries = atom_entries(client, url)
    assert len(entries) == 1
    entry = entries[0]
    assert entry.findtext(f"{ATOM}title") == "PhD students with Xingda Wei"
    assert entry.find(f"{ATOM}link").get("href").endswith("/people/xingda-wei#recruiting")
    assert "How to apply" in entry.findtext(f"{ATOM}content")
    assert entry.find(f"{ATOM}content").get("type") == "html"
    assert len(atom_entries(client, "/directory/recruiting.atom")) == 3


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


def test_demo_alumni_with_filters_by_year_advisor_and_degree(client, demo, make_person, db) -> None:
    html = get(client, "/directory/alumni")
    rows = re.findall(r"<tr>\s*<th scope=\"row\".*?</tr>", html, re.S)
    names = [re.search(r"people/([^\"]+)", row).group(1) for row in rows]
    assert names == ["jingrong-chen", "xinhao-kong", "yongji-wu", "samantha-miller"]
    samantha = rows[3]
    assert "PhD" in samantha and "2023" in samantha and "Databricks" in samantha
    assert "Danyang Zhuo</a>" in samantha and "Tom Anderson (co-advisor)" in samantha

    def names(url: str) -> list[str]:
        row = r'<th scope="row" data-label="Name"><a href="/directory/people/([^"]+)"'
        return re.findall(row, get(client, url))

    assert names("/directory/alumni?year=2024") == ["xinhao-kong", "yongji-wu"]
    assert len(names("/directory/alumni?advisor=danyang-zhuo")) == 4
    assert names("/directory/alumni?degree=masters") == []
    ms = make_person("Mia Masters", role="alumni")
    wei = db.scalar(select(m.Person).where(m.Person.slug == "xingda-wei"))
    db.add(
        m.AdvisingRelation(
            owner_id=wei.id,
            advisor_id=wei.id,
            student_id=ms.id,
            degree="masters",
            status="graduated",
            end_year=2022,
            thesis="On Caches",
        )
    )
    db.commit()
    assert names("/directory/alumni?degree=masters") == ["mia-masters"]
    assert names("/directory/alumni?advisor=xingda-wei") == ["mia-masters"]
    assert "<cite>On Caches</cite>" in get(client, "/directory/alumni?year=2022")


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
    assert html.count("Shared Engines") == 1
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
        return set(re.findall(r'<cite class="pub__title">([^<]+)</cite>', html))

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


# ----------------------------------------------------------------------------- site-wide


def test_sitemap_lists_department_pages_and_public_profiles(client, demo, make_person) -> None:
    make_person("Private Person", visibility="private")
    make_person("Member Person", visibility="members")
    login(client, "admin")  # the sitemap is the anonymous view whoever asks
    response = client.get("/directory/sitemap.xml")
    assert response.status_code == 200
    root = ET.fromstring(response.data)  # noqa: S314 - our own output
    locs = [url.findtext(f"{SITEMAP}loc") for url in root.findall(f"{SITEMAP}url")]
    base = "http://directory.test/directory"
    for page in ("/", "/areas/", "/recruiting", "/alumni", "/publications", "/news"):
        assert base + page in locs
    assert base + "/areas/networking" in locs
    assert base + "/people/xingda-wei" in locs and base + "/people/samantha-miller" in locs
    assert not any("private-person" in loc or "member-person" in loc for loc in locs)
    assert len(locs) == len(set(locs)) == 6 + 6 + 23


def test_department_pages_have_the_navigation_and_no_inline_styles_or_scripts(client, demo) -> None:
    pages = ("/", "/areas/", "/areas/networking", "/recruiting", "/alumni", "/publications")
    pages += ("/news",)
    for page in pages:
        html = get(client, "/directory" + page)
        nav = html[html.index('<ul class="site-nav">') : html.index("</nav>")]
        for target in ("/", "/areas/", "/recruiting", "/publications", "/alumni", "/news"):
            assert f'href="/directory{target}"' in nav
        assert nav.count('aria-current="page"') == 1, page
        assert "style=" not in html, page
        scripts = re.findall(r"<script(?![^>]*application/ld\+json)[^>]*>", html)
        assert all("src=" in tag for tag in scripts), page
