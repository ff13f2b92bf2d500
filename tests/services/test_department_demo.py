"""The department pages on the demo department (loaded once for the module): the listing groups
people correctly, recruiting filters return exactly the matching notices, an expired notice is
gone without anyone touching it, alumni, areas, sitemap and navigation."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from xml.etree import ElementTree as ET

from sqlalchemy import func, select

from directory import models as m
from directory.services import department
from directory.services.access import listed_publications
from directory.services.identity import ANONYMOUS
from directory.web.views import sitemap as sitemap_view
from tests.conftest import login
from tests.support.pages import (
    ATOM,
    SITEMAP,
    atom_entries,
    card_slugs,
    feed_link,
    get,
    groups,
    notice_owners,
)
from tests.support.shared_demo import connection, demo_connection  # noqa: F401


def test_demo_listing_groups_people_by_role_and_faculty_by_rank(client, db) -> None:
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


def test_every_listing_filter_is_a_query_parameter(client) -> None:
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


def test_a_to_z_index_and_filter_form_work_without_javascript(client) -> None:
    html = get(client, "/directory/?role=phd_student")
    assert 'href="/directory/?letter=W&amp;role=phd_student"' in html
    assert re.search(r'<span class="az__empty" aria-hidden="true">B</span>', html)
    w = card_slugs(get(client, "/directory/?letter=W&role=phd_student"))
    assert w == ["jiahao-wang"]
    # Groups keep their order: faculty first.
    assert card_slugs(get(client, "/directory/?letter=w")) == ["xingda-wei", "jiahao-wang"]

    # The filter form works without JavaScript: a GET form of labelled fields.
    html = get(client, "/directory/?area=networking&recruiting=1")
    start = html.index('<form class="filters"')
    form = html[start : html.index("</form>", start)]
    assert 'method="get"' in form
    for name in ("q", "role", "area", "unit", "recruiting"):
        assert f'name="{name}"' in form
        assert re.search(rf'<label for="filter-{name}">', form)
    assert '<option value="networking" selected>' in form
    assert 'name="recruiting" value="1" checked' in form
    # Active filters are listed, each linking to the page without it.
    assert 'href="/directory/?recruiting=1">Networking' in html


def test_research_areas_index_and_area_page(client) -> None:
    html = get(client, "/directory/areas/")
    item = html[html.index(">Machine Learning Systems</a>") :][:300]
    assert "19 people" in item
    # Danyang Zhuo's PhD notice (his interests: cloud computing and ML systems), Xingda Wei's
    # PhD and intern notices.
    assert "3 open positions" in item and 'href="/directory/recruiting?area=machine' in item

    # An area's page: its people, open notices and recent papers.
    html = get(client, "/directory/areas/operating-systems")
    assert "<h1>Operating Systems</h1>" in html
    assert "danyang-zhuo" in card_slugs(html) and "xingda-wei" not in card_slugs(html)
    assert notice_owners(html) == ["danyang-zhuo/PhD students"]
    papers = html[html.index('id="papers"') :]
    assert papers.count('class="pub') >= 1
    assert feed_link(html).endswith("/directory/recruiting.atom?area=operating-systems")


def test_demo_recruiting_filters_by_level_and_area_return_exactly_the_matching_notices(
    client,
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
    assert notice_owners(get(client, url)) == [
        "xingda-wei/PhD students",
        "danyang-zhuo/PhD students",
    ]
    url = "/directory/recruiting?level=intern&area=distributed-systems"
    assert notice_owners(get(client, url)) == ["xingda-wei/Research interns"]
    html = get(client, "/directory/recruiting?level=intern&area=operating-systems")
    assert notice_owners(html) == []
    assert "No open position matches these filters." in html


def test_an_expired_notice_disappears_by_itself(client, db, monkeypatch) -> None:
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


def test_recruiting_feed_follows_the_filters_and_is_advertised_in_the_head(client) -> None:
    html = get(client, "/directory/recruiting?level=phd&area=machine-learning-systems")
    url = feed_link(html)
    assert url == (
        "http://directory.test/directory/recruiting.atom?level=phd&area=machine-learning-systems"
    )
    entries = atom_entries(client, url)
    titles = [entry.findtext(f"{ATOM}title") for entry in entries]
    assert titles == ["PhD students with Xingda Wei", "PhD students with Danyang Zhuo (Fall 2026)"]
    entry = entries[0]
    terms = [c.get("term") for c in entry.findall(f"{ATOM}category")]
    assert "Rolling / any time" in terms
    assert entry.find(f"{ATOM}link").get("href").endswith("/people/xingda-wei#recruiting")
    assert "How to apply" in entry.findtext(f"{ATOM}content")
    assert entry.find(f"{ATOM}content").get("type") == "html"
    assert len(atom_entries(client, "/directory/recruiting.atom")) == 3


def test_demo_alumni_with_filters_by_year_advisor_and_degree(client, make_person, db) -> None:
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


def test_sitemap_lists_department_pages_and_public_profiles(client, db, make_person) -> None:
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
    assert base + "/people/xingda-wei" in locs
    assert not any("private-person" in loc or "member-person" in loc for loc in locs)
    # Every paper anyone may see on the department's pages has its page there too.
    papers = {loc for loc in locs if loc.startswith(base + "/publications/")}
    listed = select(func.count()).where(listed_publications(ANONYMOUS, m.Publication))
    assert len(papers) == db.scalar(listed.select_from(m.Publication)) > 0
    assert len(locs) == len(set(locs)) == 6 + 6 + 19 + len(papers)  # alumni: from /alumni


def test_a_sitemap_past_the_protocols_limit_becomes_an_index_of_parts(client, monkeypatch) -> None:
    """sitemaps.org: at most 50,000 URLs a sitemap (an importing department can pass it)."""
    whole = ET.fromstring(client.get("/directory/sitemap.xml").data)  # noqa: S314 - our own
    every = [url.findtext(f"{SITEMAP}loc") for url in whole.findall(f"{SITEMAP}url")]
    monkeypatch.setattr(sitemap_view, "MAX_URLS", 20)
    index = ET.fromstring(client.get("/directory/sitemap.xml").data)  # noqa: S314
    assert index.tag == f"{SITEMAP}sitemapindex"
    parts = [s.findtext(f"{SITEMAP}loc") for s in index.findall(f"{SITEMAP}sitemap")]
    assert len(parts) == -(-len(every) // 20) >= 2
    found = []
    for part in parts:
        urlset = ET.fromstring(client.get(part).data)  # noqa: S314
        found += [url.findtext(f"{SITEMAP}loc") for url in urlset.findall(f"{SITEMAP}url")]
        assert len(urlset) <= 20
    assert found == every
    for bad in ("0", str(len(parts) + 1), "one", "1%00"):
        assert client.get(f"/directory/sitemap.xml?part={bad}").status_code == 404


def test_department_pages_have_the_navigation_and_no_inline_styles_or_scripts(client) -> None:
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


def test_phd_fall_2026_machine_learning_systems_answers_both_professors(client) -> None:
    """The prospective student's question on the demo: Danyang Zhuo recruits PhD students
    for Fall 2026, Xingda Wei at any time (rolling), both in machine-learning systems."""
    url = "/directory/recruiting?level=phd&term=Fall+2026&area=machine-learning-systems"
    html = get(client, url)
    assert notice_owners(html) == ["xingda-wei/PhD students", "danyang-zhuo/PhD students"]
    assert "2 open positions." in html
    xingda = html[html.index("people/xingda-wei") :].split("</article>")[0]
    assert "Rolling: any time" in xingda
    danyang = html[html.index("people/danyang-zhuo") :].split("</article>")[0]
    assert 'tag--term">Fall 2026<' in danyang
    # The same answer from its feed and from the API.
    feed = atom_entries(client, url.replace("/recruiting?", "/recruiting.atom?"))
    assert len(feed) == 2
    api = client.get(
        "/directory/api/v1/positions?level=phd&term=Fall+2026&area=machine-learning-systems"
    ).get_json()
    assert sorted(p["person"]["slug"] for p in api["items"]) == ["danyang-zhuo", "xingda-wei"]
    # Another term: Xingda Wei's rolling notice still, Danyang Zhuo's Fall 2026 one not.
    html = get(client, "/directory/recruiting?level=phd&term=Spring+2027")
    assert notice_owners(html) == ["xingda-wei/PhD students"]


def test_recruiting_badges_say_level_and_term_once_each(client) -> None:
    cards = get(client, "/directory/?recruiting=1")
    badges = re.findall(r'class="badge badge--recruiting"[^>]*>(.*?)<span', cards)
    assert sorted(badges) == [
        "Recruiting: PhD students (Fall 2026)",
        "Recruiting: PhD students, Research interns (any time)",
    ]
    profile = get(client, "/directory/people/xingda-wei")
    badge = re.search(
        r'<p class="badge badge--recruiting"><a href="#recruiting">(.*?)</a>', profile
    )
    assert badge.group(1) == "Recruiting: PhD students, Research interns (any time)"
