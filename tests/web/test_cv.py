"""The CV made from a profile: a print-ready page and a PDF, with the sections asked for, in the
owner's order, holding only what the viewer may see; and ``flask directory cv``."""

from __future__ import annotations

import re
import zlib

import pytest
from sqlalchemy import select

from directory import models as m
from tests.conftest import login
from tests.support.editing import post

P = "/directory"


@pytest.fixture
def wei(db, make_person, make_publication):
    wei = make_person("Xingda Wei", title="Associate Professor", interests="RDMA and serverless")
    db.add_all([
        m.Education(owner_id=wei.id, degree="Ph.D.", institution="Shanghai Jiao Tong University",
                    end_year=2021, position=0),
        m.Education(owner_id=wei.id, degree="B.S.", institution="A Private College",
                    end_year=2015, position=1, visibility="private"),
        m.Award(owner_id=wei.id, title="EuroSys Best Paper Award", year=2024, position=0),
    ])  # fmt: skip
    db.commit()
    make_publication(
        "DrTM: Fast In-memory Transaction Processing using RDMA and HTM",
        authors=(wei, "Rong Chen"),
        year=2015,
        venue="SOSP",
        venue_short="SOSP",
    )
    make_publication("An Unpublished Members-only Draft", authors=(wei,), year=2026,
                     visibility="members")  # fmt: skip
    return wei


def outline(pdf: bytes) -> list[str]:
    """The PDF's bookmarks (WeasyPrint makes one per heading), read from its object streams."""
    titles = []
    for stream in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            text = zlib.decompress(stream.group(1))
        except zlib.error:
            continue
        titles += [t.decode("latin-1") for t in re.findall(rb"/Title \(([^)]*)\)", text)]
    return titles


def sections(html: str) -> list[str]:
    return re.findall(r'<h2 id="cv-\w+">([^<]+)</h2>', html)


def test_the_cv_page_holds_the_profile_in_cv_order_and_only_what_the_viewer_may_see(
    client, wei
) -> None:
    html = client.get(f"{P}/people/xingda-wei/cv").get_data(as_text=True)
    assert sections(html) == ["Research interests", "Education", "Publications",
                              "Awards and honours"]  # fmt: skip
    assert "Shanghai Jiao Tong University" in html and "A Private College" not in html
    assert "DrTM: Fast In-memory" in html and "Members-only Draft" not in html
    assert "<strong>Xingda Wei</strong>" in html  # the owner stands out in author lists
    login(client, "someone")
    html = client.get(f"{P}/people/xingda-wei/cv").get_data(as_text=True)
    assert "Members-only Draft" in html and "A Private College" not in html


def test_the_reader_chooses_the_sections_with_a_plain_form(client, wei) -> None:
    html = client.get(f"{P}/people/xingda-wei/cv?section=publications&section=nonsense")
    text = html.get_data(as_text=True)
    assert sections(text) == ["Publications"]
    assert 'name="section" value="publications" checked' in text
    assert 'name="section" value="education">' in text
    assert f'href="{P}/people/xingda-wei/cv.pdf?section=publications"' in text


def test_the_sections_asked_for_are_shown_in_the_order_asked(client, wei) -> None:
    url = f"{P}/people/xingda-wei/cv?section=awards&section=education&section=publications"
    text = client.get(f"{url}&section=awards").get_data(as_text=True)  # a repeat is ignored
    assert sections(text) == ["Awards and honours", "Education", "Publications"]
    # The form offers them first, in that order, so submitting it keeps the order; the PDF
    # link carries it too.
    boxes = re.findall(r'name="section" value="(\w+)"( checked)?', text)
    assert [name for name, ticked in boxes if ticked] == ["awards", "education", "publications"]
    assert [name for name, _ in boxes[:3]] == ["awards", "education", "publications"]
    assert (
        f'href="{P}/people/xingda-wei/cv.pdf?section=awards&amp;section=education'
        "&amp;section=publications" in text
    )
    other = client.get(f"{P}/people/xingda-wei/cv?section=publications&section=interests")
    assert sections(other.get_data(as_text=True)) == ["Publications", "Research interests"]


def test_a_hidden_profile_has_no_cv(client, make_person) -> None:
    make_person("Hidden Person", visibility="private")
    assert client.get(f"{P}/people/hidden-person/cv").status_code == 404
    assert client.get(f"{P}/people/hidden-person/cv.pdf").status_code == 404


