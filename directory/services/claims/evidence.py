"""What says a harvested work is a person's, and what says it is not: each reason a code,
a weight and a detail, read in words by :func:`evidence_text`. A name is evidence, never
proof: the same name is also a stranger's ("Yang Liu"), initials are many people's, and two
members may share a name; an identifier the person holds, co-authors from the department,
the department's affiliation and the person's venues weigh more."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.harvest.works import HarvestedWork
from directory.formats.names import fold_for_matching
from directory.i18n import gettext as _
from directory.services.publications import AuthorIndex

#: The weight of each reason (score = their sum, within 0..100).
WEIGHTS = {
    "identifier": 60,  # found under an identifier the person holds at the source
    "author_orcid": 50,  # an author of the work carries the person's ORCID iD
    "name_exact": 20,
    "name_short": 15,
    "name_initials": 6,
    "name_first_initial": 4,
    "namesake": -15,  # the printed name is also another member's
    "coauthor": 10,  # a co-author is a department member (each, at most 3)
    "affiliation": 15,
    "venue": 10,
    "before_degree": -40,
    "no_name": -30,  # no printed author is the person's name
}
#: At least this score: a likely work of theirs (shown first; a weaker one says so).
LIKELY = 50
#: At most this many co-authors count.
MAX_COAUTHORS = 3


@dataclass
class PersonFacts:
    """What the evidence of one person's works is read against, read once per person."""

    person_id: int
    name: str
    orcid: str | None
    #: The year of the first degree's start (earliest education entry), if any.
    first_degree: int | None
    #: Folded institution names the person is at or was at (the department's, theirs).
    affiliations: set[str]
    #: Folded venues of papers on their profile.
    venues: set[str]
    member_names: dict[int, str] = field(default_factory=dict)


def person_facts(session: Session, person: m.Person, institution: str | None) -> PersonFacts:
    """The facts of ``person`` the evidence is read against."""
    first = session.scalar(
        select(func.min(func.coalesce(m.Education.start_year, m.Education.end_year))).where(
            m.Education.owner_id == person.id
        )
    )
    venues = session.scalars(
        select(m.Publication.venue)
        .join(m.ProfilePublication)
        .where(m.ProfilePublication.person_id == person.id, m.Publication.venue.is_not(None))
        .distinct()
    )
    places = {institution, person.institution}
    return PersonFacts(
        person.id, person.full_name, person.orcid, first,
        {fold_for_matching(p) for p in places if p},
        {fold_for_matching(v) for v in venues if v},
    )  # fmt: skip


@dataclass(frozen=True)
class Scored:
    evidence: list[dict[str, Any]]
    score: int
    #: The position of the printed author who is the person (None: none is).
    position: int | None

    @property
    def likely(self) -> bool:
        return self.score >= LIKELY


def _reason(code: str, detail: Any = None, weight: int | None = None) -> dict[str, Any]:
    return {"code": code, "weight": WEIGHTS[code] if weight is None else weight, "detail": detail}


def _who(work: HarvestedWork, facts: PersonFacts, index: AuthorIndex) -> tuple[int | None, list]:
    """The printed author who is the person (by ORCID iD, then by name), with the reasons."""
    if facts.orcid:
        for i, author in enumerate(work.authors):
            if author.orcid and author.orcid.upper().endswith(facts.orcid):
                return i, [_reason("author_orcid", author.name)]
    for i, author in enumerate(work.authors):
        found = index.match(author.name)
        if found.person_id == facts.person_id:
            return i, [_reason(f"name_{found.via}", author.name)]
        if facts.person_id in found.ambiguous:
            others = [facts.member_names.get(p) or index.names.get(p, "") for p in found.ambiguous
                      if p != facts.person_id]  # fmt: skip
            return i, [_reason(f"name_{found.via}", author.name),
                       _reason("namesake", ", ".join(sorted(others)))]  # fmt: skip
    return None, [_reason("no_name")]


def score_work(work: HarvestedWork, facts: PersonFacts, index: AuthorIndex) -> Scored:
    """The evidence that ``work`` is the person's, and its score (0..100)."""
    reasons: list[dict[str, Any]] = []
    if work.found_by != "name":
        reasons.append(_reason("identifier", work.found_by))
    position, who = _who(work, facts, index)
    reasons.extend(who)
    coauthors = []
    for i, author in enumerate(work.authors):
        if i == position:
            continue
        found = index.match(author.name)
        if found.person_id is not None and found.person_id != facts.person_id:
            coauthors.append(index.names[found.person_id])
    for name in coauthors[:MAX_COAUTHORS]:
        reasons.append(_reason("coauthor", name))
    if position is not None:
        places = {fold_for_matching(a) for a in work.authors[position].affiliations}
        shared = places & facts.affiliations
        if shared:
            reasons.append(_reason("affiliation", work.authors[position].affiliations[0]))
    if work.venue and fold_for_matching(work.venue) in facts.venues:
        reasons.append(_reason("venue", work.venue))
    if work.year and facts.first_degree and work.year < facts.first_degree:
        reasons.append(_reason("before_degree", [work.year, facts.first_degree]))
    score = max(0, min(100, sum(r["weight"] for r in reasons)))
    return Scored(reasons, score, position)


_SOURCES = {
    "orcid": "ORCID", "dblp": "DBLP", "openalex": "OpenAlex",
    "semantic_scholar": "Semantic Scholar", "crossref": "Crossref", "arxiv": "arXiv",
}  # fmt: skip


def source_name(source: str) -> str:
    return _SOURCES.get(source, source)


def evidence_text(reason: dict[str, Any]) -> str:
    """One reason in words ("found in your ORCID record", "co-authored with Danyang Zhuo")."""
    code, detail = reason["code"], reason.get("detail")
    if code == "identifier":
        if detail == "orcid":
            return _("found in your ORCID record")
        return _("listed under your %(source)s author id", source=source_name(detail))
    texts = {
        "author_orcid": lambda: _("an author carries your ORCID iD (%(name)s)", name=detail),
        "name_exact": lambda: _("your name as written: %(name)s", name=detail),
        "name_short": lambda: _("your first name and surname: %(name)s", name=detail),
        "name_initials": lambda: _("only your initials match: %(name)s", name=detail),
        "name_first_initial": lambda: _("only your first initial matches: %(name)s", name=detail),
        "namesake": lambda: _("the same name is another member's too (%(names)s)", names=detail),
        "coauthor": lambda: _("co-authored with %(name)s", name=detail),
        "affiliation": lambda: _("affiliation: %(place)s", place=detail),
        "venue": lambda: _("you have published in %(venue)s before", venue=detail),
        "before_degree": lambda: _(
            "published in %(year)s, before your first degree (%(start)s)",
            year=detail[0], start=detail[1],
        ),
        "no_name": lambda: _("none of its authors has your name"),
    }  # fmt: skip
    return texts[code]() if code in texts else code


def member_index(session: Session, people: Iterable[Any] | None = None) -> AuthorIndex:
    """Every department member by every form of their name (for co-authors and namesakes)."""
    return AuthorIndex.load(session) if people is None else AuthorIndex(people)
