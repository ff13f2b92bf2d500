"""One record per paper: author linking, duplicate rules, versions, merge and split."""

from __future__ import annotations

from sqlalchemy import select

from directory import models as m
from directory.formats.names import fold_for_matching, name_match_keys
from directory.services.publication_merge import (
    link_versions,
    merge_publications,
    split_publication,
)
from directory.services.publications import AuthorIndex, PublicationIndex


def people_index(*people: tuple[int, str, list[str], str | None]) -> AuthorIndex:
    return AuthorIndex(people)


def test_names_fold_accents_case_initials_and_order() -> None:
    assert fold_for_matching("Jörg  Müller-Lüdenscheidt") == "jorg muller ludenscheidt"
    assert name_match_keys("Wei, Xingda")["exact"] == name_match_keys("Xingda Wei")["exact"]
    assert name_match_keys("Xing-Da Wei")["exact"] == name_match_keys("Xingda Wei")["exact"]
    assert name_match_keys("X. Wei")["initials"] == "x wei"
    assert name_match_keys("John A. Smith")["short"] == "john smith"


def test_printed_names_link_through_variants_initials_and_native_name() -> None:
    index = people_index(
        (1, "Xingda Wei", ["X. Wei"], "魏星达"),
        (2, "Rong Chen", [], None),
        (3, "Jörg Müller", [], None),
    )
    assert index.match("Xingda Wei").person_id == 1
    assert index.match("Wei, Xingda").person_id == 1
    assert index.match("X. Wei").person_id == 1
    assert index.match("魏星达").person_id == 1
    assert index.match("R. Chen").person_id == 2
    assert index.match("Jorg Muller").person_id == 3  # accents do not matter
    assert index.match('J{\\"o}rg').person_id is None
    # A different given name is a different person, even with the same initial.
    assert index.match("Xiaoming Wei").person_id is None
    assert index.match("Haibo Chen").person_id is None


def test_an_ambiguous_printed_name_stays_plain_text() -> None:
    index = people_index((1, "Rong Chen", [], None), (2, "Ruo Chen", [], None))
    found = index.match("R. Chen")
    assert found.person_id is None
    assert found.ambiguous == (1, 2)
    # Written out, each name is unambiguous.
    assert index.match("Ruo Chen").person_id == 2


def add_paper(db, title, year, authors, **fields) -> m.Publication:
    pub = m.Publication(title=title, year=year, **fields)
    pub.authorships = [m.Authorship(position=i, name=name) for i, name in enumerate(authors)]
    db.add(pub)
    db.flush()
    return pub


def test_exact_identifiers_are_the_same_paper(db) -> None:
    existing = add_paper(
        db, "Mitosis", 2020, ["Xingda Wei"], doi="10.1145/1234.5678", arxiv_id="2001.00001"
    )
    index = PublicationIndex(db)
    same_doi = index.match({"title": "Other title", "doi": "10.1145/1234.5678", "authors": []})
    assert same_doi.same == existing.id and "DOI" in same_doi.reason
    same_arxiv = index.match({"title": "Something", "arxiv_id": "2001.00001", "authors": []})
    assert same_arxiv.same == existing.id
    assert index.match({"title": "x", "uid": existing.uid, "authors": []}).same == existing.id


def test_close_titles_are_only_candidates_with_year_and_surname(db) -> None:
    title = "Fast RDMA-based Transactions for Disaggregated Memory"
    existing = add_paper(db, title, 2023, ["Xingda Wei", "Rong Chen"])
    index = PublicationIndex(db)
    data = {
        "title": "Fast RDMA based transactions for disaggregated memory",
        "year": 2024,
        "authors": [{"name": "X. Wei"}],
    }
    result = index.match(data)
    assert result.same is None
    assert [c.publication_id for c in result.candidates] == [existing.id]
    assert "shared author Wei" in result.candidates[0].reason
    # Two years apart, or no shared surname: not a candidate.
    assert not index.match({**data, "year": 2021}).candidates
    assert not index.match({**data, "authors": [{"name": "Jane Doe"}]}).candidates


def test_different_dois_are_never_the_same_paper(db) -> None:
    add_paper(db, "Fast Transactions", 2023, ["Xingda Wei"], doi="10.1/a")
    index = PublicationIndex(db)
    result = index.match(
        {"title": "Fast Transactions", "year": 2023, "doi": "10.1/b", "authors": [{"name": "Wei"}]}
    )
    assert result.same is None and result.candidates == []


