"""The profile and its complete list show their papers from plain values
(:mod:`directory.services.shown_papers`), not ORM objects: every paper must read the same
either way. Each paper of the display fixtures (editors, "et al.", organisations, awards in
Markdown, unpublished papers, abstracts; tests/fixtures/bibtex) and one with links, badges,
versions and co-authors whose profiles are private or unlisted renders the same citation,
Bib block, interchange data (BibTeX, JSON-LD), JSON-LD author links and API item from both,
for each kind of viewer. The department's publications page, a research area's papers, the
API's publications and a profile's manage page read them too, and the profile editor's list
its own few plain values."""

from __future__ import annotations

from dataclasses import fields

import pytest
from flask import render_template_string
from sqlalchemy import select

from directory import models as m
from directory.services import shown_papers as shown
from directory.services.department.publications import (
    PublicationFilters,
    publications_stmt,
    shown_publications,
)
from directory.services.identity import ANONYMOUS, Viewer
from directory.services.profiles import (
    EDITED_COLUMNS,
    EditedPaper,
    group_publications,
    paginate_groups,
    profile_rows,
    with_edited_papers,
)
from directory.services.publication_reads import profile_paper_page
from directory.services.publications import publication_data
from directory.services.shown_papers import shown_papers
from directory.web.api import representations as rep
from directory.web.views.papers import author_profile_urls
from tests.conftest import login
from tests.formats.test_publication_display import BIB
from tests.services.test_publication_import import import_file

CITATION = (
    '{% import "directory/_macros.html" as ui %}{{ ui.publication(pub, emphasise_id, bib=True) }}'
)


@pytest.fixture
def papers(client, db, make_person) -> tuple[m.Person, list[m.Publication], dict[str, int]]:
    owner = make_person("Xingda Wei", user_key="wei")
    make_person("Rong Chen", user_key="chen")
    private = make_person("Hidden Person", visibility="private")
    unlisted = make_person("Unlisted Person", published=False)
    delegate = make_person("Lab Manager", user_key="manager")
    db.add(m.Delegation(person_id=unlisted.id, delegate_id=delegate.id))
    login(client, "wei")
    for name in ("display.bib", "names.bib"):
        import_file(client, "xingda-wei", (BIB / name).read_bytes(), decision_all="new")
    login(client, None)
    other = m.Publication(title="The Preprint", year=2023, visibility="private")
    full = m.Publication(title="A Paper With Everything", year=2024, venue_short="OSDI",
                         doi="10.1/everything", abstract="One.\n\nTwo.")  # fmt: skip
    for i, (name, person) in enumerate(
        [("Xingda Wei", owner), ("Hidden Person", private), ("Unlisted Person", unlisted)]
        + [("Rong Chen", None)]
    ):
        full.authorships.append(m.Authorship(position=i, name=name, person=person, co_first=i == 1))
    full.links = [
        m.PublicationLink(kind="pdf", url="https://example.org/a.pdf", position=0),
        m.PublicationLink(kind="code", url="https://example.org/code", label="Code", position=1),
    ]
    full.awards = [m.PublicationAward(name="**Best** paper", position=0)]
    full.badges = [m.ArtifactBadge(name="Artifacts Available", issuer="ACM", position=0)]
    db.add_all([other, full])
    db.flush()
    full.relations = [m.PublicationRelation(kind="published_version_of", target=other)]
    db.add(m.ProfilePublication(person_id=owner.id, publication_id=full.id))
    db.commit()
    pubs = list(
        db.scalars(
            select(m.Publication)
            .join(m.ProfilePublication)
            .where(m.ProfilePublication.person_id == owner.id)
        )
    )
    assert len(pubs) > 10 and full in pubs
    ids = {"owner": owner.id, "delegate": delegate.id, "unlisted": unlisted.id}
    return owner, pubs, ids


def test_every_paper_reads_the_same_as_plain_values_as_an_object(app, db, papers) -> None:
    owner, pubs, ids = papers
    shown = shown_papers(db, [pub.id for pub in pubs])
    assert sorted(shown) == sorted(pub.id for pub in pubs)
    viewers = [
        ANONYMOUS,
        Viewer(key="wei", person_id=ids["owner"]),
        Viewer(key="manager", person_id=ids["delegate"]),  # opens the unlisted co-author
        Viewer(key="admin", is_admin=True),
    ]
    for pub in pubs:
        plain = shown[pub.id]
        assert publication_data(plain) == publication_data(pub), pub.title
        with app.test_request_context("/directory/"):
            for viewer in viewers:
                assert author_profile_urls(plain, viewer) == author_profile_urls(pub, viewer)
                assert rep.publication(plain, viewer, None) == rep.publication(pub, viewer, None)
            assert render_template_string(
                CITATION, pub=plain, emphasise_id=owner.id
            ) == render_template_string(CITATION, pub=pub, emphasise_id=owner.id), pub.title


def test_the_delegate_of_an_unlisted_co_author_is_linked_to_their_profile(app, db, papers) -> None:
    """The one access check a shown paper's author makes with a statement (is the viewer a
    delegate of an unlisted profile?) works on a plain value."""
    _owner, pubs, ids = papers
    full = next(pub for pub in pubs if pub.title == "A Paper With Everything")
    plain = shown_papers(db, [full.id])[full.id]
    with app.test_request_context("/directory/"):
        urls = author_profile_urls(plain, Viewer(key="manager", person_id=ids["delegate"]))
        assert urls[2] is not None and urls[2].endswith("/people/unlisted-person")
        assert author_profile_urls(plain, ANONYMOUS)[1:3] == [None, None]


