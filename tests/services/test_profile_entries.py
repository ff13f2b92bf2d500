"""A profile's entries are plain values (services/shown_entries.py), read in one statement per
kind, what they link to joined; each kind's statement is built once for all the viewers who
see alike, whose profile and the viewer's own being its parameters."""

from __future__ import annotations

from datetime import date

from directory import models as m
from directory.services.identity import ANONYMOUS, Viewer
from directory.services.profiles import ProfileQuery, _load_sections, load_profile
from tests.support.statements import count_statements

TODAY = date(2026, 12, 1)


def test_the_entries_are_values_with_what_they_link_to(db, make_person, make_publication) -> None:
    ada = make_person("Ada Lovelace")
    listed = make_publication("Listed Paper", authors=(ada,), venue_short="SOSP")
    other = make_publication("Somebody Else's Paper", authors=("Grace Hopper",))
    student = make_person("Student Person", role="phd_student")
    project = m.ResearchProject(owner_id=ada.id, title="Engines", publications=[listed, other])
    db.add_all([
        project,
        m.ResearchProject(owner_id=ada.id, title="Part", parent=project, position=1),
        m.Award(owner_id=ada.id, title="Best Paper", publication_id=listed.id),
        m.Award(owner_id=ada.id, title="Medal", position=1),
        m.AdvisingRelation(owner_id=ada.id, advisor_id=ada.id, student_id=student.id),
        m.RecruitingNotice(owner_id=ada.id, level="phd", description="Join"),
        m.NewsItem(owner_id=ada.id, year=2026, body="News"),
    ])  # fmt: skip
    db.commit()
    profile = load_profile(db, ada, ANONYMOUS, TODAY)
    query = ProfileQuery(db, ada, ANONYMOUS, TODAY, listed={listed.id})
    with count_statements(db.get_bind()) as log:
        sections = _load_sections(query)
    assert len(log) == len(m.ENTRY_KINDS), log  # one statement per kind, links joined

    (top,) = profile.projects
    assert not hasattr(top, "_sa_instance_state")  # a value, not the mapped object
    assert [p.title for p in top.visible_publications] == ["Listed Paper"]  # listed only
    assert [c.title for c in top.visible_children] == ["Part"]
    assert [(a.title, a.publication and a.publication.uid) for a in profile.awards] == [
        ("Best Paper", listed.uid),
        ("Medal", None),
    ]
    (rel,) = profile.students.current_phd
    assert (rel.student.slug, rel.student_display, rel.advisor.full_name) == (
        "student-person", "Student Person", "Ada Lovelace",
    )  # fmt: skip
    (notice,) = sections["recruiting"]
    assert (notice.owner, notice.is_rolling, notice.areas) == (ada, True, [])
    assert [n.body for n in profile.news] == ["News"]


def test_a_statement_built_for_one_viewer_serves_another_with_their_own_profile(
    db, make_person
) -> None:
    """The statements are kept for each kind of viewer: the viewer's own profile is their
    parameter, never the first viewer's id kept in the statement."""
    ada, grace = make_person("Ada Lovelace"), make_person("Grace Hopper")
    db.add_all([
        m.Award(owner_id=ada.id, title="Ada's public award"),
        m.Award(owner_id=ada.id, title="Ada's private award", visibility="private", position=1),
        m.Award(owner_id=grace.id, title="Grace's private award", visibility="private"),
    ])  # fmt: skip
    db.commit()
    as_ada = Viewer(key="ada", person_id=ada.id)
    as_grace = Viewer(key="grace", person_id=grace.id)

    def awards(person: m.Person, viewer: Viewer) -> list[str]:
        return [a.title for a in load_profile(db, person, viewer, TODAY).awards]

    assert awards(ada, as_ada) == ["Ada's public award", "Ada's private award"]
    assert awards(ada, as_grace) == ["Ada's public award"]
    assert awards(grace, as_grace) == ["Grace's private award"]
    assert awards(grace, as_ada) == []
    assert awards(ada, ANONYMOUS) == ["Ada's public award"]
