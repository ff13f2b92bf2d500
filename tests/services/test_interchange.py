"""The interchange format: all-or-nothing import with every problem listed, and export →
import into an empty database reproducing the same profiles."""

from __future__ import annotations

import json

from sqlalchemy import delete, func, select

from directory import models as m
from directory.services.interchange import export_person, schema


def faculty_doc(**person) -> dict:
    return {
        "format": "faculty-directory-profile",
        "format_version": 1,
        "person": {
            "slug": "grace-hopper",
            "full_name": "Grace Hopper",
            "role": "faculty",
            "rank": "professor",
            "title": "Professor",
            "email": "grace@example.edu",
            "areas": ["Programming Languages"],
            "links": [{"kind": "scholar", "url": "https://scholar.example/grace"}],
            "bio": "Works on **compilers**.",
            **person,
        },
        "news": [{"year": 2026, "month": 7, "body": "Keynote at OSDI '26."}],
        "publications": [
            {
                "ref": "cobol",
                "title": "A Common Business Language",
                "venue_short": "CACM'59",
                "year": 1959,
                "doi": "10.1145/COBOL",
                "authors": [
                    {"name": "Grace Hopper", "person": "grace-hopper", "corresponding": True},
                    {"name": "Jean Sammet", "co_first": True},
                ],
                "links": [{"kind": "paper", "url": "https://example.org/cobol.pdf"}],
                "awards": ["Best Paper Award"],
                "badges": [{"name": "Artifacts Available", "issuer": "ACM"}],
            },
            {
                "ref": "cobol-ext",
                "title": "COBOL, Extended",
                "year": 1961,
                "type": "journal",
                "authors": [{"name": "Grace Hopper", "person": "grace-hopper"}],
                "relations": [{"kind": "extended_version_of", "target": "cobol"}],
            },
        ],
        "projects": [
            {
                "title": "Compilers",
                "publications": ["cobol"],
                "children": [{"title": "A-0", "status": "past"}],
            }
        ],
        "awards": [{"title": "华为火花奖", "year": 2022, "publication": "cobol"}],
        "advising": [
            {
                "advisor": "grace-hopper",
                "student_name": "Student One",
                "degree": "phd",
                "start_year": 2022,
            }
        ],
        "recruiting": [
            {"level": "phd", "term": "Fall 2027", "description": "Join us.", "areas": ["Systems"]}
        ],
    }


def write(tmp_path, name: str, doc) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return str(path)


def count(db, model) -> int:
    return db.scalar(select(func.count()).select_from(model))


def test_import_writes_a_complete_profile(runner, db, tmp_path) -> None:
    result = runner.invoke(
        args=["directory", "import-profile", write(tmp_path, "g.json", faculty_doc())]
    )
    assert result.exit_code == 0, result.output
    assert "Imported 1 profile(s): 1 new" in result.output
    person = db.scalar(select(m.Person).where(m.Person.slug == "grace-hopper"))
    assert person.sort_name == "Hopper, Grace"
    assert [a.name for a in person.areas] == ["Programming Languages"]
    pub = db.scalar(select(m.Publication).where(m.Publication.doi == "10.1145/cobol"))
    assert [(a.name, a.corresponding, a.co_first) for a in pub.authorships] == [
        ("Grace Hopper", True, False),
        ("Jean Sammet", False, True),
    ]
    extended = db.scalar(select(m.Publication).where(m.Publication.title == "COBOL, Extended"))
    assert [(r.kind, r.target.title) for r in extended.relations] == [
        ("extended_version_of", "A Common Business Language")
    ]
    project = db.scalar(select(m.ResearchProject).where(m.ResearchProject.title == "Compilers"))
    assert [c.title for c in project.children] == ["A-0"]
    assert [p.title for p in project.publications] == ["A Common Business Language"]


