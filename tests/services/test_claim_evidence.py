"""Evidence and score on the cases that fool names: two members with one name, a common name
on a stranger's paper, initials only, a name in Chinese script, a paper before the degree.
Works are fed as the sources' parsers give them (HarvestedWork: plain input)."""

from __future__ import annotations

from directory import models as m
from directory.formats.harvest.works import HarvestedAuthor, HarvestedWork
from directory.services.claims.evidence import (
    LIKELY,
    evidence_text,
    member_index,
    person_facts,
    score_work,
)
from directory.services.claims.queue import Offering

INSTITUTION = "Example University"


def _work(*authors: HarvestedAuthor | str, found_by: str = "name", **values) -> HarvestedWork:
    people = tuple(a if isinstance(a, HarvestedAuthor) else HarvestedAuthor(a) for a in authors)
    values.setdefault("title", "A Study of Something")
    values.setdefault("year", 2022)
    return HarvestedWork(source=values.pop("source", "openalex"), source_key="W1",
                         authors=people, found_by=found_by, **values)  # fmt: skip


def _score(db, person, work):
    scored = score_work(work, person_facts(db, person, INSTITUTION), member_index(db))
    return scored, [evidence_text(r) for r in scored.evidence]


def test_a_common_name_on_a_strangers_paper_is_weak_evidence(db, make_person) -> None:
    yang = make_person("Yang Liu")
    stranger = _work("Yang Liu", "Wolfgang Keller", venue="Journal of Soil Chemistry",
                     source="crossref")  # fmt: skip
    scored, words = _score(db, yang, stranger)
    assert scored.score < LIKELY and not scored.likely
    assert words == ["your name as written: Yang Liu"]
    # The same name on a paper with a department co-author, her affiliation and her ORCID
    # record behind it is hers.
    make_person("Danyang Zhuo")
    own = _work(HarvestedAuthor("Yang Liu", affiliations=(INSTITUTION,)), "Danyang Zhuo",
                found_by="orcid")  # fmt: skip
    scored, words = _score(db, yang, own)
    assert scored.likely
    assert words == ["found in your ORCID record", "your name as written: Yang Liu",
                     "co-authored with Danyang Zhuo", f"affiliation: {INSTITUTION}"]  # fmt: skip


def test_two_members_with_one_name_are_each_told_of_the_other(db, make_person) -> None:
    first = make_person("Yang Liu")
    second = make_person("Yang Liu", slug="yang-liu-2", role="phd_student")
    scored, words = _score(db, first, _work("Yang Liu"))
    assert words == ["your name as written: Yang Liu",
                     "the same name is another member's too (Yang Liu)"]  # fmt: skip
    assert scored.score < LIKELY
    # Under her own ORCID iD, an author carrying it: hers, not her namesake's.
    second.orcid = "0000-0002-1825-0097"
    db.commit()
    by_id = _work(HarvestedAuthor("Yang Liu", orcid="https://orcid.org/0000-0002-1825-0097"),
                  found_by="orcid")  # fmt: skip
    assert _score(db, second, by_id)[0].likely
    assert "an author carries your ORCID iD (Yang Liu)" in _score(db, second, by_id)[1]
    # For her namesake the same work carries no identifier of theirs: only the shared name.
    assert not any("ORCID iD" in words for words in _score(db, first, by_id)[1])


def test_initials_only_weigh_less_than_the_name_in_full(db, make_person) -> None:
    wei = make_person("Xingda Wei")
    full, _ = _score(db, wei, _work("Xingda Wei"))
    initials, words = _score(db, wei, _work("X. Wei"))
    assert initials.score < full.score
    assert words == ["only your initials match: X. Wei"]


def test_a_name_in_chinese_script_is_the_persons_native_name(db, make_person) -> None:
    wei = make_person("Xingda Wei", native_name="魏星达")
    scored, words = _score(db, wei, _work("魏星达", "Someone Else"))
    assert words == ["your name as written: 魏星达"]
    # A name in Chinese script that is not hers tells nothing for her.
    _, other = _score(db, wei, _work("魏星", "Someone Else"))
    assert other == ["none of its authors has your name"]


def test_a_paper_before_the_first_degree_counts_against(db, make_person) -> None:
    yang = make_person("Yang Liu")
    db.add(m.Education(owner_id=yang.id, degree="BSc", institution="X", start_year=2012,
                       end_year=2016, position=0))  # fmt: skip
    db.commit()
    scored, words = _score(db, yang, _work("Yang Liu", year=1998, found_by="openalex"))
    assert "published in 1998, before your first degree (2012)" in words
    assert scored.score < LIKELY
    after, _ = _score(db, yang, _work("Yang Liu", year=2018, found_by="openalex"))
    assert after.score > scored.score


def test_offering_writes_candidates_once_and_a_rerun_writes_nothing(db, make_person) -> None:
    yang = make_person("Yang Liu")
    works = [_work("Yang Liu", title=f"Paper number {i}", doi=f"10.1234/p{i}") for i in range(3)]
    offering = Offering(db, yang, person_facts(db, yang, INSTITUTION), member_index(db))
    first = offering.offer(works)
    assert (first.fetched, first.new, first.known) == (3, 3, 0)
    db.commit()
    again = Offering(db, yang, person_facts(db, yang, INSTITUTION), member_index(db))
    second = again.offer(works)
    assert (second.fetched, second.new, second.known) == (3, 0, 3)
    assert db.query(m.ClaimCandidate).count() == 3
