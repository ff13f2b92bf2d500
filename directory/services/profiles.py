"""Assembling a person's profile for display: every section, filtered by what the viewer may
see, in a fixed number of queries whatever the profile's size."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cache
from itertools import groupby
from typing import Any

from sqlalchemy import Date, and_, bindparam, or_, select
from sqlalchemy.orm import Session, aliased, joinedload, selectinload

from directory import models as m
from directory.models.vocabularies import N_
from directory.services.access import (
    advising_visible,
    listed_notices,
    listed_on_profile,
    listed_people,
    visibility_clause,
)
from directory.services.identity import Viewer
from directory.services.interchange import profile_publication_order
from directory.services.paging import PageSpan
from directory.services.shown_cards import CardArea
from directory.services.shown_entries import (
    entry_columns,
    entry_select,
    link_columns,
    shown_entries,
    with_parts,
)
from directory.services.shown_papers import ShownPaper, ShownPerson, ShownTarget, shown_papers


@dataclass
class PublicationGroup:
    heading: str
    items: list[Any]
    #: The heading began on the page before (on a page of the complete list).
    continued: bool = False


@dataclass
class StudentGroups:
    current_phd: list[Any] = field(default_factory=list)
    current_masters: list[Any] = field(default_factory=list)
    current_other: list[Any] = field(default_factory=list)
    past: list[Any] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.current_phd or self.current_masters or self.current_other or self.past)


@dataclass
class Profile:
    """Everything a profile page shows: the person, their papers, and each declared entry
    kind's part (:data:`LOADERS`; read as attributes: ``profile.awards``,
    ``profile.internships``)."""

    person: m.Person
    publications: list[PublicationGroup]
    selected_publications: list[Any]
    #: Each entry kind's part of the page, by the names its loader gives them.
    sections: dict[str, Any] = field(default_factory=dict)
    publication_count: int = 0
    #: Listed papers the page leaves out when it is folded (they are on the complete list).
    folded_publications: int = 0
    #: Ids of the papers the page shows (a project's or award's link to a folded paper goes
    #: to the paper's own page instead of an anchor on this one).
    shown_publication_ids: set[int] = field(default_factory=set)

    def __getattr__(self, name: str) -> Any:
        sections = self.__dict__.get("sections", {})
        if name in sections:
            return sections[name]
        raise AttributeError(name)

    def entries(self, kind: str) -> list[Any]:
        """The entries of ``kind`` the page shows, as one list in the page's order."""
        return FLAT_ENTRIES.get(kind, lambda p: p.sections[kind])(self)


#: The parameters of the statements of a profile's entries (:func:`_statement`): whose
#: profile, the viewer's own profile (its id) and the day.
_PERSON = bindparam("person_id")
_VIEWER = bindparam("viewer_id")
_TODAY = bindparam("today", type_=Date)


def _parameters(person: m.Person, viewer: Viewer, today: date | None = None) -> dict[str, Any]:
    """The values of the parameters of :func:`_statement`."""
    return {"person_id": person.id, "viewer_id": viewer.person_id, "today": today}


def _statement(model: Any, viewer: Viewer) -> Any:
    """The statement of a profile's entries of ``model`` that ``viewer`` may see, as values
    (:mod:`~directory.services.shown_entries`) in the owner's order: the clauses of
    :data:`_SHOWN` (by default :func:`_own`) on the columns of :func:`_joined` (by default
    the entries' own). Built once for all the viewers who see what ``viewer`` sees (the same
    visibility levels; a profile of their own or none), whose profile, the viewer's and the
    day being its parameters (:func:`_parameters`): building a statement of some twenty
    columns and its cache key costs more than running it."""
    return _built(model, (viewer.is_authenticated, viewer.person_id is not None,
                          viewer.is_admin, viewer.is_chair))  # fmt: skip


@cache
def _built(model: Any, kind: tuple[bool, bool, bool, bool]) -> Any:
    authenticated, own_profile, is_admin, is_chair = kind
    # The access rules read a viewer: this one's profile is the parameter.
    viewer = Viewer(key="viewer" if authenticated else None,
                    person_id=_VIEWER if own_profile else None,  # type: ignore[arg-type]
                    is_admin=is_admin, is_chair=is_chair)  # fmt: skip
    base = _joined().get(model)
    if base is None:
        base = entry_select(model).order_by(model.position, model.id)
    return base.where(*_SHOWN.get(model, _own)(model, viewer))


