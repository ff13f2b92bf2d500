"""How imported papers read on a profile, the paper's own page and the CV: names and roles
(editors, "et al.", organisations), no empty lines, the DOI always, publisher and place for
books, Markdown in award text rendered safely, unpublished papers under their status, an
abstract's paragraphs kept. Fixtures: tests/fixtures/bibtex/display.bib and names.bib."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from directory import models as m
from tests.conftest import login
from tests.services.test_publication_import import import_file

BIB = Path(__file__).resolve().parents[1] / "fixtures" / "bibtex"
PROFILE = "/directory/people/xingda-wei"


@pytest.fixture
def page(client, db, make_person) -> str:
    make_person("Xingda Wei", user_key="wei")
    make_person("Rong Chen", user_key="chen")
    login(client, "wei")
    for name in ("display.bib", "names.bib"):
        import_file(client, "xingda-wei", (BIB / name).read_bytes(), decision_all="new")
    login(client, None)
    response = client.get(PROFILE)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def article(html: str, title: str) -> str:
    """The HTML of the paper titled ``title`` on a page."""
    found = re.search(rf'<article class="pub[^"]*"[^>]*>(?:(?!</article>).)*?{re.escape(title)}'
                      r"(?:(?!</article>).)*</article>", html, re.S)  # fmt: skip
    assert found, title
    return found.group(0)


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_books_show_publisher_and_place_and_no_line_is_empty(page) -> None:
    book = text(article(page, "A Book Without a Series"))
    assert "Springer, Berlin, 2004." in book
    bare = article(page, "A Title and Nothing Else")
    assert 'class="pub__venue"' not in bare
    assert not re.search(r'<p class="pub__meta">\s*\.?\s*</p>', bare)
    anonymous = article(page, "An Anonymous Report")
    assert 'class="pub__authors"' not in anonymous  # no authors: no author line at all


def test_award_markdown_is_rendered_safely_and_the_doi_always_shows(page) -> None:
    awarded = article(page, "An Awarded Paper")
    honours = re.search(r'<ul class="pub__honours".*?</ul>', awarded, re.S).group(0)
    assert "<strong>Best Paper</strong> Award" in honours
    assert "**" not in honours and "<script>" not in awarded
    assert 'href="https://doi.org/10.1145/1.2"' in awarded  # next to the publisher's page
    assert 'href="https://dl.acm.org/doi/abs/10.1145/1.2"' in awarded


def test_unpublished_papers_are_under_their_status_not_undated(page) -> None:
    # Each heading, and the titles filed under it, in page order.
    items = re.findall(r'<h3[^>]*class="pub-group"[^>]*>([^<]+)</h3>|<cite class="pub__title">'
                       r"(?:<a [^>]*>)?([^<]+)", page)  # fmt: skip
    under: dict[str, str] = {}
    heading = None
    for group, title in items:
        heading = group or heading
        if title:
            under[title] = heading
    assert under["A Paper Under Review"] == "Under review"
    assert under["A Paper Being Written"] == "In preparation"
    assert under["A Paper Whose Venue Says It Is Under Review"] == "Under review"
    assert under["A Book Without a Series"] == "2004"
    # A published paper without a year is still "Undated".
    assert under["A Title and Nothing Else"] == "Undated"


def test_names_roles_and_et_al_read_as_printed(page) -> None:
    assert "Xingda Wei , Rong Chen , et al." in text(article(page, "An Abstract in Two"))
    volume = text(article(page, "Materialities of Communication"))
    assert "Hans Ulrich Gumbrecht and K. Ludwig Pfeiffer (eds.)" in volume
    assert "Stanford University Press, Stanford, 1994." in volume
    chapter = text(article(page, "A Chapter in an Edited Book"))
    assert "Jane Doe" in chapter and "The Edited Book, edited by Richard Roe" in chapter
    assert "Luis Vázques de Parga" in page and "LaTeX 3 Project Team" in page


def test_an_abstract_keeps_its_paragraphs(page) -> None:
    paper = article(page, "An Abstract in Two Paragraphs")
    assert "<p>The first paragraph.</p><p>The second paragraph.</p>" in paper


def test_the_paper_page_and_its_json_ld_say_nothing_false(client, db, page) -> None:
    def paper(title: str) -> str:
        uid = db.scalar(select(m.Publication.uid).where(m.Publication.title == title))
        response = client.get(f"/directory/publications/{uid}")
        assert response.status_code == 200
        return response.get_data(as_text=True)

    def jsonld(html: str) -> dict:
        found = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
        return json.loads(found.group(1))

    volume = paper("Materialities of Communication")
    assert [e["name"] for e in jsonld(volume)["editor"]] == [
        "Hans Ulrich Gumbrecht", "K. Ludwig Pfeiffer",
    ]  # fmt: skip
    assert "author" not in jsonld(volume)
    assert 'name="citation_author"' not in volume  # editors are not its authors
    anonymous = paper("An Anonymous Report")
    assert 'name="citation_author"' not in anonymous and "author" not in jsonld(anonymous)
    corporate = jsonld(paper("A New Interface for Font Selection"))
    assert corporate["author"] == [{"@type": "Organization", "name": "LaTeX 3 Project Team"}]
    person = jsonld(paper("Parts of Names"))["author"][0]
    assert (person["givenName"], person["familyName"]) == ("Ludwig", "van Beethoven")


def test_the_form_takes_editors_et_al_and_no_authors(client, db, make_person) -> None:
    from tests.support.editing import post

    make_person("Xingda Wei", user_key="wei")
    login(client, "wei")
    form = {"title": "An Edited Volume", "type": "book", "status": "published",
            "visibility": "public", "year": "2020",
            "authors": "Xingda Wei (editor)\nRong Chen (editor)\net al."}  # fmt: skip
    assert post(client, f"{PROFILE}/edit/publications/new", form).status_code == 302
    pub = db.scalar(select(m.Publication).where(m.Publication.title == "An Edited Volume"))
    assert [(a.name, a.role) for a in pub.authorships] == [
        ("Xingda Wei", "editor"), ("Rong Chen", "editor"),
    ]  # fmt: skip
    assert pub.authors_incomplete
    html = client.get(PROFILE).get_data(as_text=True)
    assert "Xingda Wei , Rong Chen , et al. (eds.)" in text(article(html, "An Edited Volume"))
    # The form shows it back as typed.
    page = client.get(f"{PROFILE}/edit/publications/{pub.id}").get_data(as_text=True)
    assert "Xingda Wei (editor)\nRong Chen (editor)\net al." in page

    nobody = {**form, "title": "A Paper Without Authors", "authors": ""}
    assert post(client, f"{PROFILE}/edit/publications/new", nobody).status_code == 302
    bare = db.scalar(select(m.Publication).where(m.Publication.title == nobody["title"]))
    assert bare.authorships == [] and not bare.authors_incomplete
