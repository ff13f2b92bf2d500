"""Who may see and change what. Every rule of the directory lives here; views, templates,
feeds, the API, search and exports ask these helpers and never test roles or visibility
themselves. Denied unless a rule allows.

The read rules, one function per question, each a SQL clause every output applies:

=====================================  ==========================================================
question                               function
=====================================  ==========================================================
visibility levels a viewer may see     :func:`visible_levels` (SQL: :func:`visibility_clause`)
profiles a viewer may open             :func:`person_clause` (one object: :func:`person_visible`)
listed people                          :func:`listed_people`: current members, not alumni,
                                       published
people expected to keep current        :func:`kept_current`: the stale report, reminders
listed open notices                    :func:`listed_notices`: open today, owner listed
notices open to an intake              :func:`notice_for_term`: that term, or rolling
people in an area                      :func:`people_in_area`: the area and every area under it
listed publications                    :func:`listed_publications`: on a visible profile
                                       (on one profile: :func:`listed_on_profile`)
advising relations shown               :func:`advising_clause` and :func:`advising_sides_clause`
                                       (one relation: :func:`advising_visible`)
listed alumni                          :func:`listed_graduations` with a department advisor
                                       (:func:`department_graduation`), and
                                       :func:`listed_alumni_people` without one
who may approve a person's changes     :func:`approvable` (one person: :func:`can_approve`)
advising shown on reports              :func:`shown_advising` (graduations among them:
                                       :func:`listed_graduations`)
who reads activity reports             :func:`can_view_person_report`,
                                       :func:`can_view_department_report` (admins, the chair)
=====================================  ==========================================================

Pages, feeds, fragments, the JSON API, search, the sitemap and the exports all call these, so
an answer changes in one place or nowhere (``tests/invariants/test_read_rules.py`` compares every
output with the rule's own answer).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import current_app
from sqlalchemy import ColumnElement, Select, and_, false, or_, select, true
from sqlalchemy.orm import Session, aliased, object_session
from sqlalchemy.orm.exc import UnmappedInstanceError
from sqlalchemy.sql.elements import UnaryExpression
from sqlalchemy.sql.operators import custom_op

from directory import models as m
from directory.db import get_session
from directory.services.identity import Viewer

#: Roles of the people listed as current members (alumni have their own page).
LISTED_ROLES = tuple(role for role in m.values(m.ROLES) if role != "alumni")

# Aliases for the rules' subqueries, built once (building an alias costs milliseconds, and the
# rules run several times a request). Each names the rows of one subquery, so a statement may
# hold several rules, or one rule twice.
_LISTED_OWNER = aliased(m.Person, name="listed_owner")
_LISTING_AUTHOR = aliased(m.Person, name="listing_author")
_WITHIN_AREA = aliased(m.ResearchArea, name="within_area")
_WITHIN_CHILD = aliased(m.ResearchArea, name="within_child")
_APPROVING = aliased(m.AdvisingRelation, name="approving_relation")
_APPROVED = aliased(m.Person, name="approved_person")
_GRADUATE_ADVISOR = aliased(m.Person, name="graduate_advisor")
_GRADUATE_STUDENT = aliased(m.Person, name="graduate_student")


# ----------------------------------------------------------------------------- visibility


def visible_levels(viewer: Viewer) -> tuple[str, ...]:
    """Visibility levels the viewer sees on other people's profiles, entries and papers:
    anonymous visitors public ones, signed-in members members-only ones too, admins all.
    (Owners also see their own private things: :func:`can_view`, :func:`visibility_clause`.)"""
    if viewer.is_admin:
        return m.values(m.VISIBILITIES)
    return ("public", "members") if viewer.is_authenticated else ("public",)


def strictest_visibility(*levels: str) -> str:
    """The most restrictive of some visibility levels: a public notice on a members-only
    profile is shown to members only."""
    order = {"public": 0, "members": 1, "private": 2}
    return max(levels, key=lambda level: order.get(level, 2))


def _owner_id(obj: Any) -> int | None:
    """Who owns ``obj`` for visibility: an entry's owner, a publication's creator."""
    owner = getattr(obj, "owner_id", None)
    return owner if owner is not None else getattr(obj, "created_by_id", None)


def can_view(viewer: Viewer, obj: Any, owner_id: int | None = None) -> bool:
    """Whether ``viewer`` may see ``obj`` (anything with a ``visibility``), loaded already:
    the one-object form of :func:`visibility_clause`."""
    if obj.visibility in visible_levels(viewer):
        return True
    owner = owner_id if owner_id is not None else _owner_id(obj)
    return owner is not None and owner == viewer.person_id


def visibility_clause(viewer: Viewer, model: Any, owner_column: Any = None) -> ColumnElement:
    """A WHERE clause limiting ``model`` rows to what ``viewer`` may see: a visible level, or
    the viewer's own (``owner_column``, by default the model's ``owner_id``)."""
    clause = model.visibility.in_(visible_levels(viewer))
    owner_column = owner_column if owner_column is not None else getattr(model, "owner_id", None)
    if viewer.person_id is not None and owner_column is not None:
        clause = or_(clause, owner_column == viewer.person_id)
    return clause


def person_clause(viewer: Viewer, person: Any) -> ColumnElement:
    """A WHERE clause limiting ``person`` (the Person model or an alias of it) to the profiles
    ``viewer`` may see: a visible level, and published (an unpublished profile is seen by its
    owner and admins only). Anything shown *because of* a person (their notices, news, papers
    on department pages) must also pass this, so that a hidden profile leaves no trace."""
    clause = visibility_clause(viewer, person, person.id)
    if viewer.is_admin:
        return clause
    published = person.published.is_(True)
    if viewer.person_id is not None:
        published = or_(published, person.id == viewer.person_id)
    return and_(clause, published)


def person_visible(viewer: Viewer, person: Any) -> bool:
    """Whether the person's profile page may be shown at all (:func:`person_clause` for one
    loaded person; a delegate also opens an unpublished profile they help keep)."""
    if not can_view(viewer, person, owner_id=person.id):
        return False
    return person.published or viewer.is_admin or can_edit_person(viewer, person)


def can_publish(viewer: Viewer, person: Any) -> bool:
    """Who publishes an unlisted profile (or takes it back off the lists): its owner or an
    admin, not a delegate."""
    return viewer.is_admin or is_owner(viewer, person)


def owned_entry_clause(viewer: Viewer, entry: Any, owner: Any) -> ColumnElement:
    """Entries shown on department pages: visible themselves and owned by a visible profile
    (``owner`` is the Person entity the caller joined as the entry's owner)."""
    return and_(visibility_clause(viewer, entry), person_clause(viewer, owner))


def advising_visible(viewer: Viewer, relation: Any) -> bool:
    """Whether an advising relation may be shown to ``viewer`` on a profile, its CV, the API or
    the alumni page: each side is a typed name or a profile the viewer may see (the one-object
    form of :func:`advising_sides_clause`).

    A relation linking a profile the viewer may not see (made private or members-only since)
    is left out whole, not shown under a name: a linked side has no typed name (the form keeps
    only the link), so the only name it could show is the hidden profile's own, and its
    thesis, years and placement would still tell about that person."""
    return all(
        side is None or person_visible(viewer, side)
        for side in (relation.advisor, relation.student)
    )


def advising_sides_clause(
    viewer: Viewer, relation: Any, advisor: Any, student: Any
) -> ColumnElement:
    """:func:`advising_visible` in SQL; ``advisor`` and ``student`` are the Person entities
    the caller outer-joined as the relation's sides."""
    return and_(
        or_(relation.advisor_id.is_(None), person_clause(viewer, advisor)),
        or_(relation.student_id.is_(None), person_clause(viewer, student)),
    )


#: What the owner's own editing page calls the other side of an advising relation when that
#: side's profile is hidden from them (the entry can still be edited or deleted).
HIDDEN_PROFILE = "a profile you cannot see"


def advising_side_name(viewer: Viewer, relation: Any, side: str) -> str:
    """The name of ``side`` ("advisor" or "student") of a relation for its owner's editing
    page: the typed name, the linked profile's name if ``viewer`` may see it, or
    :data:`HIDDEN_PROFILE`."""
    person = getattr(relation, side)
    if person is not None and not person_visible(viewer, person):
        return HIDDEN_PROFILE
    return relation.advisor_display if side == "advisor" else relation.student_display


def advising_clause(viewer: Viewer, relation: Any) -> ColumnElement:
    """Advising relations shown on department pages: visible and confirmed by both sides (an
    unconfirmed claim appears nowhere but on its author's own editing pages)."""
    return and_(
        visibility_clause(viewer, relation),
        relation.advisor_confirmed.is_(True),
        relation.student_confirmed.is_(True),
    )


# ----------------------------------------------------------------------------- listed people


def listed_people(viewer: Viewer, person: Any = m.Person) -> ColumnElement:
    """People the department lists as its members for ``viewer``: on the listing, area pages
    and fragments, in the sitemap, search and the API's people. Active, not alumni (they have
    the alumni page; their profiles stay open to whoever may see them), published, and a
    profile the viewer may see."""
    return and_(
        person.active.is_(True),
        person.role.in_(LISTED_ROLES),
        # Unlisted until published, for everyone: the owner and admins open the profile, but
        # the department lists it nowhere yet.
        person.published.is_(True),
        person_clause(viewer, person),
    )


# ----------------------------------------------------------------------------- alumni


def _side_visible(viewer: Viewer, column: Any, person: Any) -> ColumnElement:
    """A side of an advising relation that is a plain name, or a profile ``viewer`` may see."""
    visible = select(person.id).where(person_clause(viewer, person)).correlate(None)
    return or_(column.is_(None), column.in_(visible))


def shown_advising(viewer: Viewer, relation: Any = m.AdvisingRelation) -> ColumnElement:
    """Advising relations shown to ``viewer`` on department pages and reports without a join:
    :func:`advising_clause`, and each side that is a department person a profile the viewer
    may see (checked through subqueries, as :func:`advising_sides_clause` does on joins)."""
    return and_(
        advising_clause(viewer, relation),
        _side_visible(viewer, relation.advisor_id, _GRADUATE_ADVISOR),
        _side_visible(viewer, relation.student_id, _GRADUATE_STUDENT),
    )


def listed_graduations(viewer: Viewer, relation: Any = m.AdvisingRelation) -> ColumnElement:
    """Graduations (advising relations marked graduated) shown to ``viewer`` by every alumni
    output: the alumni page, its summary and chart, the CSV and the API. Visible and confirmed
    by both sides (:func:`advising_clause`), and each side that is a department person a
    profile the viewer may see, so that an alumnus or advisor with a hidden profile leaves no
    trace. Needs no join: the sides are checked through subqueries."""
    return and_(shown_advising(viewer, relation), relation.status == "graduated")


def department_graduation(relation: Any = m.AdvisingRelation) -> ColumnElement:
    """Graduations that make someone an alumnus of the department: under a department
    advisor (their advisors outside the department are shown on the same record)."""
    return relation.advisor_id.isnot(None)


def listed_alumni_people(viewer: Viewer, person: Any = m.Person) -> ColumnElement:
    """People listed as alumni (role "alumni", active or not) whose profile ``viewer`` may
    see: alumni of the department even without a graduation record."""
    return and_(person.role == "alumni", person_clause(viewer, person))


def kept_current(person: Any = m.Person) -> ColumnElement:
    """People whose profiles the department expects to be kept current (the stale report,
    reminders): active current members, alumni excluded (their profile records the past)."""
    return and_(person.active.is_(True), person.role.in_(LISTED_ROLES))


# ----------------------------------------------------------------------------- notices


def open_notice_clause(notice: Any, today: date) -> ColumnElement:
    """Recruiting notices still open on ``today``: a notice disappears on its expiry date by
    itself. Pass a date computed per request."""
    return or_(notice.expires_on.is_(None), notice.expires_on > today)


def listed_notices(viewer: Viewer, today: date, notice: Any = m.RecruitingNotice) -> ColumnElement:
    """Recruiting notices shown to ``viewer`` on ``today`` everywhere (recruiting page and
    feed, area pages, profiles, fragments, search, the API): open, visible themselves, and
    owned by a listed person (:func:`listed_people`), so an alumnus, who recruits no longer,
    has no open position anywhere, and a public notice on a members-only profile is shown to
    members only. Needs no join: the owner is checked through a subquery."""
    owner = _LISTED_OWNER
    return and_(
        open_notice_clause(notice, today),
        visibility_clause(viewer, notice),
        notice.owner_id.in_(select(owner.id).where(listed_people(viewer, owner)).correlate(None)),
    )


def rolling_notice_clause(notice: Any = m.RecruitingNotice) -> ColumnElement:
    """Notices open to any intake: no season and year, and no unreadable intake text."""
    return and_(
        notice.term_season.is_(None),
        notice.term_year.is_(None),
        or_(notice.term.is_(None), notice.term == ""),
    )


def notice_for_term(term: m.Term, notice: Any = m.RecruitingNotice) -> ColumnElement:
    """Notices a visitor asking for the intake ``term`` (e.g. Fall 2026) is shown, with
    :func:`listed_notices`, on the recruiting page and feed, fragments and the API: those for
    that season and year, and every rolling notice (recruiting at any time, so for that term
    too; pages label it as rolling). Asking for :data:`~directory.models.ROLLING` gives the
    rolling notices only. A notice whose intake is unreadable text matches no term (its owner
    is asked to pick one)."""
    rolling = rolling_notice_clause(notice)
    if term.rolling:
        return rolling
    return or_(rolling, and_(notice.term_season == term.season, notice.term_year == term.year))


# ----------------------------------------------------------------------------- areas


def _area_tree() -> Any:
    """Pairs (``area_id``, ``sub_id``): every research area with itself and with every area
    under it, at any depth (UNION, not UNION ALL, so that a cycle in the taxonomy ends)."""
    area = aliased(m.ResearchArea, name="tree_area")
    child = aliased(m.ResearchArea, name="tree_child")
    tree = select(area.id.label("area_id"), area.id.label("sub_id")).cte(
        "directory_area_tree", recursive=True
    )
    return tree.union(
        select(tree.c.area_id, child.id.label("sub_id")).where(child.parent_id == tree.c.sub_id)
    )


#: Whether "in an area" includes its sub-areas is decided here, once: it does (a visitor asking
#: for Systems expects the people of Operating systems too).
AREA_TREE = _area_tree()


def areas_within(area_slug: str) -> Select:
    """Ids of the area named ``area_slug`` and of every area under it (none if no such area),
    at any depth, as :data:`AREA_TREE` pairs them. The walk starts from that one area and
    goes down by ``parent_id`` (indexed), so a statement computes this once, from the few
    areas concerned, instead of pairing every area with its sub-areas and then picking one."""
    area, child = _WITHIN_AREA, _WITHIN_CHILD
    start = select(area.id.label("id")).where(area.slug == area_slug)
    within = start.cte("directory_areas_within", recursive=True)
    within = within.union(select(child.id).where(child.parent_id == within.c.id))
    return select(within.c.id).correlate(None)


def working_in(area_slug: str) -> Select:
    """Ids of the people (listed or not) working in the area ``area_slug`` or any area under
    it, for a person id column to be looked up in."""
    return (
        select(m.person_areas.c.person_id)
        .where(m.person_areas.c.area_id.in_(areas_within(area_slug)))
        .correlate(None)
    )


def in_area(area_slug: str, person: Any = m.Person) -> ColumnElement:
    """People (listed or not) working in the area ``area_slug`` or any area under it."""
    return person.id.in_(working_in(area_slug))


def notice_in_area(area_slug: str, notice: Any = m.RecruitingNotice) -> ColumnElement:
    """Notices tagged with the area ``area_slug`` or any area under it."""
    return notice.id.in_(
        select(m.notice_areas.c.notice_id)
        .where(m.notice_areas.c.area_id.in_(areas_within(area_slug)))
        .correlate(None)
    )


def people_in_area(viewer: Viewer, area_slug: str, person: Any = m.Person) -> ColumnElement:
    """The people of an area for ``viewer`` (area page, fragment, the listing's and the API's
    ``area`` filter): listed people (:func:`listed_people`) in the area or one under it."""
    return and_(listed_people(viewer, person), in_area(area_slug, person))


# ----------------------------------------------------------------------------- publications


def publication_clause(viewer: Viewer, publication: Any) -> ColumnElement:
    """Publications ``viewer`` may see (their creator sees their own private ones)."""
    return visibility_clause(viewer, publication, publication.created_by_id)


#: What a publication list's row reads in SQLite: its person id looked up in the set of
#: listing people as a value (``+ person_id``), not as a column of the rows' index, whose
#: third column it is: SQLite would otherwise seek the index once per person of the set, for
#: every paper (175 ms for the department's count), instead of checking each row of the paper
#: against the set. PostgreSQL reads it as the column (unary plus of an integer).
_LISTED_BY = UnaryExpression(m.ProfilePublication.person_id, operator=custom_op("+"))


def on_visible_profile_clause(
    viewer: Viewer, publication_id: Any, *people: Any, probe: bool = True
) -> ColumnElement:
    """Publications (given by their id column) listed, not hidden, on the profile of at least
    one person whose profile ``viewer`` may see (:func:`_listing_row`) and who meets each of
    ``people`` (callables of the Person entity, e.g. ``lambda p: in_area(slug, p)``). A paper
    known only from hidden profiles is absent from the department's lists, search and API,
    whatever its own visibility.

    The listing people are one set, read once per statement. ``probe`` (the default) checks
    each paper the statement reads: an EXISTS looked up by paper (the index on
    ``publication_id``, whose rows are checked against the set), so that a page of papers in
    the department's order reads only as many papers as it needs (the order's index, migration
    ``speed_3``; an area's ten newest read some hundred papers, not the area's 7,000), and a
    count probes a few index rows a paper. Without ``probe``, the papers are the set of those
    the listing people's rows name (read from the people: a person's papers, or the count of
    an area's, read only theirs)."""
    row = m.ProfilePublication
    if not probe:
        listed = select(row.publication_id).where(_listing_row(viewer, row.person_id, people))
        return publication_id.in_(listed.correlate(None))
    return (
        select(row.publication_id)
        .where(row.publication_id == publication_id, _listing_row(viewer, _LISTED_BY, people))
        .exists()
    )


def _listing_row(viewer: Viewer, person_id: Any, people: tuple[Any, ...]) -> ColumnElement:
    """Rows of profiles' publication lists that make a paper listed for ``viewer``: not
    hidden, on a profile the viewer may see (``person_id``: the row's person as the statement
    reads it), of a person meeting each of ``people``."""
    author = _LISTING_AUTHOR
    listing = select(author.id).where(
        person_clause(viewer, author), *(condition(author) for condition in people)
    )
    return and_(m.ProfilePublication.hidden.is_(False), person_id.in_(listing.correlate(None)))


def listed_publications(viewer: Viewer, publication: Any = m.Publication) -> ColumnElement:
    """Publications shown to ``viewer`` on department pages, profiles, exports, search and the
    API: visible themselves (:func:`publication_clause`) and on the list, not hidden, of a
    profile the viewer may see (an alumnus's public profile counts: their papers stay the
    department's)."""
    return and_(
        publication_clause(viewer, publication), on_visible_profile_clause(viewer, publication.id)
    )


def listed_on_profile(viewer: Viewer, person: Any) -> ColumnElement:
    """:func:`listed_publications` on one profile (its page and exports), as a clause on its
    ProfilePublication rows joined to their Publication: rows that make a paper listed (as in
    :func:`_listing_row`: not hidden, the profile visible, checked once here) of papers the
    viewer may see. The same answer as the department-wide set, without computing it."""
    if not person_visible(viewer, person):
        return false()
    return and_(
        m.ProfilePublication.person_id == person.id,
        m.ProfilePublication.hidden.is_(False),
        publication_clause(viewer, m.Publication),
    )


# ----------------------------------------------------------------------------- who may change what


def _session(obj: Any) -> Session:
    """The session ``obj`` was loaded in; the request's for a plain row (a shown paper's
    author, :mod:`directory.services.shown_papers`) or an object of none."""
    try:
        session = object_session(obj)
    except UnmappedInstanceError:
        session = None
    return session if session is not None else get_session()


def is_owner(viewer: Viewer, person: Any) -> bool:
    """Whether ``person`` is the viewer's own profile."""
    return viewer.person_id is not None and viewer.person_id == person.id


def is_delegate(viewer: Viewer, person: Any) -> bool:
    """Whether the owner of ``person`` named the viewer a delegate (e.g. their lab manager)."""
    if viewer.person_id is None or person.id is None:
        return False
    found = _session(person).scalar(
        select(m.Delegation.id).where(
            m.Delegation.person_id == person.id, m.Delegation.delegate_id == viewer.person_id
        )
    )
    return found is not None


def can_admin(viewer: Viewer) -> bool:
    """Department admins (named by the host through DIRECTORY_ADMINS)."""
    return viewer.is_admin


def can_chair(viewer: Viewer) -> bool:
    """The department's chair (DIRECTORY_CHAIRS or DIRECTORY_CHAIR_ROLE): a capability of its
    own, granting reads only (the department's report), never an admin's changes."""
    return viewer.is_chair


def can_view_department_report(viewer: Viewer) -> bool:
    """The department's activity report and its network: admins and the chair. Each sees it
    counted as what they may see (a chair who is not an admin sees no private entry)."""
    return can_admin(viewer) or can_chair(viewer)


def can_view_person_report(viewer: Viewer, person: Any) -> bool:
    """A person's activity report: those who keep the profile (the owner, their delegates and
    admins), as for its history. The chair reads the department's report instead."""
    return can_edit_person(viewer, person)


def can_edit_person(viewer: Viewer, person: Any) -> bool:
    """The owner, a delegate the owner named, or a department admin."""
    if viewer.is_admin:
        return True
    return is_owner(viewer, person) or is_delegate(viewer, person)


def can_manage_delegates(viewer: Viewer, person: Any) -> bool:
    """Only the owner or an admin names delegates (a delegate cannot name more)."""
    return viewer.is_admin or is_owner(viewer, person)


def can_view_history(viewer: Viewer, person: Any) -> bool:
    """A profile's history is shown to those who may edit it."""
    return can_edit_person(viewer, person)


def can_edit_publication(viewer: Viewer, publication: Any) -> bool:
    """A shared paper may be edited by the editors of any department author on it, or of the
    profile that added it."""
    if viewer.is_admin:
        return True
    session = _session(publication)
    ids = set(
        session.scalars(
            select(m.ProfilePublication.person_id).where(
                m.ProfilePublication.publication_id == publication.id
            )
        )
    )
    ids.update(
        session.scalars(
            select(m.Authorship.person_id).where(
                m.Authorship.publication_id == publication.id, m.Authorship.person_id.isnot(None)
            )
        )
    )
    if publication.created_by_id:
        ids.add(publication.created_by_id)
    people = session.scalars(select(m.Person).where(m.Person.id.in_(ids))) if ids else []
    return any(can_edit_person(viewer, person) for person in people)


def approvable(viewer: Viewer, person: Any = m.Person) -> ColumnElement:
    """People (``person``: the Person model or an alias) whose changes held for approval
    ``viewer`` may approve or reject: everyone for a department admin; otherwise the students
    of whom the viewer is a confirmed advisor (the advising relation confirmed by both sides)."""
    if viewer.is_admin:
        return true()
    if viewer.person_id is None:
        return false()
    relation = _APPROVING
    return person.id.in_(
        select(relation.student_id)
        .where(
            relation.advisor_id == viewer.person_id,
            relation.student_id.isnot(None),
            relation.advisor_confirmed.is_(True),
            relation.student_confirmed.is_(True),
        )
        .correlate(None)
    )


def can_approve(viewer: Viewer, person: Any) -> bool:
    """Whether ``viewer`` may decide the held changes of ``person`` (:func:`approvable`)."""
    if person.id is None:  # not written yet, so nobody's student: only an admin
        return viewer.is_admin
    one = _APPROVED
    stmt = select(one.id).where(one.id == person.id, approvable(viewer, one))
    return _session(person).scalar(stmt) is not None


def is_approver(viewer: Viewer) -> bool:
    """Whether ``viewer`` may approve anyone's changes (the approval queue is theirs): an
    admin, or a confirmed advisor of someone (:func:`approvable`)."""
    if viewer.is_admin:
        return True
    stmt = select(m.Person.id).where(approvable(viewer)).limit(1)
    return get_session().scalar(stmt) is not None


def needs_approval(viewer: Viewer, person: Any) -> bool:
    """Whether changes ``viewer`` makes to ``person``'s profile wait for approval: the person's
    role is listed in DIRECTORY_APPROVAL_ROLES and the viewer is not an approver."""
    roles = current_app.config["DIRECTORY_APPROVAL_ROLES"] or ()
    return person.role in roles and not can_approve(viewer, person)


def can_confirm_advising(viewer: Viewer, relation: Any) -> bool:
    """The side of an advising relation that did not enter it (or an admin) confirms it."""
    if viewer.is_admin:
        return True
    other = relation.student if relation.owner_id == relation.advisor_id else relation.advisor
    if relation.owner_id not in (relation.advisor_id, relation.student_id):
        # Entered by a third party (an admin or delegate): either side may confirm.
        sides = [p for p in (relation.advisor, relation.student) if p is not None]
        return any(can_edit_person(viewer, p) for p in sides)
    return other is not None and can_edit_person(viewer, other)


def suggested_authorship_clause(viewer: Viewer, person: Any) -> ColumnElement:
    """Authorships (joined to their Publication) a co-author import suggested to ``person``
    ("A. Lovelace" may be Ada Lovelace), waiting for their answer: only of papers ``viewer``
    may see, and only for those who may edit the profile (a suggestion is the member's own
    question)."""
    if not can_edit_person(viewer, person):
        return false()
    return and_(
        m.Authorship.suggested_person_id == person.id,
        m.Authorship.person_id.is_(None),
        m.Authorship.suggestion_declined.is_(False),
        publication_clause(viewer, m.Publication),
    )


def can_answer_authorship(viewer: Viewer, person: Any, authorship: Any) -> bool:
    """The member a printed name was suggested to (or who edits their profile) says whether it
    is them; once answered there is nothing left to answer."""
    return (
        authorship.suggested_person_id == person.id
        and authorship.person_id is None
        and not authorship.suggestion_declined
        and can_edit_person(viewer, person)
    )


def can_answer_claims(viewer: Viewer, person: Any) -> bool:
    """Who answers the claim queue of ``person`` ("Found for you"): the owner, their
    delegates and admins (those who edit the profile); a candidate is the person's own
    question, shown to no one else."""
    return can_edit_person(viewer, person)


def can_see_harvest_status(viewer: Viewer) -> bool:
    """The harvest's status page (runs, faults): department admins."""
    return can_admin(viewer)


def can_see_email(viewer: Viewer) -> bool:
    """Whether the JSON API gives ``viewer`` people's email addresses: signed-in members only
    (pages show addresses in a form harvesters can't read; the API would hand them out)."""
    return viewer.is_authenticated


def can_import_publications(viewer: Viewer, person: Any) -> bool:
    """Who may import papers into ``person``'s profile (and change how it lists them)."""
    return can_edit_person(viewer, person)


def can_manage_publication_records(viewer: Viewer) -> bool:
    """Merging, splitting and linking shared publication records: department admins."""
    return viewer.is_admin
