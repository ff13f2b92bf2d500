"""A person's activity report for a period: their papers by group, type and venue, students,
teaching, service, funding, awards, news and recruiting notices, their co-authors in the
department and what the report cannot count. Everything is read as ``viewer`` may see it
(the owner sees their private entries; a delegate what a member sees; an admin all)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.orm import Session, aliased

from directory import models as m
from directory.formats.citations import venue_badge
from directory.services.access import listed_on_profile, shown_advising, visibility_clause
from directory.services.department.publications import venue_name
from directory.services.identity import Viewer
from directory.services.reports import counting
from directory.services.reports.network import Network, person_network
from directory.services.reports.periods import Period
from directory.services.reports.quality import Problem, person_problems


@dataclass(frozen=True)
class PaperLine:
    """One paper of the report (plain values, for every output)."""

    id: int
    uid: str
    title: str
    venue: str | None
    venue_short: str | None
    year: int | None
    month: int | None
    type: str
    status: str
    group: str

    @property
    def badge(self) -> str | None:
        return venue_badge(self.venue_short, self.year)

    @property
    def venue_key(self) -> str | None:
        """The venue as the department counts it: the short name without its year."""
        return venue_name(self.venue_short.strip()) if self.venue_short else None


@dataclass(frozen=True)
class StudentLine:
    """A student advised: current, or graduated in the period with their placement."""

    id: int
    name: str
    slug: str | None
    degree: str
    status: str
    start_year: int | None
    end_year: int | None
    placement: str | None
    placement_kind: str | None
    thesis: str | None


@dataclass(frozen=True)
class Who:
    """The person a report is of (plain values: a report may be kept beyond its session,
    :mod:`.memo`)."""

    id: int
    slug: str
    full_name: str


@dataclass
class PersonReport:
    person: Who
    period: Period
    papers: list[PaperLine]
    students: list[StudentLine]
    #: Each entry kind's rows in the period, by kind name (teaching, service, funding,
    #: awards, news, recruiting), in the profile's order.
    entries: dict[str, list[Any]]
    network: Network
    problems: list[Problem] = field(default_factory=list)

    def group(self, name: str) -> list[PaperLine]:
        return [p for p in self.papers if p.group == name]

    def counts_by_type(self, group: str) -> list[tuple[str, int]]:
        """(type, papers) of a group, in the vocabulary's order."""
        counts = Counter(p.type for p in self.group(group))
        order = [*m.values(m.PUBLICATION_TYPES)]
        return sorted(counts.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 99)

    def venues(self, group: str = "published") -> list[tuple[str, int]]:
        """(venue, papers) of a group: by short name where there is one, most first."""
        counts = Counter(p.venue_key or p.venue or "" for p in self.group(group))
        counts.pop("", None)
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].casefold()))

    @property
    def current_students(self) -> list[StudentLine]:
        return [s for s in self.students if s.status == "current"]

    @property
    def graduated_students(self) -> list[StudentLine]:
        return [s for s in self.students if s.status == "graduated"]

    def coauthors(self) -> list[tuple[Any, int]]:
        """(co-author's node, joint papers in the period), most first."""
        own = self.person.id
        return [
            (pair.second if pair.first.id == own else pair.first, pair.papers)
            for pair in self.network.pairs
            if own in (pair.first.id, pair.second.id)
        ]

    def totals(self) -> dict[str, int]:
        """Every count of the report by name (the CSV's and JSON's summary, the tests')."""
        totals = {name: len(self.group(name)) for name, _ in counting.PAPER_GROUPS}
        totals["students_current"] = len(self.current_students)
        totals["students_graduated"] = len(self.graduated_students)
        totals.update({kind: len(rows) for kind, rows in self.entries.items()})
        totals["coauthors"] = len(self.coauthors())
        return totals