def test_each_plain_value_takes_its_columns_by_name() -> None:
    """The values are built from rows positionally: each class's fields start with the very
    columns its statement selects, in that order (a column added to one and not the other
    would shift every value after it)."""
    for kind, columns in (
        (shown.ShownPaper, shown.PAPER_COLUMNS),
        (shown.ShownPerson, shown.PERSON_COLUMNS),
        (shown.ShownAuthor, shown.AUTHOR_COLUMNS),
        (shown.ShownTarget, shown.TARGET_COLUMNS),
    ):
        names = [f.name for f in fields(kind)]
        assert names[: len(columns)] == list(columns), kind.__name__


def test_the_department_list_shows_the_same_papers_in_the_same_order(app, db, papers) -> None:
    """The department's publications page reads its page of papers as plain values
    (:func:`shown_publications`): the same papers, in the same order, with the same citation
    data, as the statement of objects its exports read, for each kind of viewer and filter."""
    owner, _pubs, ids = papers
    viewers = [
        ANONYMOUS,
        Viewer(key="wei", person_id=ids["owner"]),
        Viewer(key="admin", is_admin=True),
    ]
    chosen = [
        PublicationFilters(),
        PublicationFilters(person=owner.slug, page=2),
        PublicationFilters(year=2024),
        PublicationFilters(type="article"),
    ]
    for viewer in viewers:
        for filters in chosen:
            objects = db.scalars(publications_stmt(viewer, filters).limit(6).offset(3)).all()
            plain = shown_publications(db, viewer, filters, 6, 3)
            assert [p.uid for p in plain] == [p.uid for p in objects], filters
            assert [publication_data(p) for p in plain] == [publication_data(p) for p in objects]
    assert len(shown_publications(db, ANONYMOUS, PublicationFilters(person=owner.slug), 6, 3)) == 6
    assert shown_publications(db, ANONYMOUS, PublicationFilters(year=1901), 6) == []


def test_the_manage_page_lists_the_same_rows_in_the_same_order(app, db, papers) -> None:
    """The manage page reads its page of a profile's papers as plain values
    (:func:`profile_paper_page`): the same rows, in the same order (newest first, hidden ones
    too), with the same flags and citation data, as the profile's rows read as objects."""
    owner, pubs, _ids = papers
    rows = db.scalars(
        select(m.ProfilePublication).where(m.ProfilePublication.person_id == owner.id)
    ).all()
    for i, row in enumerate(rows):
        row.selected, row.hidden = i % 3 == 0, i % 4 == 1
        row.position = i % 2  # papers of a year in the owner's order, then by id
    db.flush()
    objects = db.scalars(
        select(m.ProfilePublication)
        .join(m.Publication)
        .where(m.ProfilePublication.person_id == owner.id)
        .order_by(m.Publication.year.desc().nulls_last(), m.ProfilePublication.position)
        .order_by(m.Publication.id)
    ).all()
    size, seen = 5, []
    for number in range(1, -(-len(objects) // size) + 2):
        page = profile_paper_page(db, owner, number, size)
        expected = objects[(number - 1) * size : number * size]
        assert [(r.publication.uid, r.selected, r.hidden) for r in page] == [
            (r.publication.uid, r.selected, r.hidden) for r in expected
        ]
        assert [publication_data(r.publication) for r in page] == [
            publication_data(r.publication) for r in expected
        ]
        seen += page
    assert len(seen) == len(objects) == len(pubs) and any(r.hidden for r in seen)


def test_the_editor_lists_each_paper_as_its_objects_read(db, papers) -> None:
    """The profile editor's list reads its page of papers as plain values
    (:func:`with_edited_papers`): each row, in the page's order, has the flag and the paper's
    values of the profile's row read as an object."""
    owner, _pubs, _ids = papers
    objects = {
        row.publication_id: row
        for row in db.scalars(
            select(m.ProfilePublication).where(m.ProfilePublication.person_id == owner.id)
        )
    }
    next(iter(objects.values())).hidden = True
    db.flush()
    groups = group_publications(profile_rows(db, m.ProfilePublication.person_id == owner.id))
    page = paginate_groups(groups, 2, 4)
    order = [row.publication_id for group in page.groups for row in group.items]
    with_edited_papers(db, owner, page.groups)
    shown = [row for group in page.groups for row in group.items]
    assert [row.publication_id for row in shown] == order and len(order) == 4
    for row in shown:
        stored = objects[row.publication_id]
        assert row.hidden == stored.hidden
        assert {name: getattr(row.publication, name) for name in EDITED_COLUMNS} == {
            name: getattr(stored.publication, name) for name in EDITED_COLUMNS
        }
    assert [f.name for f in fields(EditedPaper)] == list(EDITED_COLUMNS)
    every = paginate_groups(groups, 1, len(objects))
    with_edited_papers(db, owner, every.groups)
    assert any(row.hidden for group in every.groups for row in group.items)
