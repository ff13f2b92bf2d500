"""Long lists are folded or paginated: a profile shows its selected and most recent papers and
links to the complete list of the person's papers, which is paginated; the listing, the
editor's paper list and the admin's people table come a page at a time. Page numbers that do
not exist never give a 500."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event, select

from directory import models as m
from directory.services import profiles
from directory.services.shown_papers import shown_papers
from tests.conftest import login
from tests.support.editing import post

PREFIX = "/directory"


def _papers(db, person, count: int, **overrides) -> list[m.Publication]:
    """``count`` papers of ``person``, one a year from 2024 back, each on the profile."""
    papers = []
    for i in range(count):
        pub = m.Publication(title=f"Paper number {i:03d}", year=2024 - i, **overrides)
        pub.authorships.append(m.Authorship(position=0, name=person.full_name, person=person))
        db.add(pub)
        papers.append(pub)
    db.flush()
    for pub in papers:
        db.add(m.ProfilePublication(person_id=person.id, publication_id=pub.id))
    db.commit()
    return papers


def _titles(html: str) -> list[str]:
    """The titles of the citations shown (not the page's metadata)."""
    return re.findall(r'<cite class="pub__title"><a [^>]*>(Paper number \d{3})</a>', html)


def _get(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


@pytest.fixture
def small_pages(app, monkeypatch) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_PROFILE_PUBLICATIONS", 3)
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 4)


def test_a_short_list_is_shown_whole_without_a_link(client, db, make_person, small_pages):
    person = make_person()
    _papers(db, person, 3)
    html = _get(client, f"{PREFIX}/people/{person.slug}")
    assert _titles(html) == ["Paper number 000", "Paper number 001", "Paper number 002"]
    assert f'{PREFIX}/people/{person.slug}/publications"' not in html


def test_a_long_list_shows_selected_and_recent_papers_and_links_to_all(
    client, db, make_person, small_pages
):
    person = make_person()
    papers = _papers(db, person, 10)
    for pub in papers[6:8]:  # two old papers chosen as selected
        db.get(m.ProfilePublication, (person.id, pub.id)).selected = True
    db.commit()
    html = _get(client, f"{PREFIX}/people/{person.slug}")
    # The selected ones, then the three most recent of the rest; nothing else.
    assert _titles(html) == [
        "Paper number 006",
        "Paper number 007",
        "Paper number 000",
        "Paper number 001",
        "Paper number 002",
    ]
    assert f'href="{PREFIX}/people/{person.slug}/publications"' in html
    assert "All 10 publications" in html
    assert "5 more than shown here" in html


@pytest.mark.parametrize("path", ["", "/publications?page=2"])
def test_only_the_papers_shown_are_read_and_none_becomes_an_object(
    client, db, make_person, small_pages, path, monkeypatch
):
    """The profile and its complete list count, group and fold the person's papers on plain
    values, and read in detail (authors, links, awards, versions) only the papers a page
    shows, however many there are, as plain values too: no paper, and no row of a profile's
    papers, becomes an ORM object."""
    person = make_person()
    papers = _papers(db, person, 12)
    db.get(m.ProfilePublication, (person.id, papers[9].id)).selected = True
    db.commit()
    loaded: list[int] = []
    read: list[int] = []

    def on_load(target, _context) -> None:
        loaded.append(target.id if isinstance(target, m.Publication) else target.publication_id)

    def reading(session, ids):
        ids = list(ids)
        read.extend(ids)
        return shown_papers(session, ids)

    monkeypatch.setattr(profiles, "shown_papers", reading)
    for model in (m.ProfilePublication, m.Publication):
        event.listen(model, "load", on_load)
    try:
        html = _get(client, f"{PREFIX}/people/{person.slug}{path}")
    finally:
        for model in (m.ProfilePublication, m.Publication):
            event.remove(model, "load", on_load)
    shown = _titles(html)
    assert len(shown) == 4  # one selected and three recent; or a page of four
    assert sorted(read) == sorted({pub.id for pub in papers if pub.title in shown})
    assert loaded == []


def test_the_complete_list_is_paginated_in_the_profiles_order(client, db, make_person, small_pages):
    person = make_person()
    _papers(db, person, 10)
    url = f"{PREFIX}/people/{person.slug}/publications"
    first, second, third = (_get(client, f"{url}?page={n}") for n in (1, 2, 3))
    assert _titles(first) == [f"Paper number {i:03d}" for i in range(4)]
    assert _titles(second) == [f"Paper number {i:03d}" for i in range(4, 8)]
    assert _titles(third) == ["Paper number 008", "Paper number 009"]
    assert "Showing 5–8 of 10" in second
    assert f'href="{url}?page=3" rel="next"' in second
    assert f'href="{url}" rel="prev"' in second  # page 1 has no page argument
    assert _get(client, url) == first
    assert "10 papers." in first


def test_a_heading_carried_over_a_page_boundary_says_continued(
    client, db, make_person, small_pages
):
    person = make_person()
    for pub in _papers(db, person, 6):
        pub.year = 2020
    db.commit()
    url = f"{PREFIX}/people/{person.slug}/publications"
    assert "(continued)" not in _get(client, url)
    second = _get(client, f"{url}?page=2")
    assert re.search(r"2020 <span class=\"muted\">\(continued\)</span>", second)


@pytest.mark.parametrize("page", ["0", "-1", "abc", "1.5", "9" * 30])
def test_a_bad_page_number_shows_the_first_page(client, db, make_person, small_pages, page):
    person = make_person()
    _papers(db, person, 6)
    html = _get(client, f"{PREFIX}/people/{person.slug}/publications?page={page}")
    assert _titles(html)[0] == "Paper number 000"


def test_a_page_past_the_last_shows_the_last_and_says_so(client, db, make_person, small_pages):
    person = make_person()
    _papers(db, person, 6)
    html = _get(client, f"{PREFIX}/people/{person.slug}/publications?page=7")
    assert _titles(html) == ["Paper number 004", "Paper number 005"]
    assert "There is no page 7; this is the last page, 2." in html


def test_the_complete_list_applies_the_profiles_visibility(client, db, make_person, small_pages):
    person = make_person()
    papers = _papers(db, person, 6)
    db.get(m.ProfilePublication, (person.id, papers[1].id)).hidden = True
    papers[2].visibility = "members"
    db.commit()
    url = f"{PREFIX}/people/{person.slug}/publications"
    anonymous = _get(client, url)
    assert _titles(anonymous) == [f"Paper number {i:03d}" for i in (0, 3, 4, 5)]
    assert "4 papers." in anonymous and "Showing" not in anonymous  # one page of four
    login(client, "a-member")
    signed_in = _titles(_get(client, url)) + _titles(_get(client, f"{url}?page=2"))
    assert "Paper number 002" in signed_in
    assert "Paper number 001" not in signed_in  # hidden from the profile by its owner


def test_the_complete_list_of_a_hidden_profile_is_a_404(client, db, make_person):
    person = make_person(visibility="private")
    _papers(db, person, 2)
    assert client.get(f"{PREFIX}/people/{person.slug}/publications").status_code == 404
    assert client.get(f"{PREFIX}/people/nobody/publications").status_code == 404


def test_a_project_link_to_a_folded_paper_opens_the_papers_page(
    client, db, make_person, small_pages
):
    person = make_person()
    papers = _papers(db, person, 6)
    project = m.ResearchProject(owner_id=person.id, title="Big project", position=0)
    project.publications.extend([papers[0], papers[5]])
    db.add(project)
    db.commit()
    html = _get(client, f"{PREFIX}/people/{person.slug}")
    assert f'href="#pub-{papers[0].uid}"' in html
    assert f'href="{PREFIX}/publications/{papers[5].uid}"' in html


# ----------------------------------------------------------------------------- the listing


def _card_names(html: str) -> list[str]:
    return re.findall(r'<h\d class="card__name"><a href="[^"]+">([^<]+)</a>', html)


@pytest.fixture
def department_of_seven(app, monkeypatch, make_person) -> None:
    """Three faculty (two professors, one lecturer) and four PhD students; three a page."""
    monkeypatch.setitem(app.config, "DIRECTORY_LISTING_PAGE_SIZE", 3)
    make_person("Zoe Zed", rank="professor")
    make_person("Amy Able", rank="lecturer")
    make_person("Bob Baker", rank="professor")
    for name in ("Cat Cole", "Dan Dale", "Eve East", "Fay Fox"):
        make_person(name, role="phd_student")


def test_the_listing_pages_by_role_then_name(client, department_of_seven):
    first = _get(client, f"{PREFIX}/")
    second = _get(client, f"{PREFIX}/?page=2")
    third = _get(client, f"{PREFIX}/?page=3")
    # Faculty by rank (professors before lecturers), then the students, each by surname.
    assert _card_names(first) == ["Bob Baker", "Zoe Zed", "Amy Able"]
    assert _card_names(second) == ["Cat Cole", "Dan Dale", "Eve East"]
    assert _card_names(third) == ["Fay Fox"]
    assert "7 people." in first and "Showing 4–6 of 7" in second
    assert f'href="{PREFIX}/?page=2" rel="next"' in first
    # Every group is named with its count on every page; one on another page is its filter.
    assert (
        f'href="{PREFIX}/?role=phd_student">PhD students</a> <span class="count">(4)</span>'
        in first
    )
    assert 'href="#group-phd_student">PhD students</a>' in second
    assert "(continued)" not in second and "(continued)" in third


def test_the_listing_filters_and_letters_count_everyone_not_the_page(client, department_of_seven):
    html = _get(client, f"{PREFIX}/?role=phd_student")
    assert _card_names(html) == ["Cat Cole", "Dan Dale", "Eve East"]
    assert "4 people match." in html
    assert f'href="{PREFIX}/?role=phd_student&amp;page=2" rel="next"' in html
    # The A–Z index offers F although Fay Fox is on page 2.
    assert f'href="{PREFIX}/?letter=F&amp;role=phd_student"' in html
    assert _card_names(_get(client, f"{PREFIX}/?letter=F")) == ["Fay Fox"]


@pytest.mark.parametrize("page", ["0", "x", "-3", "9" * 30])
def test_a_bad_listing_page_number_shows_the_first_page(client, department_of_seven, page):
    assert _card_names(_get(client, f"{PREFIX}/?page={page}"))[0] == "Bob Baker"


def test_a_listing_page_past_the_last_shows_the_last_and_says_so(client, department_of_seven):
    html = _get(client, f"{PREFIX}/?page=40")
    assert _card_names(html) == ["Fay Fox"]
    assert "There is no page 40; this is the last page, 3." in html


# ----------------------------------------------------------------------------- the editor


def _editor_titles(html: str) -> list[str]:
    return re.findall(r'<span class="entry__summary">(Paper number \d{3})', html)


def _arrows(html: str, pub: m.Publication) -> tuple[bool, bool]:
    """Whether ↑ and ↓ of ``pub`` are enabled on the editor page ``html``."""
    up = re.search(rf'aria-label="Move up: {pub.title}"[^>]*>', html).group(0)
    down = re.search(rf'aria-label="Move down: {pub.title}"[^>]*>', html).group(0)
    return "disabled" not in up, "disabled" not in down


def test_the_editors_paper_list_is_paginated_and_arrows_follow_the_whole_heading(
    client, db, make_person, small_pages
):
    person = make_person(user_key="ada")
    papers = _papers(db, person, 6)
    for pub in papers:
        pub.year = 2020  # one heading over two pages
    db.commit()
    login(client, "ada")
    first, second = (_get(client, f"{PREFIX}/me{q}") for q in ("", "?papers=2"))
    assert _editor_titles(first) == [f"Paper number {i:03d}" for i in range(4)]
    assert _editor_titles(second) == ["Paper number 004", "Paper number 005"]
    assert f'href="{PREFIX}/me?papers=2#publications" rel="next"' in first
    assert "(continued)" in second
    # The last paper of page 1 may still go down and the first of page 2 up.
    assert _arrows(first, papers[0]) == (False, True)
    assert _arrows(first, papers[3]) == (True, True)
    assert _arrows(second, papers[4]) == (True, True)
    assert _arrows(second, papers[5]) == (True, False)
    # Other sections are still on every page of the paper list.
    assert 'id="publications-h"' in second
    # An action posted from page 2 returns to page 2.
    url = f"{PREFIX}/people/{person.slug}/edit/publications/{papers[4].id}/move?papers=2"
    assert f'action="{url.replace("&", "&amp;")}"' in second
    response = post(client, url, {"direction": "up", "version": papers[4].version})
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/me?papers=2#publications-{papers[4].id}")
    assert _editor_titles(_get(client, f"{PREFIX}/me"))[3] == "Paper number 004"


@pytest.mark.parametrize("papers", ["0", "x", "9" * 30, "99"])
def test_a_bad_or_missing_editor_page_never_fails(client, db, make_person, small_pages, papers):
    person = make_person(user_key="ada")
    _papers(db, person, 6)
    login(client, "ada")
    html = _get(client, f"{PREFIX}/me?papers={papers}")
    if papers == "99":
        assert _editor_titles(html) == ["Paper number 004", "Paper number 005"]
        assert "There is no page 99 of papers; this is the last page, 2." in html
    else:
        assert _editor_titles(html)[0] == "Paper number 000"


# ----------------------------------------------------------------------------- managing papers


def test_the_manage_page_is_one_form_a_page_and_saves_only_its_papers(
    client, db, make_person, small_pages
):
    person = make_person(user_key="ada")
    papers = _papers(db, person, 6)
    db.get(m.ProfilePublication, (person.id, papers[0].id)).selected = True
    db.commit()
    login(client, "ada")
    url = f"{PREFIX}/people/{person.slug}/publications/manage"
    first, second = _get(client, url), _get(client, f"{url}?page=2")
    assert first.count('<form method="post"') == 1 and first.count('name="csrf_token"') == 1
    assert _titles(first) == [f"Paper number {i:03d}" for i in range(4)]
    assert _titles(second) == ["Paper number 004", "Paper number 005"]
    assert f'name="selected" value="{papers[0].uid}" id="selected-{papers[0].uid}" checked' in first
    # Page 2's form: tick paper 4 as selected, hide paper 5. Paper 0 (page 1) is not named.
    data = {"shown": [papers[4].uid, papers[5].uid], "selected": papers[4].uid,
            "hidden": papers[5].uid}  # fmt: skip
    response = post(client, f"{url}?page=2", data)
    assert response.status_code == 302 and response.headers["Location"].endswith("?page=2")
    db.expire_all()
    flags = {
        pub.id: (row.selected, row.hidden)
        for pub in papers
        for row in [db.get(m.ProfilePublication, (person.id, pub.id))]
    }
    assert flags[papers[4].id] == (True, False)
    assert flags[papers[5].id] == (False, True)
    assert flags[papers[0].id] == (True, False)  # left alone
    # Unticking on the page it is shown turns a flag off.
    post(client, url, {"shown": [p.uid for p in papers[:4]]})
    db.expire_all()
    assert not db.get(m.ProfilePublication, (person.id, papers[0].id)).selected


def test_the_manage_form_refuses_a_paper_not_on_the_profile(client, db, make_person):
    person = make_person(user_key="ada")
    mine = _papers(db, person, 1)[0]
    other = make_person("Grace Hopper")
    theirs = _papers(db, other, 1)[0]
    login(client, "ada")
    url = f"{PREFIX}/people/{person.slug}/publications/manage"
    response = post(client, url, {"shown": [mine.uid, theirs.uid], "hidden": theirs.uid})
    assert response.status_code == 400
    assert "is not a valid choice" in response.get_data(as_text=True)
    db.expire_all()
    assert not db.get(m.ProfilePublication, (person.id, mine.id)).hidden
    assert not db.get(m.ProfilePublication, (other.id, theirs.id)).hidden


def test_a_manage_page_past_the_last_shows_the_last(client, db, make_person, small_pages):
    person = make_person(user_key="ada")
    _papers(db, person, 6)
    login(client, "ada")
    html = _get(client, f"{PREFIX}/people/{person.slug}/publications/manage?page=5")
    assert _titles(html) == ["Paper number 004", "Paper number 005"]
    assert "There is no page 5; this is the last page, 2." in html


# ----------------------------------------------------------------------------- admin: people


def _rows(html: str) -> list[str]:
    return re.findall(r'<th scope="row"><a href="[^"]+">([^<]+)</a>', html)


def test_the_admins_people_table_is_paginated_and_keeps_the_search(
    client, make_person, app, monkeypatch
):
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 2)
    for name in ("Ann Abel", "Ben Brook", "Cy Crane", "Di Dunn", "Ed Ewing"):
        make_person(name, email=f"{name.split()[0].lower()}@uni.example")
    make_person("Old Timer", active=False)
    login(client, "admin")
    url = f"{PREFIX}/admin/people"
    pages = [_rows(_get(client, f"{url}?page={n}")) for n in (1, 2, 3)]
    # Inactive people last.
    assert pages == [["Ann Abel", "Ben Brook"], ["Cy Crane", "Di Dunn"], ["Ed Ewing", "Old Timer"]]
    html = _get(client, f"{url}?page=9")
    assert _rows(html) == pages[2] and "There is no page 9; this is the last page, 3." in html
    assert "6 people." in _get(client, url)
    found = _get(client, f"{url}?q=uni.example")
    assert _rows(found) == ["Ann Abel", "Ben Brook"] and "5 people found." in found
    assert f'href="{url}?q=uni.example&amp;page=2" rel="next"' in found
    assert _rows(_get(client, f"{url}?q=uni.example&page=x")) == ["Ann Abel", "Ben Brook"]