def _papers(session: Session, viewer: Viewer, person: m.Person, period: Period) -> list[PaperLine]:
    pub = m.Publication
    group = counting.paper_group(period, pub).label("paper_group")
    stmt = (
        select(
            pub.id,
            pub.uid,
            pub.title,
            pub.venue,
            pub.venue_short,
            pub.year,
            pub.month,
            pub.type,
            pub.status,
            group,
        )  # fmt: skip
        .join(m.ProfilePublication, m.ProfilePublication.publication_id == pub.id)
        .where(listed_on_profile(viewer, person), counting.counted_paper(period, pub))
        .order_by(pub.year.desc().nulls_first(), pub.month.desc().nulls_last(), pub.title)
    )
    return [PaperLine(*row) for row in session.execute(stmt)]


#: Aliases made once: a new alias builds its own copy of every column of the table when first
#: used (some 2 ms each, measured), the same one serves every statement.
_STUDENT = aliased(m.Person, name="report_student")


def _students(
    session: Session, viewer: Viewer, person: m.Person, period: Period
) -> list[StudentLine]:
    rel = m.AdvisingRelation
    student = _STUDENT
    stmt = (
        select(rel.id, student.full_name, rel.student_name, student.slug, rel.degree, rel.status,
               rel.start_year, rel.end_year, rel.placement, rel.placement_kind, rel.thesis)
        .outerjoin(student, student.id == rel.student_id)
        .where(
            rel.advisor_id == person.id,
            shown_advising(viewer, rel),
            counting.advising_current_in(period, rel) | counting.graduated_in(period, rel),
        )
        .order_by(rel.status, rel.end_year.desc(), rel.start_year, rel.id)
    )  # fmt: skip
    lines = []
    for row in session.execute(stmt):
        name = row[1] or row[2] or ""
        lines.append(StudentLine(row[0], name, row[3], *row[4:]))
    return lines


def entry_clauses(period: Period) -> dict[str, tuple[Any, Any]]:
    """Each reported entry kind: (model, the clause of its rows in the period)."""
    return {
        "teaching": (m.Teaching, counting.teaching_in(period)),
        "service": (m.Service, counting.dated_in(period, m.Service.year)),
        "funding": (m.Funding, counting.active_in(period, m.Funding.start_year,
                                                  m.Funding.end_year)),
        "awards": (m.Award, counting.dated_in(period, m.Award.year)),
        "news": (m.NewsItem, counting.dated_in(period, m.NewsItem.year, m.NewsItem.month)),
        "recruiting": (m.RecruitingNotice, counting.notice_open_in(period)),
    }  # fmt: skip


def _plain(entry: Any) -> SimpleNamespace:
    """An entry's columns as plain values (and a notice's intake in words), for a report that
    may be kept beyond its session."""
    values = {attr.key: getattr(entry, attr.key) for attr in inspect(entry).mapper.column_attrs}
    if isinstance(entry, m.RecruitingNotice):
        values["term_label"] = entry.term_label
    return SimpleNamespace(**values)


def _entries(
    session: Session, viewer: Viewer, person: m.Person, period: Period
) -> dict[str, list[Any]]:
    found = {}
    for kind, (model, clause) in entry_clauses(period).items():
        stmt = (
            select(model)
            .where(model.owner_id == person.id, visibility_clause(viewer, model), clause)
            .order_by(model.position, model.id)
        )
        found[kind] = [_plain(entry) for entry in session.scalars(stmt)]
    return found


def person_report(
    session: Session, viewer: Viewer, person: m.Person, period: Period
) -> PersonReport:
    """``person``'s report for ``period`` as ``viewer`` may see it (the caller has checked
    :func:`~directory.services.access.can_view_person_report`)."""
    report = PersonReport(
        person=Who(person.id, person.slug, person.full_name),
        period=period,
        papers=_papers(session, viewer, person, period),
        students=_students(session, viewer, person, period),
        entries=_entries(session, viewer, person, period),
        network=person_network(session, viewer, person, period),
    )
    report.problems = person_problems(session, viewer, person, period)
    return report