def test_invalid_files_are_refused_with_every_problem_and_nothing_written(
    runner, db, tmp_path
) -> None:
    bad = faculty_doc(role="wizard", email="not-an-email")
    bad["news"][0]["month"] = 13
    bad["projects"][0]["publications"] = ["missing-ref"]
    del bad["publications"][1]["authors"]
    good = faculty_doc(slug="ada-lovelace", full_name="Ada Lovelace")
    files = [
        write(tmp_path, "good.json", good),
        write(tmp_path, "bad.json", bad),
        write(tmp_path, "broken.json", '{"format": '),
    ]
    result = runner.invoke(args=["directory", "import-profile", *files])
    assert result.exit_code == 1
    out = result.output
    assert "Nothing was imported" in out
    assert "bad.json: $.person.role: 'wizard' is not one of" in out
    assert "bad.json: $.person.email" in out
    assert "bad.json: $.news[0].month: 13 is greater than the maximum of 12" in out
    assert "bad.json: $.publications[1]: 'authors' is a required property" in out
    assert "broken.json: $: not JSON" in out
    assert count(db, m.Person) == 0
    assert count(db, m.Publication) == 0


def test_unresolved_references_are_reported_with_their_path(runner, db, tmp_path) -> None:
    doc = faculty_doc()
    doc["projects"][0]["publications"] = ["nope"]
    doc["publications"][0]["authors"][1]["person"] = "nobody-here"
    result = runner.invoke(args=["directory", "import-profile", write(tmp_path, "g.json", doc)])
    assert result.exit_code == 1
    assert "$.projects[0].publications[0]: no publication with ref 'nope'" in result.output
    assert count(db, m.Person) == 0


def test_reimporting_the_same_file_changes_nothing(runner, db, tmp_path) -> None:
    path = write(tmp_path, "g.json", faculty_doc())
    assert runner.invoke(args=["directory", "import-profile", path]).exit_code == 0
    before = {
        model: count(db, model) for model in (m.Person, m.Publication, m.Authorship, m.NewsItem)
    }
    result = runner.invoke(args=["directory", "import-profile", path])
    assert "0 new, 1 updated" in result.output
    assert {model: count(db, model) for model in before} == before


def test_export_then_import_into_an_empty_database_reproduces_the_profiles(
    runner, db, tmp_path, demo
) -> None:
    out = tmp_path / "backup"
    result = runner.invoke(args=["directory", "export", "--all", str(out)])
    assert result.exit_code == 0, result.output
    first = {p.name: json.loads(p.read_text()) for p in sorted(out.iterdir())}
    assert len(first) >= 3

    for model in (m.ResearchArea, m.Publication, m.Person):
        db.execute(delete(model))
    db.commit()
    db.expunge_all()
    assert count(db, m.Person) == 0

    result = runner.invoke(args=["directory", "import-profile", *map(str, sorted(out.iterdir()))])
    assert result.exit_code == 0, result.output
    db.expire_all()
    again = {f"{p.slug}.json": export_person(db, p) for p in db.scalars(select(m.Person))}
    assert again == first


def test_the_owners_choices_and_the_photos_focal_point_travel_with_the_profile(
    runner, db, tmp_path, demo
) -> None:
    """Exported and imported again: the paper-list and CV choices, and the photo's focal point
    with its very bytes (a JPEG that is only an image is not encoded again on import)."""
    wei = db.scalar(select(m.Person).where(m.Person.slug == "xingda-wei"))
    wei.repeat_selected, wei.cv_sections = True, ["publications", "education"]
    wei.unpublished_in_year = True
    wei.photo.focus_x, wei.photo.focus_y = 25, 10
    db.commit()
    data = wei.photo.data
    doc = export_person(db, wei)
    assert doc["person"]["photo"]["focus"] == [25, 10]
    assert (doc["person"]["repeat_selected"], doc["person"]["cv_sections"]) == (
        True, ["publications", "education"])  # fmt: skip
    assert doc["person"]["unpublished_in_year"] is True
    path = tmp_path / "wei.json"
    path.write_text(json.dumps(doc))
    db.delete(wei)
    db.commit()
    result = runner.invoke(args=["directory", "import-profile", str(path)])
    assert result.exit_code == 0, result.output
    db.expire_all()
    wei = db.scalar(select(m.Person).where(m.Person.slug == "xingda-wei"))
    assert (wei.repeat_selected, wei.cv_sections) == (True, ["publications", "education"])
    assert wei.unpublished_in_year is True
    assert (wei.photo.focus_x, wei.photo.focus_y, wei.photo.data) == (25, 10, data)


def test_the_schema_names_the_cv_sections_the_code_knows() -> None:
    person = schema()["$defs"]["person"]["properties"]
    assert person["cv_sections"]["items"]["enum"] == [name for name, _ in m.CV_SECTIONS]
