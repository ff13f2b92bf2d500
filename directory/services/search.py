"""Full-text search over people, publications and recruiting notices.

One interface, :func:`search`, over engines chosen by the database's dialect
(:mod:`directory.services.search_engines`):

* SQLite: the FTS5 virtual table ``directory_search_fts`` (its rowid is the document's id);
* PostgreSQL: a GIN index on a ``tsvector`` expression over the same token columns.

Both engines see the same *tokens*. Text is tokenised here, in Python (case folded, accents
removed from Latin letters, Chinese and Japanese split into single characters and pairs of
characters), stored space-separated, and the engines only ever compare whole stored tokens or
prefixes of them: no engine tokeniser, stemmer or query parser sees user input. So both engines
give the same answers, and any input is safe (it is reduced to plain word tokens first).

The index (:class:`SearchDocument`) is derived data. It is brought up to date on every commit of
a directory session, and ``flask directory reindex`` rebuilds it: what each document holds and
how it is kept current is :mod:`directory.services.search_index`. What a
viewer finds is decided when searching, by the read rules the pages apply
(:mod:`directory.services.access`: listed people, listed notices, listed publications) on the
documents' objects, so a search can never disagree with the pages, nor lag behind a change the
index has not seen (a paper hidden on a profile, an owner leaving).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any

from flask import url_for
from markupsafe import Markup, escape
from sqlalchemy import (
    Select,
    and_,
    exists,
    func,
    literal_column,
    or_,
    select,
    union_all,
)
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.names import fold_for_search
from directory.i18n import format_short_date, gettext, translate
from directory.models import SearchDocument
from directory.models.vocabularies import N_
from directory.services.access import (
    listed_notices,
    listed_people,
    listed_publications,
    person_clause,
)
from directory.services.identity import Viewer
from directory.services.search_engines import SearchEngine, engine_for

#: The kinds of things found, in the order results are grouped.
KINDS = ("person", "publication", "notice")
KIND_LABELS = {
    "person": N_("People"),
    "publication": N_("Publications"),
    "notice": N_("Recruiting"),
}
KIND_NOUNS = {
    "person": N_("people"),
    "publication": N_("publications"),
    "notice": N_("recruiting notices"),
}

#: The FTS5 table (SQLite) and the GIN index (PostgreSQL) are created by the migration with
#: raw DDL; :func:`directory.migrate.include_object` knows them by this prefix.

MAX_QUERY_LENGTH = 200
MAX_QUERY_TERMS = 12
MAX_TOKEN_LENGTH = 64
SNIPPET_LENGTH = 220


# ----------------------------------------------------------------------------- tokens

_WORD = re.compile(r"[^\W_]+")
_CJK_RANGES = (
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),  # CJK unified ideographs, extension A
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x3FFFF),
)


#: One character of the ranges above (a word without one is a single run: most words are).
_CJK_CHAR = re.compile("[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK_RANGES) + "]")


def _is_cjk(char: str) -> bool:
    return _CJK_CHAR.match(char) is not None


def _runs(word: str) -> Iterator[tuple[bool, str]]:
    """Split a word into runs of CJK and other characters: "GPU加速" → "GPU", "加速"."""
    if _CJK_CHAR.search(word) is None:
        yield False, word
        return
    for is_cjk, chars in itertools.groupby(word, key=_is_cjk):
        yield is_cjk, "".join(chars)


def tokenize(*texts: str | None) -> list[str]:
    """The index tokens of some text. Chinese and Japanese, written without spaces, give every
    character and every pair of neighbouring characters."""
    tokens: list[str] = []
    for text in texts:
        for word in _WORD.findall(fold_for_search(text or "")):
            for is_cjk, run in _runs(word):
                if is_cjk:
                    tokens.extend(run)
                    tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
                else:
                    tokens.append(run[:MAX_TOKEN_LENGTH])
    return tokens


@dataclass(frozen=True)
class Term:
    """One thing a document must contain: the token itself or, with ``prefix``, a token
    starting with it."""

    text: str
    prefix: bool = False


def parse_query(query: str | None) -> tuple[Term, ...]:
    """What the user typed, as terms that must all match. Operators, quotes and any other
    punctuation are plain separators; the last word also matches as a prefix ("xing" finds
    "Xingda"). Chinese and Japanese match by pairs of characters."""
    terms: list[Term] = []
    for word in _WORD.findall(fold_for_search((query or "")[:MAX_QUERY_LENGTH])):
        for is_cjk, run in _runs(word):
            if not is_cjk:
                terms.append(Term(run[:MAX_TOKEN_LENGTH]))
            elif len(run) == 1:
                terms.append(Term(run))
            else:
                terms.extend(Term(run[i : i + 2]) for i in range(len(run) - 1))
    unique = list(dict.fromkeys(terms))[:MAX_QUERY_TERMS]
    if unique and not _is_cjk(unique[-1].text[0]):
        unique[-1] = Term(unique[-1].text, prefix=True)
    return tuple(unique)


#: Words of a question that say nothing of its topic ("who works on LLM serving?").
_FUNCTION_TEXT = (
    "a about an and any anyone are at by can do does doing for from has have here in into "
    "is it me of on or research researcher researchers researching someone study studies "
    "studying that the their there to what which who whom whose with work working works"
)
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
_CJK_FUNCTION = re.compile(
    "谁|哪些|哪位|哪个|有没有|有人|老师|教授|同学|研究|从事|方向|方面|关于|工作|在做|做|在|的|吗|呢|？"
)


def topic_terms(query: str | None) -> tuple[Term, ...]:
    """The terms of ``query`` without the words that only ask ("who works on LLM serving?"
    asks for "llm serving"); all of them when nothing else is left ("the")."""
    text = _CJK_FUNCTION.sub(" ", query or "")
    words = [w for w in re.split(r"\s+", text) if w.lower().strip("?.!,;:") not in FUNCTION_WORDS]
    return parse_query(" ".join(words)) or parse_query(query)


def matches(tokens: Iterable[str], terms: Sequence[Term]) -> bool:
    """Whether a document with ``tokens`` matches: the meaning both engines implement."""
    present = set(tokens)
    return bool(terms) and all(
        t.text in present or (t.prefix and any(tok.startswith(t.text) for tok in present))
        for t in terms
    )


# ----------------------------------------------------------------------------- stored labels
# Stored titles and summaries are in English, so that search matches them; shown localised.


#: How a stored notice title without its own title begins.
RECRUITING_PREFIX = "Recruiting "
#: How a stored notice summary names its deadline.
DEADLINE_PREFIX = "apply by "
#: The stored word for a funded notice.
FUNDED = N_("funded")
#: Labels a stored title or summary may hold, shown translated.
_STORED_LABELS = {label for _v, label in (*m.ROLES, *m.RECRUITING_LEVELS)} | {FUNDED}


def localised(text: str) -> str:
    """A stored title or summary (" · "-separated, in English so that search matches it) in
    the reader's language: the vocabulary labels, "Recruiting …", "apply by <date>" and
    "funded" are translated; what people wrote stays as written."""
    parts = []
    for part in text.split(" · "):
        rest = part.removeprefix(RECRUITING_PREFIX)
        if part.startswith(RECRUITING_PREFIX) and rest in _STORED_LABELS:
            part = gettext("Recruiting %(level)s", level=translate(rest))
        elif part.startswith(DEADLINE_PREFIX) and _ISO_DAY.fullmatch(part[len(DEADLINE_PREFIX) :]):
            day = date.fromisoformat(part[len(DEADLINE_PREFIX) :])
            part = gettext("apply by %(day)s", day=format_short_date(day))
        elif part in _STORED_LABELS:
            part = translate(part)
        parts.append(part)
    return " · ".join(parts)


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


# ----------------------------------------------------------------------------- searching


@dataclass(frozen=True)
class SearchHit:
    kind: str
    object_id: int
    ref: str
    title: Markup
    summary: Markup
    snippet: Markup
    url: str | None
    #: Higher is better; only comparable within one search.
    rank: float
    #: Why a person was found (directory.services.expertise.ranking.ShownReason): the papers
    #: and interests that matched best.
    reasons: tuple = ()


@dataclass
class SearchResults:
    query: str
    terms: tuple[Term, ...]
    hits: list[SearchHit] = field(default_factory=list)
    #: How many documents of each kind match (whatever ``kinds`` was).
    counts: dict[str, int] = field(default_factory=dict)
    #: How many documents of the requested kinds match.
    total: int = 0


def _shown_to(viewer: Viewer, today: date) -> Any:
    """Documents ``viewer`` may find: those of the people, publications and notices the pages
    list for them on ``today`` (checked for the matching documents only)."""
    d = SearchDocument
    listed = (
        ("person", m.Person, listed_people(viewer)),
        ("publication", m.Publication, listed_publications(viewer)),
        ("notice", m.RecruitingNotice, listed_notices(viewer, today)),
    )
    return or_(
        *(
            and_(d.kind == kind, exists(select(model.id).where(model.id == d.object_id, rule)))
            for kind, model, rule in listed
        )
    )


def matching_ids(session: Session, query: str, viewer: Viewer, kind: str) -> Select | None:
    """A subquery of the ids of ``kind`` objects matching ``query`` for ``viewer`` (the JSON
    API's ``q`` filter); ``None`` when the query is blank (no filter)."""
    if not (query or "").strip():
        return None
    terms = parse_query(query)
    if not terms:
        return select(SearchDocument.object_id).where(SearchDocument.id.is_(None))
    stmt, _ = engine_for(session).matching(terms)
    return stmt.where(
        SearchDocument.kind == kind, _shown_to(viewer, date.today())
    ).with_only_columns(SearchDocument.object_id)


def search(
    session: Session,
    query: str | None,
    viewer: Viewer,
    kinds: Iterable[str] | None = None,
    limit: int = 20,
    offset: int = 0,
    today: date | None = None,
    counts: dict[str, int] | None = None,
) -> SearchResults:
    """Find people, publications and recruiting notices matching every word of ``query`` that
    ``viewer`` may see, best first. ``kinds`` limits the kinds returned (default: all).
    ``counts``: the matches of each kind, found by an earlier search of the same query for
    the same viewer (they do not depend on ``kinds``), so that they are not counted again.

    A kind that nothing matches with every word is searched for the question's topic words
    alone (:func:`topic_terms`) when the query has words that only ask: "who works on LLM
    serving?" finds the papers on LLM serving."""
    wanted = tuple(k for k in (kinds or KINDS) if k in KINDS)
    terms = parse_query(query)
    results = SearchResults(query=query or "", terms=terms)
    if not terms or not wanted:
        return results
    today = today or date.today()
    asked = topic_terms(query)
    if counts is None or asked != terms:
        counts = _counts(session, terms, viewer, today, KINDS)
    terms_of = {kind: terms for kind in KINDS}
    if asked != terms:
        missing = tuple(kind for kind in KINDS if not counts[kind])
        counts |= _counts(session, asked, viewer, today, missing) if missing else {}
        terms_of |= {kind: asked for kind in missing}
    results.counts = counts
    results.total = sum(results.counts[k] for k in wanted)
    groups: dict[tuple[Term, ...], list[str]] = {}
    for kind in wanted:
        groups.setdefault(terms_of[kind], []).append(kind)
    rows = [
        row
        for group, group_kinds in groups.items()
        for row in _rows(session, group, viewer, today, group_kinds, limit, offset, groups)
    ]
    if len(groups) > 1:  # each group's rows up to the page's end, merged in rank order
        rows.sort(key=lambda row: (-float(row[1] or 0.0), row[0].title, row[0].id))
        rows = rows[offset : offset + limit]
    results.hits = _search_hits(session, viewer, rows, terms_of)
    return results


def best_of_each(
    session: Session,
    query: str | None,
    viewer: Viewer,
    kinds: Iterable[str],
    limit: int,
    today: date | None = None,
) -> SearchResults:
    """The ``limit`` best matches of each of ``kinds`` that ``viewer`` may see, grouped by kind
    in the order of ``kinds``, and how many of each match: what :func:`search` finds for each
    kind alone (the same hits, counts and fallback to the topic words of a question), with
    every kind ranked and counted in one statement, so that each matching document is
    checked against the read rules and ranked once (the search page's previews)."""
    wanted = tuple(k for k in kinds if k in KINDS)
    terms = parse_query(query)
    results = SearchResults(query=query or "", terms=terms)
    if not terms or not wanted:
        return results
    today = today or date.today()
    counts, rows = _best_of_each(session, terms, viewer, today, wanted, limit)
    terms_of = {kind: terms for kind in wanted}
    asked = topic_terms(query)
    missing = tuple(kind for kind in wanted if not counts[kind])
    if asked != terms and missing:
        more_counts, more_rows = _best_of_each(session, asked, viewer, today, missing, limit)
        counts |= more_counts
        rows += more_rows
        terms_of |= {kind: asked for kind in missing}
    rows.sort(key=lambda row: wanted.index(row[0].kind))  # stable: each kind's own order kept
    results.counts = counts
    results.total = sum(counts.values())
    results.hits = _search_hits(session, viewer, rows, terms_of)
    return results


def _best_of_each(
    session: Session,
    terms: Sequence[Term],
    viewer: Viewer,
    today: date,
    kinds: Sequence[str],
    limit: int,
) -> tuple[dict[str, int], list[Any]]:
    """Each of ``kinds``' matching documents counted and its ``limit`` best, with their rank,
    in one statement (:func:`_best_of_each_statement`)."""
    engine = engine_for(session)
    if engine.keeps:
        stmt = _kept_best_of_each(type(engine), viewer, today, tuple(kinds), limit)
    else:
        stmt = _best_of_each_statement(engine, terms, viewer, today, kinds, limit)
    found = session.execute(stmt, engine.parameters(terms)).all()
    counts = {kind: 0 for kind in kinds} | {doc.kind: n for doc, _rank, n in found}
    return counts, [(doc, score) for doc, score, _n in found]


@lru_cache(maxsize=64)
def _kept_best_of_each(
    engine: type[SearchEngine], viewer: Viewer, today: date, kinds: tuple[str, ...], limit: int
) -> Select:
    """:func:`_best_of_each_statement` for any question (a parameter), built once per viewer,
    day and kinds and kept: building it (read rules included) cost more than the database
    took to run it."""
    return _best_of_each_statement(engine(), None, viewer, today, kinds, limit)


def _best_of_each_statement(
    engine: SearchEngine,
    terms: Sequence[Term] | None,
    viewer: Viewer,
    today: date,
    kinds: Sequence[str],
    limit: int,
) -> Select:
    """The matches' ids ranked once (:func:`ranked_once`), each kind's best cut from them and
    counted (:func:`best_per_kind`), and only then joined to their documents (sorting whole
    documents costs more than ranking them)."""
    d = SearchDocument
    stmt, rank = engine.matching(terms)
    matched = ranked_once(
        stmt.where(_shown_to(viewer, today), d.kind.in_(kinds)).with_only_columns(
            d.id, d.kind, d.title, rank.label("rank")
        )
    )
    best = best_per_kind(
        matched,
        kinds,
        (matched.c.id, matched.c.rank),
        (matched.c.rank.desc(), matched.c.title, matched.c.id),
        limit,
        counted=True,
    )
    return (
        select(d, best.c.rank, best.c.found)
        .join(best, best.c.id == d.id)
        .order_by(d.kind, best.c.rank.desc(), d.title, d.id)
    )


def ranked_once(matching: Select) -> Any:
    """``matching`` (a search's matches with their rank) as a common table expression that the
    database computes once and keeps (``MATERIALIZED``), however many times the statement
    reads it: each kind's best and the counts are then cut from one ranked set. Ranking,
    numbering and counting the matches by kind with window functions sorted all of them
    (2,700 for a common surname) with their titles: a third of the search page's time in
    SQLite."""
    cte = matching.cte("matched")
    for dialect in ("sqlite", "postgresql"):
        cte = cte.prefix_with("MATERIALIZED", dialect=dialect)
    return cte


def best_per_kind(
    matched: Any,
    kinds: Sequence[str],
    columns: Sequence[Any],
    order: Sequence[Any],
    limit: int,
    counted: bool = False,
) -> Any:
    """A subquery of ``columns`` of the ``limit`` first rows of each of ``kinds`` in
    ``matched`` (a :func:`ranked_once` table with a ``kind`` column), in the ``order`` given:
    one ``ORDER BY … LIMIT`` per kind, which keeps only the best few while reading the rows
    (no sort of them all), put together with ``UNION ALL``; with ``counted``, each row also
    says how many rows its kind has in ``matched`` (``found``). The rows come in no order."""

    def best_of(kind: str) -> Any:
        of_kind = matched.c.kind == kind
        found = (
            (select(func.count()).where(of_kind).scalar_subquery().label("found"),)
            if counted
            else ()
        )
        return select(*columns, *found).where(of_kind).order_by(*order).limit(limit).subquery()

    return union_all(*(select(best_of(kind)) for kind in kinds)).subquery("best")


def _counts(
    session: Session, terms: Sequence[Term], viewer: Viewer, today: date, kinds: Sequence[str]
) -> dict[str, int]:
    """How many documents of each of ``kinds`` match ``terms`` for ``viewer``."""
    stmt, _rank = engine_for(session).matching(terms)
    counted = (
        stmt.where(_shown_to(viewer, today), SearchDocument.kind.in_(kinds))
        .with_only_columns(SearchDocument.kind, func.count())
        .group_by(SearchDocument.kind)
    )
    return {kind: 0 for kind in kinds} | {kind: n for kind, n in session.execute(counted)}


def _rows(
    session: Session,
    terms: Sequence[Term],
    viewer: Viewer,
    today: date,
    kinds: Sequence[str],
    limit: int,
    offset: int,
    groups: dict,
) -> list[Any]:
    """The matching documents of ``kinds``, best first, with their rank: the page asked for,
    or (when other kinds are searched for other terms, ``groups``) all up to its end."""
    stmt, rank = engine_for(session).matching(terms)
    stmt = (
        stmt.where(_shown_to(viewer, today))
        .add_columns(rank.label("rank"))
        .where(SearchDocument.kind.in_(kinds))
        .order_by(literal_column("rank").desc(), SearchDocument.title, SearchDocument.id)
    )
    if len(groups) > 1:
        return session.execute(stmt.limit(offset + limit)).all()
    return session.execute(stmt.limit(limit).offset(offset)).all()


def _search_hits(
    session: Session, viewer: Viewer, rows: Sequence[Any], terms_of: dict[str, tuple[Term, ...]]
) -> list[SearchHit]:
    """The hits of ``rows`` (document, rank), each highlighted for the terms of its kind."""
    urls = publication_urls(
        session, viewer, [doc.object_id for doc, _ in rows if doc.kind == "publication"]
    )
    return [_search_hit(doc, score, terms_of[doc.kind], urls) for doc, score in rows]


def _search_hit(doc: SearchDocument, score: Any, terms: Sequence[Term], urls: dict) -> SearchHit:
    return SearchHit(
        kind=doc.kind,
        object_id=doc.object_id,
        ref=doc.ref,
        title=highlight(localised(doc.title), terms),
        summary=highlight(localised(doc.summary), terms),
        snippet=highlight(doc.body, terms, SNIPPET_LENGTH),
        url=urls.get(doc.object_id) if doc.kind == "publication" else _url(doc),
        rank=float(score or 0.0),
    )


def _url(doc: SearchDocument) -> str:
    url = url_for("directory.profile", slug=doc.ref)
    return f"{url}#recruiting" if doc.kind == "notice" else url


def publication_urls(
    session: Session, viewer: Viewer, ids: Sequence[int], external: bool = False
) -> dict[int, str]:
    """Where each publication is shown to ``viewer``: on the profile of its first author in
    the department whose profile the viewer may see (the profiles that make a paper listed)
    and who has not hidden it."""
    if not ids:
        return {}
    a, pp = m.Authorship, m.ProfilePublication
    rows = session.execute(
        select(a.publication_id, m.Person.slug, m.Publication.uid)
        .join(m.Person, m.Person.id == a.person_id)
        .join(m.Publication, m.Publication.id == a.publication_id)
        .join(pp, and_(pp.person_id == a.person_id, pp.publication_id == a.publication_id))
        .where(
            a.publication_id.in_(ids),
            pp.hidden.is_(False),
            person_clause(viewer, m.Person),
        )
        .order_by(a.publication_id, a.position)
    )
    urls: dict[int, str] = {}
    for pub_id, slug, uid in rows:
        if pub_id not in urls:
            urls[pub_id] = url_for(
                "directory.profile", slug=slug, _anchor=f"pub-{uid}", _external=external
            )
    return urls


# ----------------------------------------------------------------------------- highlighting


def _hit(token: str, terms: Sequence[Term]) -> bool:
    return any(token == t.text or (t.prefix and token.startswith(t.text)) for t in terms)


def _spans(text: str, terms: Sequence[Term]) -> list[tuple[int, int]]:
    """Character ranges of ``text`` that matched a term."""
    if text.isascii():
        return _ascii_spans(text, terms)
    return _unicode_spans(text, terms)


def _ascii_spans(text: str, terms: Sequence[Term]) -> list[tuple[int, int]]:
    """:func:`_unicode_spans` of ASCII text (a search page highlights some fifty titles,
    summaries and bodies, most of them ASCII): each word is its own token, lower-cased, and
    text without any term in it has no span."""
    lowered = text.lower()
    words = [t for t in terms if t.text in lowered]
    if not words:
        return []
    spans = []
    for match in _WORD.finditer(lowered):
        if _hit(match.group()[:MAX_TOKEN_LENGTH], words):
            spans.append(match.span())
    return spans


def _unicode_spans(text: str, terms: Sequence[Term]) -> list[tuple[int, int]]:
    words = [t for t in terms if not _is_cjk(t.text[0])]
    grams = [t.text for t in terms if _is_cjk(t.text[0])]
    spans: list[tuple[int, int]] = []
    for match in _WORD.finditer(text):
        start = match.start()
        for is_cjk, run in _runs(match.group()):
            if is_cjk:
                folded = fold_for_search(run)
                if len(folded) == len(run):
                    for gram in grams:
                        found = folded.find(gram)
                        while found >= 0:
                            spans.append((start + found, start + found + len(gram)))
                            found = folded.find(gram, found + 1)
            elif any(_hit(token, words) for token in tokenize(run)):
                spans.append((start, start + len(run)))
            start += len(run)
    merged: list[tuple[int, int]] = []
    for begin, end in sorted(spans):
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((begin, end))
    return merged


def highlight(text: str, terms: Sequence[Term], length: int | None = None) -> Markup:
    """``text`` escaped, with what matched in ``<mark>``; with ``length``, cut to about that
    many characters around the first match."""
    spans = _spans(text, terms)
    begin, end = 0, len(text)
    if length is not None and len(text) > length:
        first = spans[0][0] if spans else 0
        begin = max(0, first - length // 3)
        if begin:
            space = text.find(" ", begin)
            begin = space + 1 if 0 <= space < first else begin
        end = min(len(text), begin + length)
        if end < len(text):
            space = text.rfind(" ", begin, end)
            end = space if space > max(begin, spans[0][1] if spans else begin) else end
    out = [Markup("…") if begin else Markup("")]
    position = begin
    for span_begin, span_end in spans:
        if span_end <= begin or span_begin >= end:
            continue
        span_begin, span_end = max(span_begin, begin), min(span_end, end)
        out.append(escape(text[position:span_begin]))
        out.append(Markup("<mark>{}</mark>").format(text[span_begin:span_end]))
        position = span_end
    if end < len(text):
        out.append(escape(text[position:end].rstrip(" ,;:")))
        out.append(Markup("…"))
    else:
        out.append(escape(text[position:end]))
    return Markup("").join(out)