def editor_entries(session: Session, person: m.Person) -> dict[str, list[Any]]:
    """Every entry of ``person``'s profile, by kind, whatever its visibility, in the owner's
    order: what their editing page lists (its summaries, states and buttons), as values
    (:mod:`~directory.services.shown_entries`), an advising relation with the people on both
    sides. One statement per kind, built once; the editor changes an entry as an object, on
    its own page."""
    given = {"person_id": person.id}
    return {
        kind.name: shown_entries(
            session,
            kind.model,
            _editor_statement(kind.model),
            given,
            *(_ADVISING_LINKS if kind.model is m.AdvisingRelation else ()),
        )  # fmt: skip
        for kind in m.ENTRY_KINDS.values()
    }


@cache
def _editor_statement(model: Any) -> Any:
    """Every entry of ``model`` of the profile ``_PERSON``: an advising relation with its
    people (as :func:`_joined` reads them), any other kind's own columns."""
    if model is m.AdvisingRelation:
        base = _joined()[model]
    else:
        base = entry_select(model).order_by(model.position, model.id)
    return base.where(model.owner_id == _PERSON)


def _own(model: Any, viewer: Viewer) -> tuple[Any, ...]:
    """A profile's entries of ``model`` that ``viewer`` may see."""
    return model.owner_id == _PERSON, visibility_clause(viewer, model)


def _listed_notices(notice: Any, viewer: Viewer) -> tuple[Any, ...]:
    """A profile's notices as on the recruiting page: none on an alumnus's profile."""
    return notice.owner_id == _PERSON, listed_notices(viewer, _TODAY)


def _shown_advising(advising: Any, viewer: Viewer) -> tuple[Any, ...]:
    """The relations naming the profile's person on either side and the other relations of
    the person's students, those ``viewer`` may see, confirmed by both sides or entered by
    the viewer (:func:`_advising` leaves out those linking a profile the viewer may not
    see)."""

    def shown(relation: Any) -> Any:
        confirmed_or_own = or_(
            and_(relation.advisor_confirmed, relation.student_confirmed),
            relation.owner_id == viewer.person_id if viewer.person_id is not None else False,
        )
        return and_(visibility_clause(viewer, relation), confirmed_or_own)

    students = select(_MINE.student_id).where(_MINE.advisor_id == _PERSON, shown(_MINE))
    others_of_students = and_(
        advising.student_id.in_(students),
        or_(advising.advisor_id.is_(None), advising.advisor_id != _PERSON),
    )
    mine = or_(advising.advisor_id == _PERSON, advising.student_id == _PERSON)
    return shown(advising), or_(mine, others_of_students)


#: The people on the two sides of an advising relation (tables, as for the entries' columns).
_ADVISOR = m.Person.__table__.alias("advisor")
_STUDENT = m.Person.__table__.alias("student")
#: What an advising relation's values carry of its people (the columns :func:`_joined` adds).
_ADVISING_LINKS = (("advisor", ShownPerson), ("student", ShownPerson))
#: The profile's person's relations as advisor, in the statement of their students' others.
_MINE = aliased(m.AdvisingRelation, name="mine")


@cache
def _joined() -> dict[Any, Any]:
    """The columns of the kinds whose entries link to other rows, by model: the entries'
    (:func:`~directory.services.shown_entries.entry_columns`), then each linked row's,
    outer-joined, in the entries' order and each entry's links' order."""
    project, notice, award, advising = (
        m.ResearchProject, m.RecruitingNotice, m.Award, m.AdvisingRelation
    )  # fmt: skip
    paper, area = m.Publication.__table__, m.ResearchArea.__table__
    papers, areas = m.project_publications, m.notice_areas
    return {
        # Each project's papers in the relationship's order, by year.
        project: select(*entry_columns(project), *link_columns(paper, ShownTarget))
        .outerjoin(papers, papers.c.project_id == project.id)
        .outerjoin(paper, paper.c.id == papers.c.publication_id)
        .order_by(project.position, project.id, paper.c.year, paper.c.id),
        # Each notice's areas in the relationship's order, by name.
        notice: select(*entry_columns(notice), *link_columns(area, CardArea))
        .outerjoin(areas, areas.c.notice_id == notice.id)
        .outerjoin(area, area.c.id == areas.c.area_id)
        .order_by(notice.position, notice.id, area.c.name, area.c.id),
        # The paper an award was given for.
        award: select(*entry_columns(award), *link_columns(paper, ShownTarget))
        .outerjoin(paper, paper.c.id == award.publication_id)
        .order_by(award.position, award.id),
        # The people on both sides of an advising relation.
        advising: select(
            *entry_columns(advising),
            *link_columns(_ADVISOR, ShownPerson),
            *link_columns(_STUDENT, ShownPerson),
        )
        .outerjoin(_ADVISOR, _ADVISOR.c.id == advising.advisor_id)
        .outerjoin(_STUDENT, _STUDENT.c.id == advising.student_id)
        .order_by(advising.position, advising.id),
    }


