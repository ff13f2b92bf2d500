"""The recruiting page, feed and fragments: open notices for a viewer and filters, their
filter choices, and what a person recruits for (the badge of a person card)."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, case, func, or_, select
from sqlalchemy.orm import Session, aliased, contains_eager, selectinload

from directory import models as m
from directory.db import get_session
from directory.i18n import gettext as _
from directory.i18n import term_label, translate
from directory.services.access import listed_notices, notice_for_term, notice_in_area
from directory.services.expertise.ranking import rank_people
from directory.services.identity import Viewer
from directory.services.paging import Page
from directory.services.parameters import (
    MAX_FILTER_TEXT,
    PAGE,
    Filters,
    Parameter,
    read_boolean,
    read_choice,
    read_text,
)

# Aliases for the joins below, built once (building an alias costs milliseconds). Each is used
# at most once per SELECT scope.
_OWNER = aliased(m.Person, name="owner")
_NAMED_OWNER = aliased(m.Person, name="named_owner")


def recruiting_summary(notices: Any) -> str:
    """What someone recruits for, each level and each term named once, in the levels' order:
    "PhD students (Fall 2026, any time); Research interns (any time)", or "PhD students,
    Research interns (any time)" when both are for the same terms. ``notices`` are
    RecruitingNotice objects, or (level, intake, term_label) triples."""
    levels = m.values(m.RECRUITING_LEVELS)
    by_level: dict[str, list[tuple[m.Term | None, str]]] = defaultdict(list)
    for notice in notices:
        if isinstance(notice, tuple):
            level, intake, label = notice
        else:
            level, intake, label = notice.level, notice.intake, notice.term_label
        by_level[level].append((intake, label))
    seasons = m.values(m.TERM_SEASONS)
    parts = []
    for level in sorted(by_level, key=lambda v: levels.index(v) if v in levels else len(levels)):
        found = by_level[level]
        dated = {t for t, _ in found if t is not None and not t.rolling}
        # In the reader's language: the levels, the seasons and "any time".
        ordered = sorted(dated, key=lambda t: (t.year, seasons.index(t.season)))
        terms = [term_label(t) for t in ordered]
        terms += sorted({label for t, label in found if t is None})
        if any(t is not None and t.rolling for t, _ in found):
            terms.append(_("any time"))
        parts.append((translate(m.label(m.RECRUITING_LEVELS, level)), ", ".join(terms)))
    # Levels recruited for the same terms share them: "PhD students, Research interns (any
    # time)", not "(any time)" twice.
    by_terms: dict[str, list[str]] = {}
    for level_label, terms_text in parts:
        by_terms.setdefault(terms_text, []).append(level_label)
    return "; ".join(
        _("%(levels)s (%(terms)s)", levels=", ".join(labels), terms=terms)
        for terms, labels in by_terms.items()
    )


def recruiting_people(viewer: Viewer, day: date) -> Select:
    """Ids of the people with at least one listed notice (:func:`listed_notices`)."""
    return select(m.RecruitingNotice.owner_id).where(listed_notices(viewer, day)).correlate(None)


def recruiting_owner_ids(
    session: Session, viewer: Viewer, day: date, among: list[int]
) -> dict[int, str]:
    """The people ``among`` those ids (the cards shown) with at least one open notice the
    viewer may see (card badges): their ids, each with what they recruit for
    (:func:`recruiting_summary`). One statement (none for no one), reading the notices of the
    people shown only."""
    if not among:
        return {}
    notice = m.RecruitingNotice
    rows = session.execute(
        select(notice.owner_id, notice.level, notice.term_season, notice.term_year, notice.term)
        .where(notice.owner_id.in_(among), listed_notices(viewer, day))
        .order_by(notice.owner_id, notice.position, notice.id)
    ).all()
    by_owner: dict[int, list[tuple[str, m.Term | None, str]]] = defaultdict(list)
    for owner_id, level, season, year, term in rows:
        intake = m.stored_term(season, year, term)
        by_owner[owner_id].append((level, intake, intake.label if intake else term.strip()))
    # The summary depends on the set of (level, intake) only, and many people recruit alike:
    # each set is summarised once.
    summaries: dict[frozenset, str] = {}
    for found in by_owner.values():
        key = frozenset(found)
        if key not in summaries:
            summaries[key] = recruiting_summary(found)
    return {owner: summaries[frozenset(found)] for owner, found in by_owner.items()}


#: An intake as the API takes it, in its one spelling ("Fall 2026", or "rolling"), so that a
#: URL names a selection once; the pages read any case and order ("2026 fall") first.
TERM_SCHEMA = {
    "type": "string",
    "pattern": "^(?:(?:Spring|Summer|Fall|Winter) (?:19[0-9]{2}|2[01][0-9]{2}|2200)|rolling)$",
}


def _tidy_term(text: str) -> str:
    term = m.parse_term(text) if text.strip() and len(text) <= MAX_FILTER_TEXT else None
    return term.arg if term is not None else text.strip()


def read_term() -> dict[str, Any]:
    """An intake: a season and a year ("Fall 2026") or "rolling"."""
    return {
        "parameter": Parameter(
            TERM_SCHEMA,
            '{name} must be a season and a year, e.g. "Fall 2026", or "rolling"',
            tidy=_tidy_term,
        )
    }


@dataclass(frozen=True)
class RecruitingFilters(Filters):
    """The recruiting page's and feed's filters, and the API's positions filters."""

    level: str = field(default="", metadata=read_choice(m.values(m.RECRUITING_LEVELS)))
    #: An intake: shows that term's notices and the rolling ones (:func:`notice_for_term`).
    term: str = field(default="", metadata=read_term())
    area: str = field(default="", metadata=read_text())
    person: str = field(default="", metadata=read_text())
    funded: bool | None = field(default=None, metadata=read_boolean())
    #: What the notice's owner works on ("LLM serving"): the people
    #: :func:`~directory.services.expertise.ranking.rank_people` finds for it.
    topic: str = field(default="", metadata=read_text())

    @property
    def intake(self) -> m.Term | None:
        """The term asked for, if any."""
        return m.parse_term(self.term) if self.term else None


