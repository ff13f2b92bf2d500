"""An ORCID record's person data (biography, keywords, researcher URLs) imported into the
profile: an empty field is filled, text of the profile's own is changed only when the person
ticks it on the preview (or passes --replace-bio / --replace-interests), links already there
are not added again, refused ones are listed with the reason; through the one write path
(history, approval)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from directory import models as m
from directory.formats.orcid import parse_orcid_record
from directory.models import ChangeRecord, PendingChange
from tests.conftest import login
from tests.services.test_publication_import import confirm, preview
from tests.support.editing import post

ORCID = Path(__file__).resolve().parents[1] / "fixtures" / "orcid"
PERSON_ONLY = ORCID / "person_only.json"
RECORD = ORCID / "record_with_person.json"
BIO = "Xingda Wei builds fast distributed systems.\n\nHe works on RDMA and serverless computing."


def orcid_preview(client, slug: str, path: Path) -> tuple[str, str]:
    return preview(client, slug, path.read_bytes(), filename=path.name, field="orcid_file")


@pytest.fixture
def wei(make_person):
    return make_person("Xingda Wei", user_key="wei", name_variants=["X. Wei"])


@pytest.fixture
def areas(db):
    db.add_all([m.ResearchArea(slug="operating-systems", name="Operating Systems"),
                m.ResearchArea(slug="databases", name="Databases")])  # fmt: skip
    db.commit()


def links_of(db, person) -> list[tuple[str, str, str | None]]:
    db.expire_all()
    return [(k.kind, k.url, k.label) for k in db.get(m.Person, person.id).links]


def test_the_person_part_of_a_record_or_a_person_document_is_read() -> None:
    for path in (PERSON_ONLY, RECORD):
        record = parse_orcid_record(path.read_bytes(), "Xingda Wei", max_bytes=1 << 20)
        assert record.person.biography == BIO  # line ends made plain
        # "RDMA; serverless computing" is two keywords; "rdma" again is not a third.
        assert record.person.keywords == ["Operating Systems", "RDMA", "serverless computing"]
        assert [u.name for u in record.person.urls] == ["Lab", "GitHub", "Click me", None]
        assert record.problems == []
    assert parse_orcid_record(PERSON_ONLY.read_bytes(), "", max_bytes=1 << 20).entries == []


def test_an_empty_profile_takes_the_biography_keywords_and_links(client, db, wei, areas) -> None:
    login(client, "wei")
    url, html = orcid_preview(client, "xingda-wei", PERSON_ONLY)
    assert "Your profile: from the ORCID record" in html
    assert "Xingda Wei builds fast distributed systems." in html
    assert "Research interests become: RDMA, serverless computing" in html
    assert "a keyword names this research area of the department" in html
    # The hostile and the ftp addresses are refused, named, with the reason.
    assert "\\x01javascript:alert(9)" in html
    assert "only web addresses (http, https) are kept" in html
    assert "ftp://files.example.org/cv.pdf" in html
    assert confirm(client, url, html).status_code == 302

    person = db.get(m.Person, wei.id)
    db.refresh(person)
    assert person.bio == BIO
    assert person.interests == "RDMA, serverless computing"
    assert [a.name for a in person.areas] == ["Operating Systems"]  # no area made up
    assert links_of(db, wei) == [("other", "https://ipads.example.org/", "Lab"),
                                 ("github", "https://github.com/xingdawei", "GitHub")]  # fmt: skip
    # One history record for the profile's own fields, with before and after, beside the
    # import's.
    record = db.scalar(select(ChangeRecord).where(ChangeRecord.entity_kind == "person"))
    assert record.action == "update" and record.before["bio"] is None
    assert record.after["bio"] == BIO
    assert db.scalar(select(ChangeRecord).where(ChangeRecord.entity_kind == "import"))

    # Again: nothing new.
    _url, html = orcid_preview(client, "xingda-wei", PERSON_ONLY)
    assert "there is nothing to import" in html


def test_text_of_the_profile_is_changed_only_when_ticked(client, db, wei) -> None:
    wei.bio, wei.interests = "My own words.", "distributed systems, rdma"
    wei.links = [m.PersonLink(kind="homepage", url="http://www.ipads.example.org", position=0)]
    db.commit()
    login(client, "wei")
    url, html = orcid_preview(client, "xingda-wei", PERSON_ONLY)
    assert "Your profile has its own biography; it is kept unless you tick:" in html
    assert "My own words." in html and "Xingda Wei builds fast distributed systems." in html
    assert (
        "They would become: distributed systems, rdma, Operating Systems, serverless "
        "computing" in html
    )
    assert 'name="replace_bio"' in html and 'name="replace_interests"' in html
    assert confirm(client, url, html).status_code == 302  # nothing ticked

    db.expire_all()
    person = db.get(m.Person, wei.id)
    assert (person.bio, person.interests) == ("My own words.", "distributed systems, rdma")
    # The lab's address was there already (spelled http://www.): not added twice.
    assert links_of(db, wei) == [("homepage", "http://www.ipads.example.org", None),
                                 ("github", "https://github.com/xingdawei", "GitHub")]  # fmt: skip

    url, html = orcid_preview(client, "xingda-wei", PERSON_ONLY)
    assert "there is nothing to import" not in html  # the two opt-ins are still offered
    response = confirm(client, url, html, replace_bio="y", replace_interests="y")
    assert response.status_code == 302
    db.expire_all()
    person = db.get(m.Person, wei.id)
    assert person.bio == BIO
    assert person.interests == "distributed systems, rdma, Operating Systems, serverless computing"
    assert len(links_of(db, wei)) == 2
    _url, html = orcid_preview(client, "xingda-wei", PERSON_ONLY)
    assert "there is nothing to import" in html


@pytest.fixture
def student(make_person, db):
    advisor = make_person("Grace Hopper", user_key="grace")
    sam = make_person("Sam Student", role="phd_student", user_key="sam")
    db.add(m.AdvisingRelation(owner_id=advisor.id, advisor_id=advisor.id, student_id=sam.id,
                              advisor_confirmed=True, student_confirmed=True))  # fmt: skip
    db.commit()
    return sam


def test_a_students_import_of_person_data_waits_for_approval(
    app, client, db, student, monkeypatch
) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_APPROVAL_ROLES", ["phd_student"])
    login(client, "sam")
    url, html = orcid_preview(client, "sam-student", RECORD)
    assert confirm(client, url, html).status_code == 302
    db.expire_all()
    sam = db.get(m.Person, student.id)
    assert sam.bio is None and sam.links == [] and sam.interests is None
    pending = db.scalar(select(PendingChange).where(PendingChange.entity_kind == "import"))
    assert pending.status == "pending"

    login(client, "grace")
    approvals = client.get("/directory/approvals").get_data(as_text=True)
    assert "Keywords: Operating Systems, RDMA, serverless computing" in approvals
    assert post(client, f"/directory/approvals/{pending.id}/approve").status_code == 302
    db.expire_all()
    sam = db.get(m.Person, student.id)
    assert sam.bio == BIO and sam.interests == "Operating Systems, RDMA, serverless computing"
    assert [k.url for k in sam.links] == ["https://ipads.example.org/",
                                          "https://github.com/xingdawei"]  # fmt: skip
    record = db.scalar(select(ChangeRecord).where(ChangeRecord.entity_kind == "person"))
    assert record.actor_key == "grace" and record.after["bio"] == BIO


def test_the_command_line_imports_person_data_and_names_what_it_leaves(runner, db, wei) -> None:
    wei.bio = "My own words."
    db.commit()

    def run(*extra: str) -> str:
        result = runner.invoke(args=["directory", "import-orcid", "--person", "xingda-wei",
                                     "--yes", *extra, str(PERSON_ONLY)])  # fmt: skip
        assert result.exit_code == 0, result.output
        return result.output

    out = run()
    assert "not taken: biography: the profile has its own; --replace-bio" in out
    assert "profile: research interests: Operating Systems, RDMA, serverless computing" in out
    assert "profile: link added: GitHub: https://github.com/xingdawei" in out
    assert "not taken: The link '\\\\x01javascript:alert(9)' is not imported: only web" in out
    assert "not taken: The link 'ftp://files.example.org/cv.pdf' is not imported" in out
    db.expire_all()
    assert db.get(m.Person, wei.id).bio == "My own words."
    assert len(links_of(db, wei)) == 2

    out = run("--replace-bio")
    assert "profile: biography: the profile's is replaced by the record's." in out
    db.expire_all()
    assert db.get(m.Person, wei.id).bio == BIO
    assert "nothing to import" in run()
    assert len(links_of(db, wei)) == 2


def test_an_address_that_is_no_address_is_refused_not_a_crash(client, db, wei) -> None:
    """``http://[oops`` made urlsplit raise: the preview of such a record (or .bib) failed."""
    wei.links = [m.PersonLink(kind="other", url="http://[legacy", position=0)]
    db.commit()
    record = (b'{"researcher-urls": {"researcher-url": [{"url-name": "Bad", "url": '
              b'{"value": "http://[oops"}}]}}')  # fmt: skip
    login(client, "wei")
    _url, html = preview(client, "xingda-wei", record, filename="p.json", field="orcid_file")
    assert "it is not a valid web address" in html
    bib = b"@misc{k, title={T}, author={Wei, Xingda}, year=2020, url={http://[oops}}"
    _url, html = preview(client, "xingda-wei", bib)
    assert "was dropped: it is not a valid web address" in html