def _projects(session: Session, person: m.Person, viewer: Viewer, listed: set[int]) -> list[Any]:
    """Top-level projects; each gets ``visible_children`` (recursively) and
    ``visible_publications`` (those of its papers the profile lists: ``listed`` ids) so that
    templates never touch unfiltered relationships. One statement, the papers joined."""
    project = m.ResearchProject
    stmt, given = _statement(project, viewer), _parameters(person, viewer)
    # Every paper of each project, then only those the profile lists.
    rows = with_parts(session, project, stmt, given, "visible_publications", ShownTarget)
    by_parent: dict[int | None, list[Any]] = defaultdict(list)
    ids = {p.id for p in rows}
    for project in rows:
        by_parent[project.parent_id if project.parent_id in ids else None].append(project)
    for project in rows:
        project.visible_children = by_parent.get(project.id, [])
        project.visible_publications = [p for p in project.visible_publications if p.id in listed]
    return by_parent.get(None, [])


def publication_options() -> list[Any]:
    return [
        selectinload(m.Publication.authorships).selectinload(m.Authorship.person),
        selectinload(m.Publication.links),
        selectinload(m.Publication.awards),
        selectinload(m.Publication.badges),
        selectinload(m.Publication.relations).selectinload(m.PublicationRelation.target),
    ]


def profile_publications(session: Session, person: m.Person, viewer: Viewer) -> list[Any]:
    """The person's publications (their ProfilePublication rows) that ``viewer`` finds listed
    (:func:`~directory.services.access.listed_on_profile`), newest first, each paper with
    its authors, links, awards and relations. Also what the person's exports hold. A page that
    shows only some of them counts, groups and folds :func:`listed_rows` instead."""
    stmt = (
        select(m.ProfilePublication)
        .join(m.Publication)
        .where(listed_on_profile(viewer, person))
        .options(selectinload(m.ProfilePublication.publication).options(*publication_options()))
        .order_by(*profile_publication_order())
    )
    return list(session.scalars(stmt))


@dataclass(slots=True)
class ListedPaper:
    """What grouping a profile's papers reads of a paper (:func:`group_publications`)."""

    year: int | None
    status: str | None


@dataclass(slots=True)
class ListedRow:
    """A listed ProfilePublication row as plain values: enough to count, group, fold and page
    a profile's papers (:func:`group_publications` reads nothing else) without building an
    ORM object for each of them. :func:`with_details` fills in the papers of the rows shown
    (a :class:`~directory.services.shown_papers.ShownPaper` each). Not frozen: a frozen
    dataclass sets each field through ``object.__setattr__``, three times the cost of a
    profile's thousand rows; nothing changes them."""

    publication_id: int
    selected: bool
    section: str | None
    position: int
    publication: ListedPaper | ShownPaper


def listed_rows(session: Session, person: m.Person, viewer: Viewer) -> list[ListedRow]:
    """The rows of :func:`profile_publications`, in its order, as :class:`ListedRow` values:
    one statement of six columns, however many papers the person lists."""
    return profile_rows(session, listed_on_profile(viewer, person))


def profile_rows(session: Session, where: Any) -> list[ListedRow]:
    """ProfilePublication rows meeting ``where`` (a clause on them and their Publication), in
    the profile's order, as :class:`ListedRow` values."""
    pp, pub = m.ProfilePublication, m.Publication
    stmt = (
        select(pp.publication_id, pp.selected, pp.section, pp.position, pub.year, pub.status)
        .select_from(pp)
        .join(pub, pub.id == pp.publication_id)
        .where(where)
        .order_by(*profile_publication_order())
    )
    # On the session's connection: plain columns need none of the ORM's work on their rows.
    return [
        ListedRow(pub_id, selected, section, position, ListedPaper(year, status))
        for pub_id, selected, section, position, year, status in session.connection().execute(stmt)
    ]


