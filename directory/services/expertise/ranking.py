"""Who works on X? People ranked by how much their work matches a question.

Two rankings of the people ``viewer`` may see, fused by reciprocal rank fusion (RRF: each
person scores the sum of ``1 / (K + rank)`` over the rankings they are in; docs/search.md says
why):

* **keywords**: the search index (:mod:`directory.services.search`), with the question's
  function words left out ("who works on"), over the person's own document (name, interests,
  biography, areas) and over the documents of their papers, each paper weighed by the person's
  role on it and its age (:func:`paper_weight`). People whose *name* the question is come
  first, and the semantic ranking is left out: a name is a look-up, not a topic.
* **meaning** (with the optional extra ``expertise``): the cosine of the question's vector with
  each paper's and each profile's stored vector (:mod:`.vectors`), in process, with numpy.
  A person scores ``PROFILE_SHARE`` of their profile's similarity plus the rest from their
  three best papers' similarities (``PAPER_SHARES``), each weighed as above.

Papers count for a person only when ``viewer`` may see them and the person has not hidden them
on their profile (the read rules of :mod:`directory.services.access`, the same clause the
paper lists apply): a private paper never lifts anyone for a viewer who may not see it.

Each person shown says why: the two or three papers or interests that matched best
(:func:`reasons`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any

from flask import url_for
from markupsafe import Markup
from sqlalchemy import (
    ARRAY,
    Integer,
    Select,
    String,
    and_,
    any_,
    bindparam,
    cast,
    func,
    literal_column,
    or_,
    select,
)
from sqlalchemy.orm import Session

from directory import models as m
from directory.models import SearchDocument
from directory.services.access import listed_people, publication_clause
from directory.services.expertise import model
from directory.services.expertise.model import np
from directory.services.expertise.texts import interest_phrases
from directory.services.expertise.vectors import matrices
from directory.services.identity import Viewer
from directory.services.search import (
    SearchHit,
    Term,
    _is_cjk,
    best_per_kind,
    highlight,
    localised,
    matches,
    ranked_once,
    tokenize,
    topic_terms,
)
from directory.services.search_engines import SearchEngine, engine_for

#: The constant of reciprocal rank fusion (the value of Cormack et al., 2009).
RRF_K = 60
#: Papers read from each ranking before people are scored.
KEYWORD_PAPERS = 300
SEMANTIC_PAPERS = 200
#: A person's semantic score: this share from the profile's own text, the rest from papers.
PROFILE_SHARE = 0.4
#: How a person's best three papers share the rest: the best counts most, and more papers on
#: the question count more than one.
PAPER_SHARES = (0.6, 0.25, 0.15)
#: People the semantic ranking offers: at most this many, scoring at least the floor and at
#: least this share of the best score (a question on nothing the department does finds few).
SEMANTIC_PEOPLE = 40
SEMANTIC_FLOOR = 0.1
SEMANTIC_RELATIVE = 0.5
#: Profiles looked up at a time by :func:`_profile_people`.
PROFILE_BATCH = 200
#: Reasons shown a person.
REASONS = 3

KEYWORD = "keyword"
HYBRID = "hybrid"


@dataclass(frozen=True)
class Reason:
    """Why a person ranks: a paper (``uid``, shown on ``slug``'s profile) or an interest."""

    kind: str
    text: str
    uid: str | None = None


@dataclass
class Ranking:
    """The people matching a question, best first (ids), with what the reasons need."""

    query: str
    mode: str
    people: list[int] = field(default_factory=list)
    names: set[int] = field(default_factory=set)
    keyword_rank: dict[int, int] = field(default_factory=dict)
    semantic_rank: dict[int, int] = field(default_factory=dict)
    #: person id → (paper id → (weight, keyword score, similarity)).
    papers: dict[int, dict[int, list[float]]] = field(default_factory=dict)
    #: The question's vector (:func:`.model.embed`).
    question: Any = None

    @property
    def total(self) -> int:
        return len(self.people)


def mode() -> str:
    """How people are ranked here: by keywords and meaning, or (without the model) keywords."""
    return HYBRID if model.available() else KEYWORD


def has_cjk(query: str) -> bool:
    return any(_is_cjk(char) for char in query or "")


def paper_weight(
    position: int, authors: int, co_first: bool, role: str, year: int | None, today: date
) -> float:
    """What a paper says about one of its authors: first author (or co-first) 1, a
    student's first-author paper 1.25, last author (the advisor's place) 0.8, any other 0.4;
    times its age's weight (:func:`age_weight`)."""
    return _role_weight(position, authors, co_first, role) * age_weight(year, today.year)


def _role_weight(position: int, authors: int, co_first: bool, role: str) -> float:
    if position == 0 or co_first:
        return 1.25 if role in m.STUDENT_ROLES else 1.0
    if authors > 1 and position == authors - 1:
        return 0.8
    return 0.4


@lru_cache(maxsize=256)
def age_weight(year: int | None, this_year: int) -> float:
    """A paper's weight by its age: halving every eight years, at least a quarter; a paper
    of no year counts as eight years old. Kept per year: a question weighs hundreds of
    papers of a few dozen years."""
    age = max(0, this_year - year) if year else 8
    return max(0.25, 0.5 ** (age / 8))


def one_of(session: Session, column: Any, name: str) -> Any:
    """``column`` is one of the ids given as the one parameter ``name`` (:func:`id_values`):
    an array on PostgreSQL, a JSON list read by ``json_each`` on SQLite. A statement of 500
    ids then compiles and binds as one of 5 (an ``IN`` list turns each id into a literal of
    its own, then a placeholder: most of a question's CPU time at a university's size)."""
    return _one_of(session.get_bind().dialect.name, column, name)


def _one_of(dialect: str, column: Any, name: str) -> Any:
    if dialect == "postgresql":
        return column == any_(cast(bindparam(name, type_=String), ARRAY(Integer)))
    if dialect == "sqlite":
        values = select(literal_column("value")).select_from(
            func.json_each(bindparam(name, type_=String))
        )
        return column.in_(values)
    return column.in_(bindparam(name, expanding=True))


def id_values(session: Session, ids: Iterable[int]) -> Any:
    """The value of a :func:`one_of` parameter."""
    values = sorted({int(i) for i in ids})
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":  # one text, cast: psycopg dumps a list item by item
        return "{" + ",".join(map(str, values)) + "}"
    return json.dumps(values) if dialect == "sqlite" else values


@lru_cache(maxsize=64)
def _attribution_statements(dialect: str, viewer: Viewer) -> tuple[Select, Select]:
    """:func:`_attributions`' two statements for ``viewer`` (the papers a parameter), built
    once per viewer and dialect and kept: building them cost more than running them."""
    pp, a, pub, person = m.ProfilePublication, m.Authorship, m.Publication, m.Person
    authorships = select(a.publication_id, a.person_id, a.position, a.co_first).where(
        _one_of(dialect, a.publication_id, "papers")
    )
    shown = (
        select(pp.person_id, pp.publication_id, pub.year, person.role)
        .join(pub, pub.id == pp.publication_id)
        .join(person, person.id == pp.person_id)
        .where(
            _one_of(dialect, pp.publication_id, "papers"),
            pp.hidden.is_(False),
            publication_clause(viewer, pub),
            listed_people(viewer, person),
        )
    )
    return authorships, shown


def _attributions(
    session: Session, viewer: Viewer, pub_ids: Iterable[int], among: Sequence[Any], today: date
) -> list[tuple[int, int, float]]:
    """(person, paper, weight) for the papers ``pub_ids`` that may lift a person for
    ``viewer``: a paper the viewer may see, not hidden on the profile of a listed person.

    Two statements driven by the papers' ids (one parameter, :func:`one_of`), read as plain
    rows: the authorships (every author counts in a paper's author count), and the profile
    rows shown with their paper and listed person. One join of all four tables with the ids
    as an ``IN`` list let SQLite start from the listed people and read every authorship of
    theirs (0.2 s in a 25,000-paper department)."""
    papers = id_values(session, pub_ids)
    if papers in ([], "[]", "{}"):
        return []
    authorships_of, shown_of = _attribution_statements(session.get_bind().dialect.name, viewer)
    connection = session.connection()
    authorships = connection.execute(authorships_of, {"papers": papers}).all()
    authors: dict[int, int] = defaultdict(int)
    for pub_id, *_rest in authorships:
        authors[pub_id] += 1
    shown = connection.execute(shown_of.where(*among) if among else shown_of, {"papers": papers})
    role_year = {(pid, pub_id): (role, year) for pid, pub_id, year, role in shown}
    return [
        (pid, pub_id, paper_weight(pos, authors[pub_id], co_first, role, year, today))
        for pub_id, pid, pos, co_first in authorships
        if (pid, pub_id) in role_year
        for role, year in (role_year[(pid, pub_id)],)
    ]


def _keyword_people(
    session: Session, ranking: Ranking, viewer: Viewer, among: Sequence[Any], today: date
) -> dict[int, float]:
    terms = topic_terms(ranking.query)
    if not terms:
        return {}
    engine = engine_for(session)
    if engine.keeps and not among:
        stmt = _kept_keyword_statement(type(engine), viewer)
    else:
        stmt = _keyword_statement(engine, terms, viewer, among)
    best = session.execute(stmt, engine.parameters(terms)).all()
    scores: dict[int, float] = defaultdict(float)
    rows = [(object_id, tokens, r) for kind, object_id, tokens, r in best if kind == "person"]
    top = max((float(r or 0) for *_, r in rows), default=0.0) or 1.0
    for person_id, name_tokens, score in rows:
        scores[person_id] += 2.0 * max(float(score or 0), 1e-6) / top
        if matches(name_tokens.split(), terms):
            ranking.names.add(person_id)
    papers = [(object_id, r) for kind, object_id, _tokens, r in best if kind == "publication"]
    top = max((float(r or 0) for _, r in papers), default=0.0) or 1.0
    paper_score = {pub_id: max(float(r or 0), 1e-6) / top for pub_id, r in papers}
    by_person: dict[int, list[float]] = defaultdict(list)
    for person_id, pub_id, weight in _attributions(session, viewer, paper_score, among, today):
        entry = ranking.papers.setdefault(person_id, {}).setdefault(pub_id, [weight, 0.0, 0.0])
        entry[1] = paper_score[pub_id]
        by_person[person_id].append(weight * paper_score[pub_id])
    for person_id, values in by_person.items():
        scores[person_id] += sum(sorted(values, reverse=True)[:10])
    return scores


@lru_cache(maxsize=64)
def _kept_keyword_statement(engine: type[SearchEngine], viewer: Viewer) -> Select:
    """:func:`_keyword_statement` for any question (a parameter) among all listed people,
    built once per viewer and kept: building it cost more than running it."""
    return _keyword_statement(engine(), None, viewer, ())


def _keyword_statement(
    engine: SearchEngine, terms: Sequence[Term] | None, viewer: Viewer, among: Sequence[Any]
) -> Select:
    """The best people's own documents and the best papers (kind, id, title tokens, rank),
    each kind's cut from the matches ranked once (:func:`ranked_once`). The person documents
    are those of the people listed (among ``among``); the papers' are checked per person
    (:func:`_attributions`)."""
    d = SearchDocument
    stmt, rank = engine.matching(terms)
    people = select(m.Person.id).where(listed_people(viewer), *among)
    matched = ranked_once(
        stmt.with_only_columns(d.kind, d.object_id, d.title_tokens, rank.label("rank")).where(
            or_(
                and_(d.kind == "person", d.object_id.in_(people)),
                d.kind == "publication",
            )
        )
    )
    order = (matched.c.rank.desc(), matched.c.object_id)
    cut = best_per_kind(matched, ("person", "publication"), matched.c, order, KEYWORD_PAPERS)
    return select(cut.c.kind, cut.c.object_id, cut.c.title_tokens, cut.c.rank).order_by(
        cut.c.kind, cut.c.rank.desc(), cut.c.object_id
    )


def _semantic_people(
    session: Session, ranking: Ranking, viewer: Viewer, among: Sequence[Any], today: date
) -> dict[int, float]:
    found = matrices(session)
    papers, profiles = found["publication"], found["person"]
    if not len(papers.ids) and not len(profiles.ids):
        return {}
    question = model.embed([ranking.query])[0]
    ranking.question = question
    paper_part = _semantic_papers(session, ranking, papers, viewer, among, today)
    profile_sims = cosines(profiles.vectors, question)
    candidates = set(paper_part) | _profile_people(
        session, profiles.ids, profile_sims, set(paper_part), viewer, among
    )
    rows = profiles.row_of
    scores = {
        person_id: (
            PROFILE_SHARE * max(0.0, float(profile_sims[rows[person_id]]))
            if person_id in rows
            else 0.0
        )
        + paper_part.get(person_id, 0.0)
        for person_id in candidates
    }
    if not scores:
        return {}
    floor = max(SEMANTIC_FLOOR, SEMANTIC_RELATIVE * max(scores.values()))
    kept = sorted((p for p, s in scores.items() if s >= floor), key=lambda p: (-scores[p], p))
    return {p: scores[p] for p in kept[:SEMANTIC_PEOPLE]}


def _profile_people(
    session: Session,
    ids: Any,
    sims: Any,
    counted: set[int],
    viewer: Viewer,
    among: Sequence[Any],
) -> set[int]:
    """The listed people (for ``viewer``, among ``among``) that their profile alone may make
    rank, besides those ``counted`` already: a profile's share at least the floor, best first,
    until ``SEMANTIC_PEOPLE`` are found (anyone after them cannot be among the people kept).
    Looked up a few hundred at a time: at a university, thousands of profiles pass the floor
    for a broad question, and every listed person is 17,500."""
    scores = PROFILE_SHARE * np.maximum(sims.astype(np.float64), 0.0)
    above = scores >= SEMANTIC_FLOOR
    order = np.lexsort((ids[above], -scores[above]))
    alone = [int(i) for i in ids[above][order] if int(i) not in counted]
    listed = select(m.Person.id).where(
        one_of(session, m.Person.id, "people"), listed_people(viewer), *among
    )
    found: set[int] = set()
    for start in range(0, len(alone), PROFILE_BATCH):
        if len(found) >= SEMANTIC_PEOPLE:
            break
        batch = alone[start : start + PROFILE_BATCH]
        params = {"people": id_values(session, batch)}
        found |= set(session.connection().execute(listed, params).scalars())
    return found


def _semantic_papers(
    session: Session,
    ranking: Ranking,
    papers: Any,
    viewer: Viewer,
    among: Sequence[Any],
    today: date,
) -> dict[int, float]:
    """Each person's share from the papers nearest the question: their best three of the
    ``SEMANTIC_PAPERS`` nearest, each weighed by the person's role and its age."""
    if not len(papers.ids):
        return {}
    sims = cosines(papers.vectors, ranking.question)
    best = nearest(sims, SEMANTIC_PAPERS)
    sim_of = {int(papers.ids[i]): float(sims[i]) for i in best if sims[i] > 0}
    by_person: dict[int, list[float]] = defaultdict(list)
    for person_id, pub_id, weight in _attributions(session, viewer, sim_of, among, today):
        entry = ranking.papers.setdefault(person_id, {}).setdefault(pub_id, [weight, 0.0, 0.0])
        entry[2] = sim_of[pub_id]
        by_person[person_id].append(weight * sim_of[pub_id])
    part = {}
    for person_id, values in by_person.items():
        best_papers = sorted(values, reverse=True)[: len(PAPER_SHARES)]
        paper_part = sum(s * v for s, v in zip(PAPER_SHARES, best_papers, strict=False))
        part[person_id] = (1 - PROFILE_SHARE) * paper_part
    return part


def nearest(sims: Any, take: int) -> Any:
    """The rows of the ``take`` highest ``sims`` (any order; among equal ones at the edge, any).
    A partition of all 250,000 of a university costs 3 ms: the highest of every 64th row
    give a bound that at least ``take`` rows reach (checked), and only those are partitioned."""
    take = min(take, len(sims))
    if take <= 0:
        return np.zeros(0, dtype=np.int64)
    sample = sims[::64]
    if len(sample) > take // 32 + 1:
        bound = np.partition(sample, len(sample) - (take // 32 + 1))[len(sample) - (take // 32 + 1)]
        rows = np.flatnonzero(sims >= bound)
        if len(rows) >= take:
            return rows[np.argpartition(-sims[rows], take - 1)[:take]]
    return np.argpartition(-sims, take - 1)[:take]


def cosines(rows: Any, question: Any) -> Any:
    """The cosine of each of the unit ``rows`` with the unit ``question``. numpy's own loop,
    not BLAS: OpenBLAS runs a matrix-vector product this size on every core, and its threads
    spin, which costs a busy web server three times the CPU (docs/search.md)."""
    return np.einsum("ij,j->i", rows, question)


def _ranks(scores: dict[int, float]) -> dict[int, int]:
    ordered = sorted(scores, key=lambda p: (-scores[p], p))
    return {person_id: i + 1 for i, person_id in enumerate(ordered)}


def rank_people(
    session: Session,
    query: str,
    viewer: Viewer,
    among: Iterable[Any] = (),
    today: date | None = None,
    use: str | None = None,
) -> Ranking:
    """The people ``viewer`` may see (and matching the clauses ``among`` on Person) whose work
    matches ``query``, best first. ``use``: ``"keyword"`` or ``"semantic"`` for one ranking
    alone (the evaluation), else both fused when the model is installed."""
    today = today or date.today()
    among = tuple(among)
    ranking = Ranking(query=(query or "").strip(), mode=mode())
    if not ranking.query:
        return ranking
    keyword = {} if use == "semantic" else _keyword_people(session, ranking, viewer, among, today)
    # A question that is someone's name is a look-up: what the name "means" finds no one.
    semantic = (
        _semantic_people(session, ranking, viewer, among, today)
        if ranking.mode == HYBRID and use != "keyword" and not (ranking.names and use is None)
        else {}
    )
    ranking.keyword_rank, ranking.semantic_rank = _ranks(keyword), _ranks(semantic)
    fused: dict[int, float] = defaultdict(float)
    for ranks in (ranking.keyword_rank, ranking.semantic_rank):
        for person_id, rank in ranks.items():
            fused[person_id] += 1.0 / (RRF_K + rank)
    ranking.people = sorted(
        fused,
        key=lambda p: (p not in ranking.names, -fused[p], -keyword.get(p, 0.0), p),
    )
    return ranking


# ----------------------------------------------------------------------------- reasons


def _interest_scores(ranking: Ranking, phrases: list[str], terms: tuple) -> list[float]:
    hits = [0.5 if matches(tokenize(p), terms) else 0.0 for p in phrases]
    if ranking.question is None or not phrases:
        return hits
    sims = cosines(model.embed(phrases), ranking.question)
    return [hit + float(sim) for hit, sim in zip(hits, sims, strict=True)]


def reasons(
    session: Session, ranking: Ranking, people: Sequence[m.Person]
) -> dict[int, list[Reason]]:
    """For each of ``people`` (those shown), the papers and interests that matched best."""
    terms = topic_terms(ranking.query)
    wanted = {pub_id for p in people for pub_id in ranking.papers.get(p.id, {})}
    rows = (
        session.execute(
            select(m.Publication.id, m.Publication.title, m.Publication.uid).where(
                m.Publication.id.in_(wanted)
            )
        ).all()
        if wanted
        else []
    )
    titles = {pub_id: title for pub_id, title, _uid in rows}
    uids = {pub_id: uid for pub_id, _title, uid in rows}
    phrases = {p.id: interest_phrases(p.interests) for p in people}
    flat = [phrase for p in people for phrase in phrases[p.id]]
    interest_score = iter(_interest_scores(ranking, flat, terms))
    found: dict[int, list[Reason]] = {}
    for person in people:
        scored: list[tuple[float, Reason]] = [
            (score, Reason("interest", phrase))
            for phrase in phrases[person.id]
            if (score := next(interest_score)) > 0.15
        ]
        for pub_id, (weight, keyword, sim) in ranking.papers.get(person.id, {}).items():
            if pub_id in titles:
                score = (0.5 * min(keyword, 1.0) + sim) * (0.5 + 0.5 * min(weight, 1.0))
                scored.append((score, Reason("paper", titles[pub_id], uids[pub_id])))
        scored.sort(key=lambda item: (-item[0], item[1].text))
        found[person.id] = [reason for _score, reason in scored[:REASONS]]
    return found


def people_in_order(session: Session, ids: Sequence[int], options: Sequence[Any] = ()) -> list:
    """The people ``ids``, loaded, in that order."""
    if not ids:
        return []
    loaded = {
        p.id: p
        for p in session.scalars(
            select(m.Person).where(m.Person.id.in_(list(ids))).options(*options)
        )
    }
    return [loaded[i] for i in ids if i in loaded]


# ----------------------------------------------------------------------------- the search page


@dataclass(frozen=True)
class ShownReason:
    """A reason as the search page shows it: its text (matched words marked) and its link."""

    kind: str
    text: Markup
    url: str | None


def people_hits(
    session: Session, query: str, viewer: Viewer, limit: int, offset: int = 0
) -> tuple[list[SearchHit], int]:
    """The search page's People: page ``offset``/``limit`` of :func:`rank_people`, each hit
    with its reasons, and how many people match in all."""
    ranking = rank_people(session, query, viewer)
    shown = ranking.people[offset : offset + limit]
    docs = {
        doc.object_id: doc
        for doc in session.scalars(
            select(SearchDocument).where(
                SearchDocument.kind == "person", SearchDocument.object_id.in_(shown)
            )
        )
    }
    people = people_in_order(session, [i for i in shown if i in docs])
    why = reasons(session, ranking, people)
    terms = topic_terms(ranking.query)
    hits = []
    for person in people:
        doc = docs[person.id]
        profile = url_for("directory.profile", slug=person.slug)
        shown_reasons = tuple(
            ShownReason(
                reason.kind,
                highlight(reason.text, terms),
                f"{profile}#pub-{reason.uid}" if reason.uid else None,
            )
            for reason in why.get(person.id, [])
        )
        hits.append(
            SearchHit(
                kind="person",
                object_id=person.id,
                ref=person.slug,
                title=highlight(localised(doc.title), terms),
                summary=highlight(localised(doc.summary), terms),
                snippet=Markup(""),
                url=profile,
                rank=float(len(ranking.people) - ranking.people.index(person.id)),
                reasons=shown_reasons,
            )
        )
    return hits, ranking.total