def test_versions_link_both_ways_once(db) -> None:
    preprint = add_paper(db, "Serverless at Scale", 2023, ["A"], arxiv_id="2301.00001")
    published = add_paper(db, "Serverless at Scale", 2024, ["A"], doi="10.1/s")
    link_versions(db, preprint, published)
    link_versions(db, preprint, published)
    assert [(r.kind, r.target_id) for r in preprint.relations] == [("preprint_of", published.id)]
    assert [(r.kind, r.target_id) for r in published.relations] == [
        ("published_version_of", preprint.id)
    ]


def test_merge_keeps_every_authorship_profile_and_link(db, make_person) -> None:
    wei = make_person("Xingda Wei")
    chen = make_person("Rong Chen")
    doe = make_person("Jane Doe")
    survivor = add_paper(db, "Mitosis", 2020, ["Xingda Wei", "Rong Chen"], doi="10.1/m")
    survivor.authorships[0].person_id = wei.id
    other = add_paper(db, "Mitosis (extended)", 2020, ["X. Wei", "Rong Chen", "Jane Doe"])
    other.authorships[1].person_id = chen.id
    other.authorships[2].person_id = doe.id
    other.links = [m.PublicationLink(kind="code", url="https://code.example", position=0)]
    other.volume = "12"
    project = m.ResearchProject(owner_id=chen.id, title="Memory", publications=[other])
    award = m.Award(owner_id=doe.id, title="Best Paper", publication=other)
    db.add_all([project, award])
    db.add_all(
        [
            m.ProfilePublication(person_id=wei.id, publication_id=survivor.id),
            m.ProfilePublication(person_id=wei.id, publication_id=other.id, selected=True),
            m.ProfilePublication(person_id=chen.id, publication_id=other.id, selected=True),
            m.ProfilePublication(person_id=doe.id, publication_id=other.id, hidden=True),
        ]
    )
    db.flush()
    other_id = other.id

    merge_publications(db, survivor, other)
    db.commit()

    assert db.get(m.Publication, other_id) is None
    assert [(a.name, a.person_id) for a in survivor.authorships] == [
        ("Xingda Wei", wei.id),
        ("Rong Chen", chen.id),
        ("Jane Doe", doe.id),  # appended: the survivor did not print her name
    ]
    rows = {
        r.person_id: r
        for r in db.scalars(
            select(m.ProfilePublication).where(m.ProfilePublication.publication_id == survivor.id)
        )
    }
    assert set(rows) == {wei.id, chen.id, doe.id}
    assert rows[chen.id].selected and rows[doe.id].hidden
    assert [link.url for link in survivor.links] == ["https://code.example"]
    assert survivor.volume == "12" and survivor.doi == "10.1/m"
    db.refresh(project)
    db.refresh(award)
    assert [p.id for p in project.publications] == [survivor.id]
    assert award.publication_id == survivor.id


def test_split_moves_chosen_people_to_a_copy(db, make_person) -> None:
    wei = make_person("Xingda Wei")
    chen = make_person("Rong Chen")
    authors = ["Xingda Wei", "Rong Chen"]
    pub = add_paper(db, "Two Papers Wrongly Joined", 2022, authors, doi="10.1/j")
    pub.authorships[0].person_id = wei.id
    pub.authorships[1].person_id = chen.id
    db.add_all(
        [
            m.ProfilePublication(person_id=wei.id, publication_id=pub.id),
            m.ProfilePublication(person_id=chen.id, publication_id=pub.id, selected=True),
        ]
    )
    db.flush()

    copy = split_publication(db, pub, [chen.id])
    db.commit()

    assert copy.title == pub.title and copy.doi is None and pub.doi == "10.1/j"
    assert [a.person_id for a in pub.authorships] == [wei.id, None]
    assert [a.person_id for a in copy.authorships] == [None, chen.id]
    row = db.get(m.ProfilePublication, (chen.id, copy.id))
    assert row is not None and row.selected
    assert db.get(m.ProfilePublication, (chen.id, pub.id)) is None
    assert db.get(m.ProfilePublication, (wei.id, pub.id)) is not None