def with_details(
    session: Session, person: m.Person, groups: list[PublicationGroup]
) -> list[PublicationGroup]:
    """``groups`` of :class:`ListedRow` with each row's paper filled in for display: a fixed
    number of statements for the rows shown, whatever the person's number of papers. Each
    row's ``publication`` becomes a :class:`~directory.services.shown_papers.ShownPaper`:
    everything a citation shows, as plain values (a page shows up to a hundred papers, with
    some four authors each: as ORM objects, their building was a third of the page's time)."""
    papers = shown_papers(session, {row.publication_id for g in groups for row in g.items})
    for group in groups:
        group.items = [replace(row, publication=papers[row.publication_id]) for row in group.items]
    return groups


@dataclass(slots=True)
class EditedPaper:
    """What the profile editor's list shows of a paper (and the version its ↑, ↓ and Remove
    buttons send)."""

    id: int
    title: str
    year: int | None
    venue_short: str | None
    visibility: str
    version: int


#: The columns of :class:`EditedPaper`, in its order.
EDITED_COLUMNS = ("id", "title", "year", "venue_short", "visibility", "version")


@dataclass(slots=True)
class EditedRow:
    """A paper of the profile editor's list: whether the profile hides it, and the paper."""

    publication_id: int
    hidden: bool
    publication: EditedPaper


def with_edited_papers(
    session: Session, person: m.Person, groups: list[PublicationGroup]
) -> list[PublicationGroup]:
    """``groups`` of :class:`ListedRow` with each row replaced by an :class:`EditedRow` of
    ``person``'s profile: one statement of plain columns for the rows shown (the editor's page
    only reads them; its buttons post to the operations, which load what they change)."""
    ids = {row.publication_id for group in groups for row in group.items}
    found: dict[int, EditedRow] = {}
    if ids:
        pp, pub = m.ProfilePublication, m.Publication
        stmt = (
            select(pp.publication_id, pp.hidden, *(getattr(pub, f) for f in EDITED_COLUMNS))
            .join(pub, pub.id == pp.publication_id)
            .where(pp.person_id == person.id, pp.publication_id.in_(ids))
        )
        found = {
            pub_id: EditedRow(pub_id, hidden, EditedPaper(*paper))
            for pub_id, hidden, *paper in session.connection().execute(stmt)
        }
    for group in groups:
        group.items = [found[row.publication_id] for row in group.items]
    return groups


@dataclass
class PaperPage(PageSpan):
    """One page of a person's complete list of papers, under the profile's headings."""

    groups: list[PublicationGroup]
    number: int
    pages: int
    total: int
    size: int
    #: The page number asked for when there is no such page (the last page is shown).
    requested: int | None = None


def paper_page(
    session: Session, person: m.Person, viewer: Viewer, number: int, size: int
) -> PaperPage:
    """Page ``number`` (``size`` papers each) of ``person``'s listed papers in the order and
    under the headings of the profile (:func:`group_publications`); a heading continued from
    the page before says so. A page past the last shows the last. Only the papers of the page
    are loaded as objects (:func:`with_details`)."""
    rows = listed_rows(session, person, viewer)
    groups = group_publications(rows, unpublished_in_year=person.unpublished_in_year)
    page = paginate_groups(groups, number, size)
    with_details(session, person, page.groups)
    return page