def notice_conditions(viewer: Viewer, day: date, filters: RecruitingFilters) -> list[Any]:
    """Listed notices (:func:`listed_notices`) matching ``filters``; no join needed."""
    notice = m.RecruitingNotice
    conditions: list[Any] = [listed_notices(viewer, day)]
    if filters.level:
        conditions.append(notice.level == filters.level)
    if filters.intake is not None:
        conditions.append(notice_for_term(filters.intake))
    if filters.area:
        conditions.append(notice_in_area(filters.area))
    if filters.person:
        owner = _NAMED_OWNER
        named = select(owner.id).where(owner.slug == filters.person).correlate(None)
        conditions.append(notice.owner_id.in_(named))
    if filters.funded is not None:
        conditions.append(notice.funded.is_(filters.funded))
    if filters.topic.strip():
        conditions.append(notice.owner_id.in_(topic_owners(viewer, day, filters.topic)))
    return conditions


def topic_owners(viewer: Viewer, day: date, topic: str) -> list[int]:
    """The people with an open notice whose work matches ``topic``, for ``viewer``."""
    recruiting = m.Person.id.in_(recruiting_people(viewer, day))
    return rank_people(get_session(), topic, viewer, among=(recruiting,), today=day).people


def _level_order(column: Any) -> ColumnElement:
    levels = m.values(m.RECRUITING_LEVELS)
    return case({level: i for i, level in enumerate(levels)}, value=column, else_=len(levels))


@dataclass(frozen=True)
class RecruitingPageFilters(RecruitingFilters):
    """The recruiting page's filters and its page number (the feed and the API list every
    notice matching: they take :class:`RecruitingFilters`)."""

    page: int = field(default=1, metadata=PAGE)


def recruiting_notices(
    session: Session, viewer: Viewer, day: date, filters: RecruitingFilters
) -> list[m.RecruitingNotice]:
    """Open notices the viewer may see, matching ``filters``: by level, then owner's name."""
    return list(session.scalars(_notices_stmt(viewer, day, filters)))


def recruiting_page(
    session: Session, viewer: Viewer, day: date, filters: RecruitingPageFilters, page_size: int
) -> Page[m.RecruitingNotice]:
    """Page ``filters.page`` (``page_size`` notices; past the last, the last) of
    :func:`recruiting_notices`, and how many match in all."""
    conditions = notice_conditions(viewer, day, filters)
    total = session.scalar(select(func.count(m.RecruitingNotice.id)).where(*conditions)) or 0
    number = min(filters.page, max(1, math.ceil(total / page_size)))
    stmt = _notices_stmt(viewer, day, filters).limit(page_size).offset((number - 1) * page_size)
    return Page(list(session.scalars(stmt)), number, page_size, total)


