"""Importing publications through the web pages and the CLI: preview first, then all or
nothing; one shared record per paper across co-authors; exports."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from sqlalchemy import func, select

from directory import models as m
from directory.formats.bibtex.parse import parse_bibtex
from tests.conftest import login
from tests.support.editing import post

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BIB = FIXTURES / "bibtex"
PREFIX = "/directory"
SOSP_DOI = "10.1145/3600006.3613157"
SOSP_TITLE = "Fast RDMA-based Transactions for Disaggregated Memory"


# --------------------------------------------------------------------------------- helpers


def hidden_value(html: str, name: str) -> str:
    match = re.search(rf'name="{name}" type="hidden" value="([^"]*)"', html)
    assert match, f"no hidden {name} field"
    return match.group(1)


def upload(client, slug: str, data: bytes, filename: str = "papers.bib", field="bibtex_file"):
    """Post a file to the import page; returns the response (a redirect to the preview)."""
    url = f"{PREFIX}/people/{slug}/publications/import"
    token = hidden_value(client.get(url).get_data(as_text=True), "csrf_token")
    return client.post(
        url,
        data={"csrf_token": token, field: (io.BytesIO(data), filename)},
        content_type="multipart/form-data",
    )


def preview(client, slug: str, data: bytes, **kwargs) -> tuple[str, str]:
    """Upload and open the preview: (preview URL, its HTML)."""
    response = upload(client, slug, data, **kwargs)
    assert response.status_code == 302, response.get_data(as_text=True)
    url = response.headers["Location"]
    page = client.get(url)
    assert page.status_code == 200
    return url, page.get_data(as_text=True)


def confirm(client, url: str, html: str, **decisions: str):
    data = {
        "csrf_token": hidden_value(html, "csrf_token"),
        "fingerprint": hidden_value(html, "fingerprint"),
    }
    data.update({key.replace("decision_", "decision-"): value for key, value in decisions.items()})
    return client.post(url, data=data)


def import_file(client, slug: str, data: bytes, **decisions: str):
    url, html = preview(client, slug, data)
    response = confirm(client, url, html, **decisions)
    assert response.status_code == 302, response.get_data(as_text=True)
    return response


def accept_as(client, db, key: str, person, pub) -> int:
    """``person`` (signed in as ``key``) accepts the claim-queue candidate of ``pub``."""
    login(client, key)
    asked = m.ClaimCandidate
    candidate = db.scalar(
        select(asked).where(asked.person_id == person.id, asked.publication_id == pub.id)
    )
    url = f"{PREFIX}/people/{person.slug}/edit/found/{candidate.id}/accept"
    return post(client, url).status_code


def count(db, model) -> int:
    return db.scalar(select(func.count()).select_from(model))


@pytest.fixture
def wei(make_person):
    return make_person("Xingda Wei", user_key="wei", name_variants=["X. Wei"], native_name="魏星达")


@pytest.fixture
def chen(make_person):
    return make_person("Rong Chen", user_key="chen")


# --------------------------------------------------------------------------------- access


def test_only_the_owner_and_admins_may_import(client, wei, chen) -> None:
    url = f"{PREFIX}/people/xingda-wei/publications/import"
    assert client.get(url).status_code == 403
    login(client, "chen")
    assert client.get(url).status_code == 403
    login(client, "wei")
    assert client.get(url).status_code == 200
    assert client.get(f"{PREFIX}/me/publications/import").status_code == 200
    login(client, "admin")
    assert client.get(url).status_code == 200


def test_a_draft_is_only_for_who_uploaded_it(client, db, wei, make_person) -> None:
    make_person("Second Admin", user_key="admin")
    login(client, "wei")
    url, _ = preview(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())
    login(client, "admin")
    assert client.get(url).status_code == 404


# --------------------------------------------------------------------------------- preview


def test_preview_writes_nothing_and_confirm_writes_everything(client, db, wei, chen) -> None:
    login(client, "wei")
    url, html = preview(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())

    assert "New papers" in html and SOSP_TITLE in html
    assert "line 5" in html  # where the entry stands in the file
    assert count(db, m.Publication) == 0

    response = confirm(client, url, html)
    assert response.status_code == 302
    assert count(db, m.Publication) == 2
    pub = db.scalar(select(m.Publication).where(m.Publication.doi == SOSP_DOI))
    assert pub.venue.endswith("Symposium on Operating Systems Principles (SOSP '23)")
    assert pub.venue_short == "SOSP" and pub.month == 10
    names = ["Xingda Wei", "Rong Chen", "Jörg Müller", "Haibo Chen"]
    assert [a.name for a in pub.authorships] == names
    assert [a.person_id for a in pub.authorships] == [wei.id, chen.id, None, None]
    assert pub.bibtex.startswith("@inproceedings{wei2023transactions")
    assert [link.kind for link in pub.links] == ["code"]
    # The importer's row says "selected" as the file did; the co-author is asked, and the
    # paper is not on her profile until she accepts (a name is no proof).
    assert db.get(m.ProfilePublication, (wei.id, pub.id)).selected
    assert db.get(m.ProfilePublication, (chen.id, pub.id)) is None
    assert accept_as(client, db, "chen", chen, pub) == 302
    profile = client.get(f"{PREFIX}/people/rong-chen").get_data(as_text=True)
    assert SOSP_TITLE in profile


def test_importing_the_same_file_twice_adds_nothing(client, db, wei) -> None:
    login(client, "wei")
    data = (BIB / "coauthor_wei.bib").read_bytes()
    import_file(client, "xingda-wei", data)
    before = (count(db, m.Publication), count(db, m.Authorship), count(db, m.PublicationLink))

    url, html = preview(client, "xingda-wei", data)
    assert "Already on the profile" in html
    assert "there is nothing to import" in html
    assert "New papers" not in html
    confirm(client, url, html)
    after = (count(db, m.Publication), count(db, m.Authorship), count(db, m.PublicationLink))
    assert after == before


def test_importing_again_with_selected_marks_the_profile_paper_selected(client, db, wei) -> None:
    login(client, "wei")
    entry = (
        "@inproceedings{{wei23,\n  title = {{Fast Transactions for Disaggregated Memory}},\n"
        "  author = {{Wei, Xingda and Chen, Rong}},\n  booktitle = {{SOSP}},\n  year = {{2023}},\n"
        "{extra}}}\n"
    )
    import_file(client, "xingda-wei", entry.format(extra="").encode())
    row = db.scalar(select(m.ProfilePublication).where(m.ProfilePublication.person_id == wei.id))
    assert row.selected is False

    url, html = preview(client, "xingda-wei", entry.format(extra="  selected = {true},\n").encode())
    assert "marks it selected" in html
    confirm(client, url, html)
    db.expire_all()
    assert db.get(m.ProfilePublication, (wei.id, row.publication_id)).selected is True

    _, html = preview(client, "xingda-wei", entry.format(extra="  selected = {true},\n").encode())
    assert "marks it selected" not in html and "Nothing to add" in html


def test_generic_titles_and_an_item_listed_twice_are_found_again(client, db, wei) -> None:
    """A journal's "Letters" of two issues and its "Calendar" are the importer's own papers
    read again when venue, volume, issue and pages agree (they never match on the title
    alone); an item the file lists twice, imported as two papers, finds its own copy again
    instead of being called a repeat of the other."""
    login(client, "wei")
    data = (BIB / "generic_titles.bib").read_bytes()
    url, html = preview(client, "xingda-wei", data)
    decisions = {f"decision_{index}": "new" for index in re.findall(r'name="decision-(\d+)"', html)}
    assert len(decisions) == 1  # the advertisement's second listing: a possible duplicate
    confirm(client, url, html, **decisions)
    assert count(db, m.Publication) == 5

    url, html = preview(client, "xingda-wei", data)
    assert "there is nothing to import" in html
    assert "Repeated in this file" not in html
    assert html.count("Already on the profile:") == 5
    confirm(client, url, html)
    assert count(db, m.Publication) == 5


def test_malformed_entries_are_reported_and_the_rest_imported_only_when_asked(
    client, db, wei
) -> None:
    login(client, "wei")
    url, html = preview(client, "xingda-wei", (BIB / "malformed.bib").read_bytes())

    assert "Cannot be imported" in html
    assert "line 8" in html and "missing closing brace" in html.lower()
    assert "line 42" in html
    # Keys made for the entry without one and for the repeated keys are shown.
    assert "given the key &#39;anon2023no&#39;" in html
    assert "given the key &#39;good1b&#39;" in html
    # Confirming without saying "import the rest" writes nothing and says what to do.
    response = confirm(client, url, html)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "tick this to import the rest" in page
    assert count(db, m.Publication) == 0

    response = confirm(client, url, html, skip_invalid="y", bulk="new")
    assert response.status_code == 302, response.get_data(as_text=True)
    titles = set(db.scalars(select(m.Publication.title)))
    assert titles == {
        "First Good Entry", "Second Good Entry", "No Key At All", "Duplicate Key",
        "Duplicate Key Differing Only In Case", "Third Good Entry",
    }  # fmt: skip
    assert "2 skipped" in client.get(f"{PREFIX}/people/xingda-wei/publications/manage").get_data(
        as_text=True
    )


def test_one_choice_decides_every_possible_duplicate(client, db, wei) -> None:
    login(client, "wei")
    first = (
        b"@article{a, title={Remote memory systems: a survey of designs}, author={Wei, Xingda},"
        b" journal={CSUR}, year=2022}\n"
        b"@article{b, title={Disaggregated memory at scale in practice}, author={Wei, Xingda},"
        b" journal={TOCS}, year=2022}\n"
    )
    import_file(client, "xingda-wei", first)
    close = (
        b"@article{c, title={Remote memory systems: a survey of the designs}, "
        b"author={Wei, Xingda}, journal={CSUR}, year=2023}\n"
        b"@article{d, title={Disaggregated memory at scale: in practice}, author={Wei, Xingda},"
        b" journal={TOCS}, year=2023}\n"
    )
    url, html = preview(client, "xingda-wei", close)
    assert "2 possible duplicates: decide all at once" in html
    response = confirm(client, url, html, bulk="new")
    assert response.status_code == 302, response.get_data(as_text=True)
    assert count(db, m.Publication) == 4


def test_a_file_over_the_size_limit_is_refused(client, db, app, wei, monkeypatch) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_IMPORT_MAX_BYTES", 1024)
    login(client, "wei")
    data = (BIB / "coauthor_wei.bib").read_bytes() * 3
    response = upload(client, "xingda-wei", data)
    assert response.status_code == 400
    assert "larger than the import limit" in response.get_data(as_text=True)
    assert count(db, m.Publication) == 0


def test_a_file_that_is_not_utf8_is_refused_with_its_line(client, wei) -> None:
    login(client, "wei")
    response = upload(client, "xingda-wei", (BIB / "latin1.bib").read_bytes())
    assert response.status_code == 400
    assert "not UTF-8" in response.get_data(as_text=True)


def test_pasted_bibtex_is_previewed_like_a_file(client, db, wei) -> None:
    login(client, "wei")
    url = f"{PREFIX}/people/xingda-wei/publications/import"
    token = hidden_value(client.get(url).get_data(as_text=True), "csrf_token")
    text = "@misc{x, title={Pasted {\\&} Kept}, author={Wei, Xingda}, year=2020}"
    response = client.post(url, data={"csrf_token": token, "bibtex_text": text})
    assert response.status_code == 302
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Pasted &amp; Kept" in html


@pytest.mark.parametrize(
    "name",
    ["alfolio.bib", "comments.bib", "crossref.bib", "exports.bib", "front_matter.bib",
     "generic_titles.bib", "latex.bib", "months.bib", "strings.bib", "tex_heavy.bib",
     "tugboat_macros.bib", "types.bib"],
)  # fmt: skip
def test_every_quirk_fixture_imports_completely(client, db, wei, name) -> None:
    """Front matter, @string and # concatenation, month macros, crossref, LaTeX, comments,
    trailing commas and al-folio fields: each file imports every entry it holds."""
    data = (BIB / name).read_bytes()
    expected = parse_bibtex(data)
    login(client, "wei")
    url, html = preview(client, "xingda-wei", data)
    assert "Cannot be imported" not in html
    decisions = {f"decision_{index}": "new" for index in re.findall(r'name="decision-(\d+)"', html)}
    confirm(client, url, html, **decisions)
    titles = set(db.scalars(select(m.Publication.title)))
    assert titles == {e.data["title"] for e in expected.entries}


def test_al_folio_fields_become_links_selected_and_awards(client, db, wei) -> None:
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "alfolio.bib").read_bytes())
    pub = db.scalar(select(m.Publication).where(m.Publication.citation_key == "wei2023mitosis"))
    kinds = [link.kind for link in pub.links]
    assert {"code", "slides", "video", "poster", "blog"} <= set(kinds)
    assert [a.name for a in pub.awards][:2] == ["Best Paper Award", "Distinguished Artifact Award"]
    assert pub.venue_short == "OSDI"
    assert db.get(m.ProfilePublication, (wei.id, pub.id)).selected


# --------------------------------------------------------------------------------- sharing


def test_two_coauthors_importing_the_same_paper_share_one_record(client, db, wei, chen) -> None:
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())

    accept_as(client, db, "chen", chen, db.scalar(select(m.Publication).where(
        m.Publication.doi == SOSP_DOI)))  # fmt: skip
    url, html = preview(client, "rong-chen", (BIB / "coauthor_chen.bib").read_bytes())
    # Wei's import asked Chen, who accepted, so the paper is on his profile already; his
    # file still adds what Wei's lacked.
    assert "Already on the profile: the same DOI (10.1145/3600006.3613157)" in html
    assert "slides link" in html and "award Best Paper Award" in html
    confirm(client, url, html)

    pubs = list(db.scalars(select(m.Publication).where(m.Publication.doi == SOSP_DOI)))
    assert len(pubs) == 1
    pub = pubs[0]
    assert {link.kind for link in pub.links} == {"code", "slides"}
    assert [a.name for a in pub.awards] == ["Best Paper Award"]
    assert [a.person_id for a in pub.authorships][:2] == [wei.id, chen.id]
    for slug in ("xingda-wei", "rong-chen"):
        page = client.get(f"{PREFIX}/people/{slug}").get_data(as_text=True)
        assert page.count(SOSP_TITLE) >= 1
    department = client.get(f"{PREFIX}/publications.bib").get_data(as_text=True)
    assert department.count("Fast {RDMA}-based Transactions") == 1
    # Chen's preprint, with "X. Wei" printed, links Wei's name and asks him; his once he accepts.
    preprint = db.scalar(select(m.Publication).where(m.Publication.arxiv_id == "2401.01234"))
    assert {a.person_id for a in preprint.authorships} == {wei.id, chen.id}
    assert db.get(m.ProfilePublication, (wei.id, preprint.id)) is None
    assert accept_as(client, db, "wei", wei, preprint) == 302
    assert db.get(m.ProfilePublication, (wei.id, preprint.id)) is not None


def test_a_department_paper_is_linked_not_copied(client, db, wei, chen) -> None:
    login(client, "wei")
    orcid = (FIXTURES / "orcid" / "record.json").read_bytes()
    url, html = preview(client, "xingda-wei", orcid, filename="record.json", field="orcid_file")
    confirm(client, url, html)
    pub = db.scalar(select(m.Publication).where(m.Publication.doi == SOSP_DOI))
    assert [a.name for a in pub.authorships] == ["Xingda Wei"]  # ORCID lists no co-authors

    login(client, "chen")
    url, html = preview(client, "rong-chen", (BIB / "coauthor_chen.bib").read_bytes())
    assert "Papers a colleague already added: they will be linked" in html
    assert "A department paper has the same DOI" in html
    confirm(client, url, html)
    assert db.scalar(select(func.count()).where(m.Publication.doi == SOSP_DOI)) == 1
    assert db.get(m.ProfilePublication, (chen.id, pub.id)) is not None
    assert SOSP_TITLE in client.get(f"{PREFIX}/people/rong-chen").get_data(as_text=True)


def test_a_possible_duplicate_waits_for_a_decision(client, db, wei, make_person) -> None:
    make_person("Jane Doe", user_key="doe")
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())
    survey = db.scalar(select(m.Publication).where(m.Publication.year == 2022))

    login(client, "doe")
    text = (
        b"@article{doe23, title={A survey of remote-memory systems}, "
        b"author={Doe, Jane and Wei, X.}, journal={CSUR}, year=2023}"
    )
    url, html = preview(client, "jane-doe", text)
    assert "Possible duplicates: your decision" in html
    assert "shared author" in html
    # Without a decision nothing is written.
    response = confirm(client, url, html)
    assert response.status_code == 400
    assert count(db, m.Publication) == 2

    index = re.search(r'name="decision-(\d+)"', html).group(1)
    confirm(client, url, html, **{f"decision_{index}": f"link:{survey.id}"})
    assert count(db, m.Publication) == 2
    assert db.get(m.ProfilePublication, (db.scalar(select(m.Person.id).where(
        m.Person.slug == "jane-doe")), survey.id)) is not None  # fmt: skip


def test_a_preprint_can_be_imported_as_a_version(client, db, wei) -> None:
    login(client, "wei")
    published = (
        b"@inproceedings{p, title={Serverless Inference at Scale}, author={Wei, Xingda}, "
        b"booktitle={EuroSys}, year=2024, doi={10.1145/1111111}}"
    )
    import_file(client, "xingda-wei", published)
    preprint = (
        b"@misc{q, title={Serverless inference at scale}, author={Wei, Xingda}, year=2023, "
        b"eprint={2301.09999}, archivePrefix={arXiv}}"
    )
    url, html = preview(client, "xingda-wei", preprint)
    index = re.search(r'name="decision-(\d+)"', html).group(1)
    target = db.scalar(select(m.Publication.id))
    confirm(client, url, html, **{f"decision_{index}": f"version:{target}"})
    new = db.scalar(select(m.Publication).where(m.Publication.arxiv_id == "2301.09999"))
    assert [(r.kind, r.target_id) for r in new.relations] == [("preprint_of", target)]


def test_a_confirm_based_on_an_outdated_preview_is_refused(client, db, wei, chen) -> None:
    login(client, "chen")
    url, html = preview(client, "rong-chen", (BIB / "coauthor_chen.bib").read_bytes())
    # Meanwhile a colleague adds the same paper.
    pub = m.Publication(title=SOSP_TITLE, year=2023, doi=SOSP_DOI)
    pub.authorships = [m.Authorship(position=0, name="Xingda Wei", person_id=wei.id)]
    db.add(pub)
    db.commit()

    response = confirm(client, url, html)
    assert response.status_code == 409
    assert "changed since this preview" in response.get_data(as_text=True)
    assert count(db, m.Publication) == 1


def test_a_coauthor_can_hide_a_shared_paper_or_select_it(client, db, wei, chen) -> None:
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())
    pub = db.scalar(select(m.Publication).where(m.Publication.doi == SOSP_DOI))

    accept_as(client, db, "chen", chen, pub)
    manage = client.get(f"{PREFIX}/people/rong-chen/publications/manage").get_data(as_text=True)
    token = hidden_value(manage, "csrf_token")
    url = f"{PREFIX}/people/rong-chen/publications/manage"
    # One form for the page: a checkbox per paper and flag.
    assert manage.count('<form method="post"') == 1
    hide = {"csrf_token": token, "shown": pub.uid, "hidden": pub.uid}
    assert client.post(url, data=hide).status_code == 302

    assert SOSP_TITLE not in client.get(f"{PREFIX}/people/rong-chen").get_data(as_text=True)
    own_bib = client.get(f"{PREFIX}/people/rong-chen/publications.bib").get_data(as_text=True)
    assert "Disaggregated" not in own_bib
    # Still on Wei's profile and once in the department's list.
    assert SOSP_TITLE in client.get(f"{PREFIX}/people/xingda-wei").get_data(as_text=True)
    assert "Disaggregated" in client.get(f"{PREFIX}/publications.bib").get_data(as_text=True)

    client.post(url, data={"csrf_token": token, "shown": pub.uid, "selected": pub.uid})
    db.expire_all()
    row = db.get(m.ProfilePublication, (chen.id, pub.id))
    assert row.selected and not row.hidden
    # Nobody else may change Chen's view.
    login(client, "wei")
    assert client.post(url, data={"csrf_token": token, "shown": pub.uid}).status_code == 403


# --------------------------------------------------------------------------------- ORCID


def test_orcid_record_goes_through_the_same_preview(client, db, wei) -> None:
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())
    data = (FIXTURES / "orcid" / "record.json").read_bytes()
    url, html = preview(client, "xingda-wei", data, filename="record.json", field="orcid_file")

    assert "Already on the profile" in html  # the SOSP paper, by its DOI
    assert "Characterizing cold starts of serverless functions" in html
    assert "PhD in Computer Science, Shanghai Jiao Tong University (2017–2022)" in html
    assert "ORCID lists no co-authors" in html
    confirm(client, url, html)

    assert count(db, m.Publication) == 4  # two from BibTeX, two new works
    assert db.scalar(select(m.Education.institution)) == "Shanghai Jiao Tong University"
    kinds = sorted(db.scalars(select(m.Experience.kind)))
    assert kinds == ["internship", "job"]
    assert db.scalar(select(m.Award.title)) == "EuroSys Roger Needham PhD Award"
    assert db.scalar(select(m.Service.kind)) == "program_committee"
    assert db.scalar(select(m.Funding.grant_number)) == "62302302"
    # Again: nothing new.
    url, html = preview(client, "xingda-wei", data, filename="record.json", field="orcid_file")
    assert "there is nothing to import" in html


def test_fetching_from_orcid_is_off_unless_enabled(client, wei) -> None:
    login(client, "wei")
    page = client.get(f"{PREFIX}/people/xingda-wei/publications/import").get_data(as_text=True)
    assert 'name="orcid_id"' not in page
    token = hidden_value(page, "csrf_token")
    response = client.post(
        f"{PREFIX}/people/xingda-wei/publications/import",
        data={"csrf_token": token, "orcid_id": "0000-0002-1825-0097"},
    )
    assert response.status_code == 400
    assert "not enabled" in response.get_data(as_text=True)


# --------------------------------------------------------------------------------- exports


def test_person_export_reparses_to_the_same_data(client, db, wei, chen) -> None:
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())
    pub = db.scalar(select(m.Publication).where(m.Publication.doi == SOSP_DOI))
    pub.title = "Costs & 100% Gains: $x_1$ #1"
    db.commit()
    login(client, None)

    response = client.get(f"{PREFIX}/people/xingda-wei/publications.bib")
    assert response.mimetype == "application/x-bibtex"
    text = response.get_data(as_text=True)
    assert r"Costs \& 100\% Gains: \$x\_1\$ \#1" in text
    parsed = {e.data["doi"]: e.data for e in parse_bibtex(text).entries}
    again = parsed[SOSP_DOI]
    assert again["title"] == "Costs & 100% Gains: $x_1$ #1"
    assert [a["name"] for a in again["authors"]] == [a.name for a in pub.authorships]
    for name in ("venue", "venue_short", "year", "month", "pages", "type"):
        assert again[name] == getattr(pub, name), name
    assert again["selected"] is True

    csl = client.get(f"{PREFIX}/people/xingda-wei/publications.csl.json")
    items = json.loads(csl.get_data(as_text=True))
    item = next(i for i in items if i.get("DOI") == SOSP_DOI)
    assert item["type"] == "paper-conference"
    assert item["author"][0] == {"family": "Wei", "given": "Xingda"}
    assert item["issued"] == {"date-parts": [[2023, 10]]}


def test_exports_respect_visibility_and_filters(client, db, wei) -> None:
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())
    survey = db.scalar(select(m.Publication).where(m.Publication.year == 2022))
    survey.visibility = "members"
    db.commit()

    login(client, None)
    public = client.get(f"{PREFIX}/publications.bib").get_data(as_text=True)
    assert "Remote Memory" not in public and "Disaggregated" in public
    login(client, "wei")
    members = client.get(f"{PREFIX}/publications.bib").get_data(as_text=True)
    assert "Remote Memory" in members

    def titles(query: str) -> list[str]:
        body = client.get(f"{PREFIX}/publications.csl.json?{query}").get_data(as_text=True)
        return sorted(item["title"] for item in json.loads(body))

    assert titles("year=2022") == ["A Survey of Remote Memory Systems"]
    assert titles("type=conference") == [SOSP_TITLE]
    assert titles("venue=sosp") == [SOSP_TITLE]
    assert titles("person=xingda-wei") == sorted([SOSP_TITLE, "A Survey of Remote Memory Systems"])
    assert titles("person=nobody") == []


# --------------------------------------------------------------------------------- admins


def test_admins_merge_and_split_shared_records(client, db, wei, chen) -> None:
    a = m.Publication(title="Mitosis", year=2020, doi="10.1/m")
    a.authorships = [m.Authorship(position=0, name="Xingda Wei", person_id=wei.id)]
    b = m.Publication(title="Mitosis", year=2020)
    b.authorships = [
        m.Authorship(position=0, name="X. Wei"),
        m.Authorship(position=1, name="Rong Chen", person_id=chen.id),
    ]
    db.add_all([a, b])
    db.flush()
    db.add_all(
        [
            m.ProfilePublication(person_id=wei.id, publication_id=a.id),
            m.ProfilePublication(person_id=chen.id, publication_id=b.id),
        ]
    )
    db.commit()
    record = f"{PREFIX}/publications/{a.uid}/record"
    login(client, "wei")
    assert client.get(record).status_code == 403

    login(client, "admin")
    page = client.get(record).get_data(as_text=True)
    assert b.uid in page  # offered as a possible duplicate (same title and year)
    token = hidden_value(page, "csrf_token")
    response = client.post(
        f"{PREFIX}/publications/{a.uid}/merge", data={"csrf_token": token, "other": b.uid}
    )
    assert response.status_code == 302
    db.expire_all()
    assert count(db, m.Publication) == 1
    assert db.get(m.ProfilePublication, (chen.id, a.id)) is not None

    response = client.post(
        f"{PREFIX}/publications/{a.uid}/split",
        data={"csrf_token": token, "person": str(chen.id)},
    )
    assert response.status_code == 302
    db.expire_all()
    assert count(db, m.Publication) == 2
    assert db.get(m.ProfilePublication, (chen.id, a.id)) is None


# --------------------------------------------------------------------------------- CLI


def test_cli_imports_with_preview_and_progress(runner, db, wei, chen, tmp_path) -> None:
    result = runner.invoke(
        args=["directory", "import-bibtex", "--person", "xingda-wei", "--yes",
              str(BIB / "coauthor_wei.bib")]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Preview for Xingda Wei: 2 new" in result.output
    assert "Importing" in result.output  # the progress bar
    assert "Imported for Xingda Wei: 2 new papers" in result.output
    assert count(db, m.Publication) == 2

    again = runner.invoke(
        args=["directory", "import-bibtex", "--person", "xingda-wei", "--yes",
              str(BIB / "coauthor_wei.bib")]
    )  # fmt: skip
    assert "nothing to import" in again.output
    assert count(db, m.Publication) == 2


def test_cli_refuses_duplicates_without_a_rule_and_malformed_files(runner, db, wei, tmp_path):
    runner.invoke(
        args=["directory", "import-bibtex", "--person", "xingda-wei", "--yes",
              str(BIB / "coauthor_wei.bib")]
    )  # fmt: skip
    close = tmp_path / "close.bib"
    close.write_text(
        "@article{c, title={A survey of remote memory systems}, author={X. Wei}, "
        "journal={CSUR}, year=2023}"
    )
    args = ["directory", "import-bibtex", "--person", "xingda-wei", "--yes", str(close)]
    refused = runner.invoke(args=args)
    assert refused.exit_code == 1
    assert "possible duplicate(s) need a decision" in refused.output
    assert count(db, m.Publication) == 2
    linked = runner.invoke(args=[*args, "--duplicates=link"])
    assert linked.exit_code == 0, linked.output
    assert count(db, m.Publication) == 2

    args = ["directory", "import-bibtex", "--person", "xingda-wei", "--yes"]
    broken = runner.invoke(args=[*args, str(BIB / "malformed.bib")])
    assert broken.exit_code == 1
    assert "error: line 8" in broken.output and "--skip-invalid" in broken.output
    assert count(db, m.Publication) == 2
    rest = runner.invoke(args=[*args, "--skip-invalid", str(BIB / "malformed.bib")])
    assert rest.exit_code == 0, rest.output
    assert "6 new papers" in rest.output and "2 skipped" in rest.output
    assert count(db, m.Publication) == 8


def test_links_a_page_must_not_point_at_are_dropped(client, db, wei) -> None:
    login(client, "wei")
    text = (
        b"@misc{x, title={Evil Links}, author={Wei, Xingda}, year=2020, "
        b"url={javascript:alert(1)}, code={https://github.com/ok}, pdf={paper.pdf}}"
    )
    text = text.replace(b"code={", b"video={\x01javascript:alert(9)}, code={")
    url, html = preview(client, "xingda-wei", text)
    assert "was dropped: only web addresses" in html
    # A control character before the scheme does not make it a relative path: it is removed
    # when the upload is stored (one rule for control characters), and the link is dropped.
    assert "The video link &#39;javascript:alert(9)&#39; was dropped: only web" in html
    # A file of the person's own site is named, with how to keep it.
    assert "The paper link &#39;paper.pdf&#39; was dropped: it is a file of your own" in html
    confirm(client, url, html)
    pub = db.scalar(select(m.Publication))
    assert [link.url for link in pub.links] == ["https://github.com/ok"]


def test_relative_links_are_resolved_against_the_site_given(runner, db, wei, tmp_path) -> None:
    """al-folio's pdf = {p24.pdf}, with --base-url: a full address the interchange accepts."""
    bib = tmp_path / "papers.bib"
    bib.write_text(
        "@misc{x, title={Relative Links}, author={Wei, Xingda}, year=2020, pdf={p24.pdf},"
        " slides={/assets/s.pdf}}"
    )
    result = runner.invoke(
        args=["directory", "import-bibtex", "--person", "xingda-wei", "--yes",
              "--base-url", "https://wei.example.org/~wei", str(bib)]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    pub = db.scalar(select(m.Publication))
    assert sorted(link.url for link in pub.links) == [
        "https://wei.example.org/assets/s.pdf",
        "https://wei.example.org/~wei/p24.pdf",
    ]


def test_the_web_import_resolves_relative_links_against_the_site_given(client, db, wei) -> None:
    """The import form's "site" field does what the CLI's --base-url does; a bad address is
    refused next to the field, with what was typed kept."""
    login(client, "wei")
    url = f"{PREFIX}/people/xingda-wei/publications/import"
    text = ("@misc{x, title={Relative Links}, author={Wei, Xingda}, year=2020, pdf={p24.pdf},"
            " slides={/assets/s.pdf}}")  # fmt: skip
    token = hidden_value(client.get(url).get_data(as_text=True), "csrf_token")
    refused = client.post(url, data={"csrf_token": token, "bibtex_text": text,
                                     "base_url": "javascript:alert(1)"})  # fmt: skip
    assert refused.status_code == 400
    page = refused.get_data(as_text=True)
    assert "Enter a web address starting with https://" in page and "Relative Links" in page
    assert count(db, m.ImportDraft) == 0

    response = client.post(url, data={"csrf_token": token, "bibtex_text": text,
                                      "base_url": "https://wei.example.org/~wei"})  # fmt: skip
    assert response.status_code == 302
    preview_url = response.headers["Location"]
    html = client.get(preview_url).get_data(as_text=True)
    assert confirm(client, preview_url, html).status_code == 302
    pub = db.scalar(select(m.Publication))
    assert sorted(link.url for link in pub.links) == [
        "https://wei.example.org/assets/s.pdf",
        "https://wei.example.org/~wei/p24.pdf",
    ]


def test_the_same_paper_twice_in_one_file_is_imported_once(client, db, wei) -> None:
    login(client, "wei")
    text = (
        b"@article{a, title={One Paper}, author={Wei, Xingda}, journal={J}, year=2020,"
        b" doi={10.1145/1111.2222}}\n"
        b"@article{b, title={One Paper (again)}, author={Wei, Xingda}, journal={J}, year=2020,"
        b" doi={https://doi.org/10.1145/1111.2222}}\n"
    )
    url, html = preview(client, "xingda-wei", text)
    assert "Repeated in this file: skipped" in html
    assert "Same paper as the entry on line 1" in html
    confirm(client, url, html)
    assert count(db, m.Publication) == 1


def test_an_orcid_record_can_be_fetched_when_enabled(client, db, app, wei, monkeypatch) -> None:
    """The fetch goes to a stand-in API on this machine's loopback address: no network."""
    import threading

    from werkzeug.serving import make_server
    from werkzeug.wrappers import Request, Response

    record = (FIXTURES / "orcid" / "record.json").read_bytes()

    @Request.application
    def fake_orcid(request: Request) -> Response:
        if request.path == "/v3.0/0000-0002-1825-0097/record":
            return Response(record, mimetype="application/json")
        return Response("not found", status=404)

    server = make_server("127.0.0.1", 0, fake_orcid)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setitem(app.config, "DIRECTORY_ORCID_FETCH", True)
        monkeypatch.setitem(
            app.config, "DIRECTORY_ORCID_API_URL", f"http://127.0.0.1:{server.server_port}/v3.0"
        )
        login(client, "wei")
        url = f"{PREFIX}/people/xingda-wei/publications/import"
        page = client.get(url).get_data(as_text=True)
        assert 'name="orcid_id"' in page
        token = hidden_value(page, "csrf_token")
        bad = client.post(url, data={"csrf_token": token, "orcid_id": "0000-0002-1825-0098"})
        assert "This is not an ORCID iD" in bad.get_data(as_text=True)
        response = client.post(
            url, data={"csrf_token": token, "orcid_id": "https://orcid.org/0000-0002-1825-0097"}
        )
        assert response.status_code == 302
        html = client.get(response.headers["Location"]).get_data(as_text=True)
        assert "ORCID 0000-0002-1825-0097" in html
        assert "Learned Indexes for Persistent Memory: An Experimental Study" in html
    finally:
        server.shutdown()
        thread.join()


def test_values_too_long_for_the_database_are_errors_not_crashes(client, db, wei) -> None:
    """PostgreSQL refuses over-long strings; the preview says which value, before writing."""
    login(client, "wei")
    text = b"@misc{x, title={Fine}, author={Wei, Xingda}, year=2020, pages={" + b"1" * 41 + b"}}"
    url, html = preview(client, "xingda-wei", text)
    assert "The pages is longer than 40 characters." in html
    assert "Confirm and import" not in html
    assert count(db, m.Publication) == 0


def test_the_preview_is_paginated_and_decisions_elsewhere_are_asked_for(
    client, db, wei, monkeypatch
) -> None:
    from directory.web.views import publications as views

    monkeypatch.setattr(views, "PREVIEW_PAGE_SIZE", 2)
    login(client, "wei")
    import_file(
        client, "xingda-wei",
        b"@article{a, title={Remote memory systems: a survey of designs}, author={Wei, Xingda},"
        b" journal={CSUR}, year=2022}\n",
    )  # fmt: skip
    text = (
        b"@article{c, title={Remote memory systems: a survey of the designs}, "
        b"author={Wei, Xingda}, journal={CSUR}, year=2023}\n"
        + b"@misc{n0, title={Graph kernels on the edge}, author={Wei, Xingda}, year=2020}\n"
        + b"@misc{n1, title={Fault-tolerant sensors}, author={Wei, Xingda}, year=2021}\n"
        + b"@misc{n2, title={Lattice cryptanalysis}, author={Wei, Xingda}, year=2019}\n"
    )
    url, html = preview(client, "xingda-wei", text)
    assert "Showing 1–2 of 4" in html and 'rel="next"' in html
    assert "Graph kernels on the edge" in html and "Fault-tolerant sensors" not in html
    page2 = client.get(url + "?page=2").get_data(as_text=True)
    assert "Lattice cryptanalysis" in page2 and "Showing 3–4 of 4" in page2
    # A confirm from page 2 names the undecided duplicate that stands on page 1.
    response = confirm(client, url + "?page=2", page2)
    assert response.status_code == 400
    assert "on other pages of this preview need a decision (line 1)" in response.get_data(
        as_text=True
    )
    assert count(db, m.Publication) == 1
    response = confirm(client, url + "?page=2", page2, bulk="new")
    assert response.status_code == 302
    assert count(db, m.Publication) == 5


def test_a_file_of_too_many_entries_is_refused_with_a_message(client, db, wei, monkeypatch):
    from directory.formats.bibtex import parse

    monkeypatch.setattr(parse.parse_bibtex, "__kwdefaults__", {"max_bytes": 5 << 20,
                                                                "max_entries": 3})  # fmt: skip
    login(client, "wei")
    text = b"".join(b"@misc{k%d, title={T%d}, year=2020}\n" % (i, i) for i in range(4))
    url, html = preview(client, "xingda-wei", text)
    assert "The file holds 4 entries; at most 3 are imported at a time" in html
    assert "Nothing in this file can be imported." in html
    assert count(db, m.Publication) == 0


# ------------------------------------------------------------------- duplicate precision


def _import_and_preview(client, first: bytes, second: bytes) -> str:
    login(client, "wei")
    import_file(client, "xingda-wei", first)
    return preview(client, "xingda-wei", second)[1]


def test_two_editorials_of_one_year_are_two_papers(client, db, wei) -> None:
    """A generic title is never the same paper (nor a possible duplicate) on the title alone:
    the second must not write its DOI, volume and pages into the first."""
    first = (
        b"@article{e1, title={Editorial}, author={Wei, Xingda}, journal={J. Systems}, year=2020}"
    )
    second = (
        b"@article{e2, title={Editorial}, author={Wei, Xingda}, journal={Memory Letters},"
        b" year=2020, volume={7}, pages={1--2}, doi={10.1000/ml.7.1}}"
    )
    html = _import_and_preview(client, first, second)
    assert "New papers" in html and "Already on the profile" not in html
    assert "Possible duplicates" not in html


def test_same_title_and_year_with_another_volume_is_another_paper(client, db, wei) -> None:
    """A journal's recurring column: same title, same year, different volume and pages."""
    first = (
        b"@article{c5, title={Hyphenation exception log for the typesetting community},"
        b" author={Wei, Xingda}, journal={TUGboat}, year=1984, volume=5, pages={12--14}}"
    )
    second = (
        first.replace(b"c5", b"c6").replace(b"volume=5", b"volume=6").replace(b"12--14", b"80--82")
    )
    html = _import_and_preview(client, first, second)
    assert "New papers" in html
    assert "Already on the profile" not in html and "Possible duplicates" not in html
    # The same entry read again is still recognised.
    html = preview(client, "xingda-wei", first)[1]
    assert "Already on the profile: the same title and year" in html


def test_a_title_contained_in_another_is_not_a_duplicate(client, db, wei) -> None:
    """token_set_ratio scores 100 when one title's words are a subset of the other's."""
    first = (
        b"@inproceedings{x, title={XStore: A Fast RDMA-Based Ordered Key-Value Store Using"
        b" Remote Learned Cache}, author={Wei, Xingda}, booktitle={OSDI}, year=2020}"
    )
    second = b"@misc{a, title={A Fast Store}, author={Wei, Xingda}, year=2020}"
    html = _import_and_preview(client, first, second)
    assert "Possible duplicates" not in html and "New papers" in html


def test_a_possible_duplicate_shows_what_linking_would_change(client, db, wei) -> None:
    first = (
        b"@article{s, title={A Survey of Remote Memory Systems}, author={Wei, Xingda},"
        b" journal={ACM Computing Surveys}, year=2022}"
    )
    second = (
        b"@article{s2, title={A survey of remote-memory systems}, author={Wei, X.},"
        b" journal={CSUR}, year=2023, doi={10.1145/3588901}, pages={1--30}}"
    )
    html = _import_and_preview(client, first, second)
    assert "Possible duplicates" in html
    assert "If it is the same paper, linking adds to it:</span> DOI; pages" in html
    pub = db.scalar(select(m.Publication))
    assert (pub.doi, pub.pages) == (None, None)
    # Confirming "same paper" writes exactly what was shown.
    url = re.search(r'action="([^"]*)/discard"', html).group(1)
    confirm(client, url, html, decision_0=f"link:{pub.id}")
    db.refresh(pub)
    assert (pub.doi, pub.pages) == ("10.1145/3588901", "1–30")
    assert count(db, m.Publication) == 1


def _public_pages(client, db) -> dict[str, str]:
    """Every profile, its complete paper list and the department's publications page, as an
    anonymous visitor gets them, without what differs from one request to the next."""
    urls = ["/directory/publications"]
    for slug in sorted(db.scalars(select(m.Person.slug))):
        urls += [f"/directory/people/{slug}", f"/directory/people/{slug}/publications"]
    pages = {}
    for url in urls:
        response = client.get(url)
        html = re.sub(r'nonce="[^"]*"', "", response.get_data(as_text=True))
        # When the profile last changed: the restore is a change.
        html = re.sub(r'"dateModified":"[^"]*"', "", html)
        pages[url] = f"{response.status_code} {html}"
    return pages


def test_a_department_filled_by_imports_exports_and_reimports(
    runner, client, db, wei, chen, tmp_path
):
    """export --all of profiles populated through BibTeX (every quirk fixture, al-folio's
    relative links included) and ORCID, then import-profile into an empty database: the
    same exports, and the same public pages."""
    from sqlalchemy import delete

    from directory.services.interchange import export_person

    def run(*args: str) -> None:
        result = runner.invoke(args=["directory", *args])
        assert result.exit_code == 0, result.output

    for name in ("alfolio.bib", "crossref.bib", "latex.bib", "strings.bib", "tex_heavy.bib",
                 "types.bib", "malformed.bib", "coauthor_wei.bib", "names.bib",
                 "coauthor_initials.bib"):  # fmt: skip
        run("import-bibtex", "--person", "xingda-wei", "--yes", "--skip-invalid",
            "--duplicates=new", str(BIB / name))  # fmt: skip
    run("import-bibtex", "--person", "rong-chen", "--yes", "--duplicates=link",
        str(BIB / "coauthor_chen.bib"))  # fmt: skip
    run("import-orcid", "--person", "rong-chen", "--yes", "--duplicates=new",
        str(FIXTURES / "orcid" / "record.json"))  # fmt: skip
    run("import-orcid", "--person", "rong-chen", "--yes", "--duplicates=new",
        str(FIXTURES / "orcid" / "record_person.json"))  # fmt: skip
    assert count(db, m.Publication) > 20

    pages = _public_pages(client, db)
    out = tmp_path / "backup"
    run("export", "--all", str(out))
    first = {p.name: json.loads(p.read_text()) for p in sorted(out.iterdir())}
    for model in (m.ResearchArea, m.Publication, m.Person):
        db.execute(delete(model))
    db.commit()
    db.expunge_all()

    run("import-profile", *map(str, sorted(out.iterdir())))
    db.expire_all()
    again = {f"{p.slug}.json": export_person(db, p) for p in db.scalars(select(m.Person))}
    assert again == first
    after = _public_pages(client, db)
    assert [url for url in pages if after[url] != pages[url]] == []


def test_the_preview_says_when_the_importer_is_not_among_the_authors(client, db, wei) -> None:
    """A reading list imported by mistake: said before anything is written."""
    login(client, "wei")
    text = (
        b"@article{r1, title={Wind power forecasting}, author={Zhang, D.}, journal={E}, year=2020}"
        b"\n@article{r2, title={Offshore turbines}, author={Li, Q.}, journal={E}, year=2021}\n"
    )
    html = preview(client, "xingda-wei", text)[1]
    assert "None of the 2 papers to add lists Xingda Wei among its authors." in html
    mixed = text + b"@misc{m, title={Mine}, author={Wei, Xingda}, year=2022}\n"
    html = preview(client, "xingda-wei", mixed)[1]
    assert "2 of the 3 papers to add do not list Xingda Wei among their authors" in html


def test_a_coauthor_matched_by_initials_is_asked_not_linked(client, db, wei, chen) -> None:
    """ "R. Chen" may be Rong Chen: the paper is not on her profile until she says it is her;
    "Rong Chen" in full is certain and linked at once."""
    login(client, "wei")
    url, html = preview(client, "xingda-wei", (BIB / "coauthor_initials.bib").read_bytes())
    assert "R. Chen (may be Rong Chen: they are asked to confirm" in html
    assert "linked to Rong Chen" in html  # the full name
    assert confirm(client, url, html).status_code == 302

    def on_chens_profile() -> set[str]:
        db.expire_all()
        return set(
            db.scalars(
                select(m.Publication.title)
                .join(m.ProfilePublication)
                .where(m.ProfilePublication.person_id == chen.id)
            )
        )

    # In full, the name links; the paper is hers once she accepts it (a name is no proof).
    assert on_chens_profile() == set()
    full = db.scalar(select(m.Publication).where(
        m.Publication.title == "A Paper Listing a Co-Author in Full"))  # fmt: skip
    accept_as(client, db, "chen", chen, full)
    login(client, "wei")
    assert on_chens_profile() == {"A Paper Listing a Co-Author in Full"}
    asked = db.scalar(select(m.Authorship).where(m.Authorship.name == "R. Chen"))
    assert asked.person_id is None and asked.suggested_person_id == chen.id
    public = client.get(f"{PREFIX}/people/rong-chen").get_data(as_text=True)
    assert "A Paper Listing a Co-Author by Initials" not in public

    # Rong Chen sees it on /me, suggested, and confirms: now it is hers, with history.
    login(client, "chen")
    me = client.get(f"{PREFIX}/me").get_data(as_text=True)
    assert "Suggested for you" in me and "as “R. Chen”" in me
    records = count(db, m.ChangeRecord)
    response = client.post(
        f"{PREFIX}/people/rong-chen/edit/authorships/{asked.id}/confirm",
        data={"csrf_token": hidden_value(me, "csrf_token")},
    )
    assert response.status_code == 302
    assert on_chens_profile() == {
        "A Paper Listing a Co-Author in Full", "A Paper Listing a Co-Author by Initials",
    }  # fmt: skip
    db.refresh(asked)
    assert asked.person_id == chen.id and asked.suggested_person_id is None
    assert count(db, m.ChangeRecord) == records + 1
    assert "Suggested for you" not in client.get(f"{PREFIX}/me").get_data(as_text=True)
    # Answered: nothing left to answer.
    again = client.post(
        f"{PREFIX}/people/rong-chen/edit/authorships/{asked.id}/confirm",
        data={"csrf_token": hidden_value(me, "csrf_token")},
    )
    assert again.status_code == 404


def test_a_member_can_say_a_suggested_name_is_not_them(client, db, wei, chen) -> None:
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_initials.bib").read_bytes())
    asked = db.scalar(select(m.Authorship).where(m.Authorship.name == "R. Chen"))

    # Someone else cannot answer for her.
    me = client.get(f"{PREFIX}/me").get_data(as_text=True)
    refused = client.post(
        f"{PREFIX}/people/rong-chen/edit/authorships/{asked.id}/decline",
        data={"csrf_token": hidden_value(me, "csrf_token")},
    )
    assert refused.status_code == 403

    login(client, "chen")
    me = client.get(f"{PREFIX}/me").get_data(as_text=True)
    response = client.post(
        f"{PREFIX}/people/rong-chen/edit/authorships/{asked.id}/decline",
        data={"csrf_token": hidden_value(me, "csrf_token")},
    )
    assert response.status_code == 302
    db.expire_all()
    assert asked.person_id is None and asked.suggestion_declined
    assert "Suggested for you" not in client.get(f"{PREFIX}/me").get_data(as_text=True)
    # Importing the file again does not ask her again, nor links her.
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_initials.bib").read_bytes())
    db.expire_all()
    assert asked.person_id is None and asked.suggestion_declined
    login(client, "chen")
    assert "Suggested for you" not in client.get(f"{PREFIX}/me").get_data(as_text=True)