def test_an_area_page_shows_its_first_people_and_notices_and_links_to_the_rest(
    app, client, db, department_of_seven, monkeypatch
):
    """The area page shows at most DIRECTORY_PAGE_SIZE people (in the listing's order) and
    open notices, counts all of them and links to the listing and the recruiting page filtered
    by the area; a small area shows everyone and no such link."""
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 3)
    systems = m.ResearchArea(slug="systems", name="Systems")
    theory = m.ResearchArea(slug="theory", name="Theory")
    people = db.scalars(select(m.Person)).all()
    for person in people:
        person.areas.append(systems)
    people[0].areas.append(theory)
    for person in people[:4]:
        notice = m.RecruitingNotice(owner_id=person.id, level="phd", description="x")
        notice.areas.append(systems)
        db.add(notice)
    db.commit()

    html = _get(client, f"{PREFIX}/areas/systems")
    assert _card_names(html) == ["Bob Baker", "Zoe Zed", "Amy Able"]
    assert '<a href="#people">People</a> <span class="count">(7)</span>' in html
    assert f'href="{PREFIX}/?area=systems">All 7 people in Systems</a>' in html
    assert html.count('<article class="notice"') == 3
    assert '<span class="count">(4)</span>' in html
    assert f'href="{PREFIX}/recruiting?area=systems">All 4 open positions in Systems</a>' in html

    small = _get(client, f"{PREFIX}/areas/theory")
    assert len(_card_names(small)) == 1
    assert "people in Theory</a>" not in small and "open positions in Theory</a> <span" not in small
    assert f'href="{PREFIX}/?area=theory">Filter the people listing by Theory</a>' in small
