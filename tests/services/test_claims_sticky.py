"""A paper goes on a profile by the person's own act, an identifier or an accepted
candidate; a printed name alone asks (the claim queue). And a paper taken off one's profile,
or rejected in the queue, stays off: across a co-author's BibTeX import, one's own ORCID
import and a harvest (issue 31, item 3: on main the removal was undone by the same save)."""

from __future__ import annotations

from sqlalchemy import select

from directory import models as m
from directory.formats.harvest.works import HarvestedAuthor, HarvestedWork
from directory.services.claims.evidence import member_index, person_facts
from directory.services.claims.queue import Offering
from tests.conftest import login
from tests.services.test_publication_import import (
    BIB,
    FIXTURES,
    PREFIX,
    SOSP_DOI,
    SOSP_TITLE,
    chen,  # noqa: F401 - fixtures
    confirm,
    import_file,
    preview,
    wei,  # noqa: F401
)
from tests.support.editing import post


def _listed(db, person) -> set[str]:
    db.expire_all()
    return set(db.scalars(
        select(m.Publication.title).join(m.ProfilePublication)
        .where(m.ProfilePublication.person_id == person.id)
    ))  # fmt: skip


def _pending(db, person) -> list[m.ClaimCandidate]:
    db.expire_all()
    return list(db.scalars(select(m.ClaimCandidate).where(
        m.ClaimCandidate.person_id == person.id, m.ClaimCandidate.state == "pending")))  # fmt: skip


def _sosp(db) -> m.Publication:
    return db.scalar(select(m.Publication).where(m.Publication.doi == SOSP_DOI))


def test_a_coauthors_import_asks_and_does_not_list(client, db, wei, chen) -> None:  # noqa: F811
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())
    assert SOSP_TITLE in _listed(db, wei)
    assert SOSP_TITLE not in _listed(db, chen)  # on main: listed on Chen's profile at once
    [asked] = [c for c in _pending(db, chen) if c.title == SOSP_TITLE]
    assert (asked.found_by, asked.source, asked.publication_id) == (
        "name",
        "coauthor",
        _sosp(db).id,
    )
    login(client, "chen")
    editor = client.get(f"{PREFIX}/me").get_data(as_text=True)
    assert "Found for you" in editor and "your name as written: Rong Chen" in editor
    assert "co-authored with Xingda Wei" in editor
    response = post(client, f"{PREFIX}/people/rong-chen/edit/found/{asked.id}/accept")
    assert response.status_code == 302
    assert SOSP_TITLE in _listed(db, chen)
    record = db.scalars(select(m.ChangeRecord).where(m.ChangeRecord.person_id == chen.id)).all()
    assert [r.entity_kind for r in record] == ["publication"]


def test_a_removal_sticks_across_a_coauthors_import_an_orcid_import_and_a_harvest(
    client,
    db,
    wei,  # noqa: F811
    chen,  # noqa: F811
) -> None:
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())
    login(client, "chen")
    asked = next(c for c in _pending(db, chen) if c.title == SOSP_TITLE)
    post(client, f"{PREFIX}/people/rong-chen/edit/found/{asked.id}/accept")
    pub = _sosp(db)
    assert SOSP_TITLE in _listed(db, chen)

    # "Remove from my profile" on a paper a co-author lists too.
    response = post(client, f"{PREFIX}/people/rong-chen/edit/publications/{pub.id}/remove",
                    {"version": str(pub.version)}, follow_redirects=True)  # fmt: skip
    assert "Removed from this profile" in response.get_data(as_text=True)
    assert SOSP_TITLE not in _listed(db, chen)  # on main: still there
    assert SOSP_TITLE in _listed(db, wei)
    assert all(a.person_id != chen.id for a in _sosp(db).authorships)

    # A co-author's BibTeX import of the same paper (with more to add to it).
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_chen.bib").read_bytes())
    assert SOSP_TITLE not in _listed(db, chen)
    assert not [c for c in _pending(db, chen) if c.title == SOSP_TITLE]

    # Her own ORCID import lists it: left out, and the preview says why.
    login(client, "chen")
    data = (FIXTURES / "orcid" / "record.json").read_bytes()
    url, html = preview(client, "rong-chen", data, filename="record.json", field="orcid_file")
    assert "You took this paper off your profile" in html
    confirm(client, url, html)
    assert SOSP_TITLE not in _listed(db, chen)

    # A harvest finds it under her ORCID iD: known, not asked again.
    chen_now = db.get(m.Person, chen.id)
    offering = Offering(db, chen_now, person_facts(db, chen_now, None), member_index(db))
    work = HarvestedWork(source="orcid", source_key="1", title=SOSP_TITLE, year=2023,
                         doi=SOSP_DOI.upper(), authors=(HarvestedAuthor("Rong Chen"),),
                         found_by="orcid")  # fmt: skip
    result = offering.offer([work])
    assert (result.fetched, result.new, result.known) == (1, 0, 1)
    assert SOSP_TITLE not in _listed(db, chen)


def test_a_rejected_candidate_is_never_asked_again(client, db, wei, chen) -> None:  # noqa: F811
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_wei.bib").read_bytes())
    asked = next(c for c in _pending(db, chen) if c.title == SOSP_TITLE)
    login(client, "chen")
    assert (
        post(client, f"{PREFIX}/people/rong-chen/edit/found/{asked.id}/reject").status_code == 302
    )
    assert not [c for c in _pending(db, chen) if c.title == SOSP_TITLE]
    login(client, "wei")
    import_file(client, "xingda-wei", (BIB / "coauthor_chen.bib").read_bytes())
    assert not [c for c in _pending(db, chen) if c.title == SOSP_TITLE]
    assert SOSP_TITLE not in _listed(db, chen)
    # Answered once: the same URL finds nothing to answer.
    login(client, "chen")
    assert (
        post(client, f"{PREFIX}/people/rong-chen/edit/found/{asked.id}/accept").status_code == 404
    )