@pytest.mark.slow
def test_the_pdf_and_the_command_line_write_the_same_cv(client, runner, wei, tmp_path) -> None:
    response = client.get(f"{P}/people/xingda-wei/cv.pdf")
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    assert response.data.startswith(b"%PDF-")
    # Anonymous: no members-only draft, so no "2026" heading.
    assert outline(response.data) == [
        "Xingda Wei",
        "Research interests",
        "Education",
        "Publications",
        "2015",
        "Awards and honours",
    ]
    only = client.get(f"{P}/people/xingda-wei/cv.pdf?section=education").data
    assert outline(only) == ["Xingda Wei", "Education"]
    out = tmp_path / "wei.pdf"
    result = runner.invoke(args=["directory", "cv", "xingda-wei", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert outline(out.read_bytes()) == outline(response.data)  # anonymous: no members' draft
    assert f"Wrote {out}" in result.output
    missing = runner.invoke(args=["directory", "cv", "nobody", "-o", str(tmp_path / "x.pdf")])
    assert missing.exit_code == 1 and "No public profile 'nobody'" in missing.output


def test_a_cv_too_long_for_a_pdf_is_refused_with_the_way_out(app, client, wei, monkeypatch) -> None:
    """WeasyPrint's time grows with the document (about 25 ms of CPU per KB here): past
    DIRECTORY_CV_PDF_MAX_BYTES no PDF is made, and the page says what to do instead."""
    printable = client.get(f"{P}/people/xingda-wei/cv").text
    # Well below the document (the printable page carries the site header and language links).
    monkeypatch.setitem(app.config, "DIRECTORY_CV_PDF_MAX_BYTES", len(printable) // 8)
    response = client.get(f"{P}/people/xingda-wei/cv.pdf?section=publications")
    assert response.status_code == 422 and response.mimetype == "text/html"
    assert "This CV is too long to make a PDF here" in response.text
    assert f'href="{P}/people/xingda-wei/cv?section=publications"' in response.text
    assert f'href="{P}/people/xingda-wei/cv"' in response.text
    # A forged header cannot lift the limit (only the command line's WSGI environ can).
    forged = client.get(
        f"{P}/people/xingda-wei/cv.pdf", headers={"Directory-Cv-Pdf-No-Size-Limit": "1"}
    )
    assert forged.status_code == 422


@pytest.mark.slow
def test_the_command_line_makes_a_pdf_of_any_length(
    app, runner, wei, tmp_path, monkeypatch
) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_CV_PDF_MAX_BYTES", 1000)
    out = tmp_path / "wei.pdf"
    result = runner.invoke(args=["directory", "cv", "xingda-wei", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(b"%PDF-")


def test_the_owner_saves_the_cvs_sections_and_their_order(client, db, wei, runner, tmp_path):
    """Saved through the editor ("Paper list and CV", recorded in the history); the CV page,
    its PDF link and the command line then use them; a query is still a one-off choice, shown
    in the owner's order."""
    wei.user_key = "wei"
    db.commit()
    login(client, "wei")
    url = f"{P}/people/xingda-wei/edit/papers-and-cv"
    form = client.get(url).get_data(as_text=True)
    assert '<option selected value="1">1</option>' in form.split('id="cv_interests"')[1][:400]
    response = post(client, url, {"version": wei.version, "cv_publications": "1",
                                  "cv_awards": "2", "cv_education": "2"})  # fmt: skip
    assert response.status_code == 302
    db.expire_all()
    # Equal places keep the default order: education before awards.
    assert db.get(m.Person, wei.id).cv_sections == ["publications", "education", "awards"]
    record = db.scalars(select(m.ChangeRecord)).one()
    assert record.before["cv_sections"] is None
    html = client.get(f"{P}/people/xingda-wei/cv").get_data(as_text=True)
    assert sections(html) == ["Publications", "Education", "Awards and honours"]
    assert f'href="{P}/people/xingda-wei/cv.pdf?section=publications&amp;section=education' in html
    # The page's form offers the chosen ones first, ticked, in their order, then the others.
    boxes = re.findall(r'name="section" value="(\w+)"( checked)?', html)
    assert boxes[:3] == [("publications", " checked"), ("education", " checked"),
                         ("awards", " checked")]  # fmt: skip
    assert ("interests", "") in boxes
    once = client.get(f"{P}/people/xingda-wei/cv?section=awards&section=interests")
    assert sections(once.get_data(as_text=True)) == ["Awards and honours", "Research interests"]
    out = tmp_path / "wei.pdf"
    assert runner.invoke(args=["directory", "cv", "xingda-wei", "-o", str(out)]).exit_code == 0
    assert outline(out.read_bytes()) == ["Xingda Wei", "Publications", "2015", "Education",
                                         "Awards and honours"]  # fmt: skip


def test_a_cv_without_any_section_is_refused_next_to_the_field(client, db, wei) -> None:
    wei.user_key = "wei"
    db.commit()
    login(client, "wei")
    url = f"{P}/people/xingda-wei/edit/papers-and-cv"
    response = post(client, url, {"version": wei.version, "repeat_selected": "y"})
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    errors = html.split('id="cv_interests-errors"')[1].split("</ul>")[0]
    assert "Give at least one section a place on the CV." in errors
    bad = post(client, url, {"version": wei.version, "cv_education": "99"})
    assert bad.status_code == 400 and "Not a valid choice" in bad.get_data(as_text=True)
    db.expire_all()
    assert db.get(m.Person, wei.id).repeat_selected is False
    assert db.get(m.Person, wei.id).cv_sections is None


def test_the_cvs_papers_are_numbered_once_through_every_heading(client, wei, make_publication):
    make_publication("A Second Paper", authors=(wei,), year=2020, venue_short="NSDI")
    html = client.get(f"{P}/people/xingda-wei/cv").get_data(as_text=True)
    assert re.findall(r'<ol class="cv-papers" start="(\d+)">', html) == ["1", "2"]