def paginate_groups(groups: list[PublicationGroup], number: int, size: int) -> PaperPage:
    """Page ``number`` of ``size`` items of ``groups``, headings kept (one continued from the
    page before says so); a page past the last gives the last."""
    in_order = [(group.heading, row) for group in groups for row in group.items]
    pages = max(1, -(-len(in_order) // size))
    requested = number if number > pages else None
    number = min(number, pages)
    start = (number - 1) * size
    shown = in_order[start : start + size]
    groups = []
    for index, (heading, row) in enumerate(shown):
        if not groups or groups[-1].heading != heading:
            continued = index == 0 and start > 0 and in_order[start - 1][0] == heading
            groups.append(PublicationGroup(heading, [], continued=continued))
        groups[-1].items.append(row)
    return PaperPage(groups, number, pages, len(in_order), size, requested)


def fold_publications(
    groups: list[PublicationGroup], limit: int
) -> tuple[list[PublicationGroup], int]:
    """The first ``limit`` papers of ``groups`` (in order, headings kept), and how many were
    left out."""
    kept: list[PublicationGroup] = []
    room = limit
    for group in groups:
        if room <= 0:
            break
        kept.append(PublicationGroup(group.heading, group.items[:room]))
        room -= len(kept[-1].items)
    return kept, sum(len(g.items) for g in groups) - sum(len(g.items) for g in kept)


#: Papers not yet published are listed under their status, ahead of the years.
STATUS_HEADINGS = {
    "under_review": N_("Under review"),
    "in_preparation": N_("In preparation"),
    "preprint": N_("Preprints"),
}
SELECTED = N_("Selected")
#: The heading of papers without a year.
UNDATED = N_("Undated")


def listing_heading(row: Any, unpublished_in_year: bool = False) -> str:
    """The heading of a profile's paper list that ``row`` (a ProfilePublication) is shown under,
    once: "Selected", the owner's own section, its status when not yet published (its year
    instead when it has one and the owner chose ``unpublished_in_year``,
    ``Person.unpublished_in_year``), else its year."""
    if row.selected:
        return SELECTED
    return _heading_below(row, unpublished_in_year)


def _heading_below(row: Any, unpublished_in_year: bool = False) -> str:
    """The heading of ``row`` among the papers below the selected ones."""
    if row.section:
        return row.section
    status = row.publication.status
    if status in STATUS_HEADINGS and not (unpublished_in_year and row.publication.year):
        return STATUS_HEADINGS[status]
    return year_heading(row.publication)


def year_heading(pub: Any) -> str:
    """The year a paper is filed under; without one, its status when it is not published
    ("Accepted"), else "Undated"."""
    if pub.year:
        return str(pub.year)
    if pub.status in STATUS_HEADINGS:
        return STATUS_HEADINGS[pub.status]
    if pub.status and pub.status != "published":
        return m.label(m.PUBLICATION_STATUSES, pub.status)
    return UNDATED


def group_publications(
    rows: list[Any], repeat_selected: bool = False, unpublished_in_year: bool = False
) -> list[PublicationGroup]:
    """A profile's papers (in :func:`profile_publications` order) under their headings:
    selected papers first in the owner's order, then those under review and the preprints
    (in their year instead with ``unpublished_in_year``, the owner's choice), then each year,
    newest first, then the owner's own sections; within a heading, the owner's order
    (``position``), then newest first. Each paper is listed once unless ``repeat_selected``
    (the owner's choice, ``Person.repeat_selected``): then each selected paper is listed again
    under its heading below, ahead of that heading's other papers and in the selected papers'
    order."""
    by_heading: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        by_heading[listing_heading(row, unpublished_in_year)].append(row)
    repeated: dict[str, list[Any]] = defaultdict(list)
    if repeat_selected:
        for row in sorted(by_heading.get(SELECTED, []), key=lambda r: r.position):
            below = _heading_below(row, unpublished_in_year)
            repeated[below].append(row)
            by_heading.setdefault(below, [])
    statuses = list(STATUS_HEADINGS.values())
    sections = list(
        dict.fromkeys(
            row.section for row in rows if row.section and (repeat_selected or not row.selected)
        )
    )

    def rank(heading: str) -> tuple:
        if heading == SELECTED:
            return (0, 0)
        if heading in sections:
            return (3, sections.index(heading))
        if heading in statuses:
            return (1, statuses.index(heading))
        return (2, -int(heading) if heading.isdigit() else 1)

    return [
        PublicationGroup(
            heading,
            repeated.get(heading, []) + sorted(by_heading[heading], key=lambda r: r.position),
        )
        for heading in sorted(by_heading, key=rank)
    ]


def _advising(session: Session, person: m.Person, viewer: Viewer) -> tuple[Any, Any, Any]:
    """Students of ``person``, their other advisors, and ``person``'s own advisors; a
    relation linking a profile the viewer may not see is left out of all three
    (:func:`directory.services.access.advising_visible`). One statement
    (:func:`_shown_advising`): the relations naming ``person`` on either side and the other
    relations of ``person``'s students, each with the people on both sides joined
    (``advisor`` and ``student``, plain values)."""
    advising = m.AdvisingRelation
    stmt, given = _statement(advising, viewer), _parameters(person, viewer)
    relations = shown_entries(session, advising, stmt, given, *_ADVISING_LINKS)
    as_advisor = [rel for rel in relations if rel.advisor_id == person.id]
    student_ids = {rel.student_id for rel in as_advisor if rel.student_id}
    co_advisors: dict[int, list[str]] = defaultdict(list)
    for rel in relations:
        # A department co-advisor's name only if their profile is visible (an external
        # name, typed in, stays).
        other_advisor = rel.student_id in student_ids and rel.advisor_id != person.id
        if other_advisor and advising_visible(viewer, rel):
            co_advisors[rel.student_id].append(rel.advisor_display)
    groups = StudentGroups()
    for rel in as_advisor:
        if not advising_visible(viewer, rel):
            continue
        if rel.status != "current":
            groups.past.append(rel)
        elif rel.degree == "phd":
            groups.current_phd.append(rel)
        elif rel.degree == "masters":
            groups.current_masters.append(rel)
        else:
            groups.current_other.append(rel)
    groups.past.sort(key=lambda r: (-(r.end_year or 0), r.position))
    advisors = [
        rel for rel in relations if rel.student_id == person.id and advising_visible(viewer, rel)
    ]
    return groups, dict(co_advisors), advisors


def _service_groups(rows: list[Any]) -> list[tuple[str, list[tuple[int | None, list]]]]:
    """Service grouped by kind (in vocabulary order), then by year, newest first."""
    order = {kind: i for i, kind in enumerate(m.values(m.SERVICE_KINDS))}
    result = []
    by_kind: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        by_kind[row.kind].append(row)
    for kind in sorted(by_kind, key=lambda k: order.get(k, 99)):
        items = sorted(by_kind[kind], key=lambda s: -(s.year or 0))
        years = [(year, list(group)) for year, group in groupby(items, key=lambda s: s.year)]
        result.append((kind, years))
    return result


@dataclass(frozen=True)
class ProfileQuery:
    """What an entry kind's loader reads: whose profile, for whom, on which day, and the ids
    of the papers the profile lists."""

    session: Session
    person: m.Person
    viewer: Viewer
    today: date
    listed: set[int]

    def entries(self, model: Any, *links: tuple[str, type]) -> list[Any]:
        """The person's entries of ``model`` the viewer may see, in order, as plain values
        (with ``links``, those :func:`_joined` joins: see
        :func:`~directory.services.shown_entries.shown_entries`)."""
        stmt, given = _statement(model, self.viewer), self.parameters
        return shown_entries(self.session, model, stmt, given, *links)

    @property
    def parameters(self) -> dict[str, Any]:
        return _parameters(self.person, self.viewer, self.today)


def _experience(q: ProfileQuery) -> dict[str, Any]:
    rows = q.entries(m.Experience)
    return {"experience": [e for e in rows if e.kind == "job"],
            "internships": [e for e in rows if e.kind != "job"]}  # fmt: skip


def _advising_sections(q: ProfileQuery) -> dict[str, Any]:
    students, co_advisors, advisors = _advising(q.session, q.person, q.viewer)
    return {"students": students, "co_advisors": co_advisors, "advisors": advisors}


def _recruiting(q: ProfileQuery) -> dict[str, Any]:
    # The same notices as on the recruiting page (:func:`_listed_notices`). The areas are
    # joined, not selected afterwards, so the page costs the same statements with or without.
    notice = m.RecruitingNotice
    stmt = _statement(notice, q.viewer)
    notices = with_parts(q.session, notice, stmt, q.parameters, "areas", CardArea)
    for each in notices:
        each.owner = q.person
    return {"recruiting": notices}


#: Which of a profile's entries of a kind are read, where it is not :func:`_own`.
_SHOWN: dict[Any, Callable[[Any, Viewer], tuple[Any, ...]]] = {
    m.RecruitingNotice: _listed_notices,
    m.AdvisingRelation: _shown_advising,
}


#: How a kind's part of the profile is loaded, where it is more than its entries the viewer
#: may see in the owner's order (every other declared kind: ``profile.<kind>``, that list).
LOADERS: dict[str, Callable[[ProfileQuery], dict[str, Any]]] = {
    "experience": _experience,
    "projects": lambda q: {"projects": _projects(q.session, q.person, q.viewer, q.listed)},
    "service": lambda q: {"service": _service_groups(q.entries(m.Service))},
    "advising": _advising_sections,
    "recruiting": _recruiting,
    # Each with the paper it was given for (``publication``).
    "awards": lambda q: {"awards": q.entries(m.Award, ("publication", ShownTarget))},
}

#: A kind's entries as one list in the page's order, where its part of the profile is more
#: than that list (see :meth:`Profile.entries`).
FLAT_ENTRIES: dict[str, Callable[[Profile], list[Any]]] = {
    "projects": lambda p: p.projects,
    "experience": lambda p: p.experience + p.internships,
    "service": lambda p: [item for _, years in p.service for _, items in years for item in items],
}


def _load_sections(q: ProfileQuery) -> dict[str, Any]:
    """Every declared kind's part of the profile (:data:`LOADERS`)."""
    sections: dict[str, Any] = {}
    for kind in m.ENTRY_KINDS.values():
        loader = LOADERS.get(kind.name)
        sections.update(loader(q) if loader else {kind.name: q.entries(kind.model)})
    return sections


def load_profile(
    session: Session, person: m.Person, viewer: Viewer, today: date, *, fold: int | None = None
) -> Profile:
    """Everything shown on ``person``'s profile page for ``viewer``. With ``fold``, the page
    shows at most that many selected papers and that many others (the most recent, in the
    profile's order); ``folded_publications`` counts the rest, which the complete list of the
    person's papers shows. Without it (the CV, the API), every listed paper."""
    folded = 0
    publications: list[Any]
    if fold is None:
        publications = profile_publications(session, person, viewer)
        groups = group_publications(
            publications, person.repeat_selected, person.unpublished_in_year
        )
    else:
        # Counted, grouped and folded on plain values; only the papers shown become objects.
        publications = listed_rows(session, person, viewer)
        groups = group_publications(
            publications, person.repeat_selected, person.unpublished_in_year
        )
        selected = [g for g in groups if g.heading == SELECTED]
        selected, folded_selected = fold_publications(selected, fold)
        others, folded = fold_publications([g for g in groups if g.heading != SELECTED], fold)
        groups = with_details(session, person, selected + others)
        folded += folded_selected
    listed = {row.publication_id for row in publications}
    return Profile(
        person=person,
        publications=[g for g in groups if g.heading != SELECTED],
        selected_publications=next((g.items for g in groups if g.heading == SELECTED), []),
        sections=_load_sections(ProfileQuery(session, person, viewer, today, listed)),
        publication_count=len(publications),
        folded_publications=folded,
        shown_publication_ids={row.publication_id for g in groups for row in g.items},
    )


def listed_people_dates(session: Session, viewer: Viewer) -> list[tuple[str, Any]]:
    """(slug, last change) of every profile the department lists to ``viewer``, by name (for
    the sitemap)."""
    return list(
        session.execute(
            select(m.Person.slug, m.Person.updated_at)
            .where(listed_people(viewer))
            .order_by(m.Person.sort_name, m.Person.id)
        )
    )


def person_by_slug(session: Session, slug: str, *load: str) -> m.Person | None:
    """The person at ``slug`` (whoever may see them: the caller checks), with the
    relationships ``load`` ("links", "areas", "photo"). The photo is joined to the person's
    row (no statement of its own), without its bytes: pages show its facts, and its own
    address reads the bytes when it is asked for them."""
    return session.scalar(
        select(m.Person)
        .where(m.Person.slug == slug)
        .options(*(_PERSON_LOADS.get(name, selectinload)(getattr(m.Person, name)) for name in load))
    )


#: How :func:`person_by_slug` loads a relationship otherwise than in a statement of its own.
_PERSON_LOADS = {"photo": lambda photo: joinedload(photo).defer(m.PersonPhoto.data)}


def person_by_id(session: Session, person_id: int) -> m.Person | None:
    return session.get(m.Person, person_id)


def people_by_slug(session: Session) -> list[m.Person]:
    """Everyone, by address (the backup writes one file each)."""
    return list(session.scalars(select(m.Person).order_by(m.Person.slug)))


def has_people(session: Session) -> bool:
    """Whether the directory has anybody yet."""
    return session.scalar(select(m.Person.id).limit(1)) is not None


def people_with_roles(session: Session, slugs: list[str], roles: tuple[str, ...]) -> list[m.Person]:
    """The people of ``slugs`` whose role is one of ``roles``."""
    return list(
        session.scalars(select(m.Person).where(m.Person.slug.in_(slugs), m.Person.role.in_(roles)))
    )
