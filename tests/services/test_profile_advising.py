"""A profile's advising (students, their other advisors, the person's own advisors) is read in
one statement, whatever the number of people: the people on both sides of each relation are
joined."""

from __future__ import annotations

from sqlalchemy.orm import Session

from directory import models as m
from directory.services.identity import ANONYMOUS
from directory.services.profiles import _advising
from tests.support.statements import count_statements


def test_advising_is_one_statement_with_each_persons_profile(db, make_person) -> None:
    advisor = make_person("Ada Lovelace")
    students = [make_person(f"Student Number{i}", role="phd_student") for i in range(3)]
    co_advisor = make_person("Grace Hopper")
    own_advisor = make_person("Charles Babbage")
    hidden = make_person("Hidden Student", role="phd_student", visibility="private")
    db.flush()
    relations = [
        m.AdvisingRelation(owner_id=advisor.id, advisor_id=advisor.id, student_id=s.id)
        for s in [*students, hidden]
    ]
    relations.append(
        m.AdvisingRelation(owner_id=co_advisor.id, advisor_id=co_advisor.id,
                           student_id=students[0].id, role="co_advisor")
    )  # fmt: skip
    relations.append(
        m.AdvisingRelation(owner_id=own_advisor.id, advisor_id=own_advisor.id,
                           student_id=advisor.id, degree="postdoc")
    )  # fmt: skip
    db.add_all(relations)
    db.commit()
    # A fresh session: the people are not in its identity map yet.
    with Session(db.get_bind()) as session:
        person = session.get(m.Person, advisor.id)
        with count_statements(db.get_bind()) as log:
            groups, co_advisors, advisors = _advising(session, person, ANONYMOUS)
            shown = [r.student.full_name for r in groups.current_phd]
            mine = [r.advisor.full_name for r in advisors]
        assert len(log) == 1, log
    assert shown == [s.full_name for s in students]  # the private student left out
    assert co_advisors == {students[0].id: ["Grace Hopper"]}
    assert mine == ["Charles Babbage"]