def _notices_stmt(viewer: Viewer, day: date, filters: RecruitingFilters) -> Select:
    owner = _OWNER
    return (
        select(m.RecruitingNotice)
        .join(owner, owner.id == m.RecruitingNotice.owner_id)
        .where(*notice_conditions(viewer, day, filters))
        .options(
            contains_eager(m.RecruitingNotice.owner.of_type(owner)),
            selectinload(m.RecruitingNotice.areas),
        )
        .order_by(
            _level_order(m.RecruitingNotice.level),
            owner.sort_name,
            m.RecruitingNotice.position,
            m.RecruitingNotice.id,
        )
    )


def notices_by_deadline(
    session: Session,
    viewer: Viewer,
    day: date,
    limit: int | None = None,
    filters: RecruitingFilters | None = None,
) -> list[m.RecruitingNotice]:
    """Listed notices (matching ``filters``, if given) for a host page's "recruiting now":
    soonest deadline first, then those without a deadline."""
    owner = _OWNER
    stmt = (
        select(m.RecruitingNotice)
        .join(owner, owner.id == m.RecruitingNotice.owner_id)
        .where(*notice_conditions(viewer, day, filters or RecruitingFilters()))
        .options(contains_eager(m.RecruitingNotice.owner.of_type(owner)))
        .order_by(
            m.RecruitingNotice.deadline.is_(None),
            m.RecruitingNotice.deadline,
            owner.sort_name,
            m.RecruitingNotice.position,
            m.RecruitingNotice.id,
        )
        .limit(limit)
    )
    return list(session.scalars(stmt))


@dataclass
class RecruitingChoices:
    """The values offered by the recruiting filters: taken from the open notices themselves."""

    #: The terms of the open notices, soonest first (rolling notices match each of them).
    terms: list[m.Term]
    areas: list[m.ResearchArea]
    #: The person filter's choices: the owners of the notices shown, and the person filtered
    #: by (any person's slug filters: ``?person=``); a page's worth in a whole university.
    people: list[m.Person]
    #: Whether some open notice is rolling (the filter then offers "rolling only").
    rolling: bool = False


def recruiting_choices(
    session: Session,
    viewer: Viewer,
    day: date,
    shown: list[m.RecruitingNotice],
    person: str = "",
) -> RecruitingChoices:
    """The filters' values: every term and area of the open notices, and as people the
    owners of the notices ``shown`` and the one named ``person`` (a slug), if any."""
    listed = select(m.RecruitingNotice.id).where(listed_notices(viewer, day)).correlate(None)
    notice = m.RecruitingNotice
    terms, rolling = _intakes(session, listed)
    recruiting = select(notice.owner_id).where(notice.id.in_(listed))
    areas = session.scalars(
        select(m.ResearchArea)
        .where(
            m.ResearchArea.id.in_(
                select(m.notice_areas.c.area_id).where(m.notice_areas.c.notice_id.in_(listed))
            )
        )
        .order_by(m.ResearchArea.name)
    ).all()
    people = {notice.owner.id: notice.owner for notice in shown}
    if person and not any(p.slug == person for p in people.values()):
        named = session.scalar(
            select(m.Person).where(m.Person.slug == person, m.Person.id.in_(recruiting))
        )
        if named is not None:
            people[named.id] = named
    ordered = sorted(people.values(), key=lambda p: (p.sort_name or p.full_name, p.id))
    return RecruitingChoices(terms, list(areas), ordered, rolling)


def _intakes(session: Session, listed: Select) -> tuple[list[m.Term], bool]:
    """The terms of the ``listed`` notices, soonest first, and whether one of them is rolling:
    one statement, each term once and the rolling intake once as a row without season and
    year (notices whose intake is unreadable text are neither). Two statements before, each
    finding the listed notices again (in a university some 3,000 of them)."""
    notice = m.RecruitingNotice
    season_order = case(
        {season: i for i, (season, _) in enumerate(m.TERM_SEASONS)}, value=notice.term_season
    )
    dated = and_(notice.term_season.isnot(None), notice.term_year.isnot(None))
    rows = session.execute(
        select(notice.term_season, notice.term_year, season_order)
        .where(notice.id.in_(listed), or_(dated, notice_for_term(m.ROLLING)))
        .distinct()
        .order_by(notice.term_year, season_order)
    ).all()
    terms = [m.Term(season, year) for season, year, _order in rows if season is not None]
    return terms, len(terms) < len(rows)
