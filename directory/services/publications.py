"""One record per paper, shared by every department author.

This module holds the rules, free of any web framework:

* **matching** (:class:`PublicationIndex`): the same normalised DOI, arXiv id or uid is the
  same paper; otherwise a close title (rapidfuzz ``token_set_ratio`` on normalised titles) in
  a year within one, sharing an author surname, is only a *candidate* a person decides on.
  Two different DOIs are never the same paper.
* **author linking** (:class:`AuthorIndex`): names as printed ("X. Wei", "Wei, Xingda",
  "魏星达") are matched to department people through their full name, name variants and
  native name; an ambiguous or unknown name stays plain text.
* **profiles**: a paper is on the profiles of those who listed it themselves; a linked
  co-author is asked (:mod:`directory.services.claims.queue`), and may hide it there or mark
  it selected once it is theirs.

Versions, merge and split for admins are in :mod:`directory.services.publication_merge`.

Services only ``flush()``; the caller commits.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz
from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, selectinload

from directory import models as m
from directory.formats.names import (
    fold_for_matching,
    is_initials,
    name_match_keys,
    name_parts,
    surname,
)
from directory.services.publication_rows import author_dicts, child_dicts

#: Least ``token_set_ratio`` (0–100) between normalised titles for a possible duplicate.
TITLE_SIMILARITY = 90
#: A title word found in at most this many papers is "rare" (see PublicationIndex.candidates).
RARE_WORD = 64

# --------------------------------------------------------------------------------------------
# Normalising names and titles
# --------------------------------------------------------------------------------------------


def normalise_title(title: str | None) -> str:
    """The comparable form of a title (see :func:`fold_for_matching`)."""
    return fold_for_matching(title or "")


def title_words(title: str | None) -> frozenset[str]:
    """The distinct words of ``title`` as titles are compared (lower case, no accents or
    punctuation): those stored for each paper (:mod:`directory.services.title_words`) and
    those :class:`PublicationIndex` looks papers up by."""
    return _distinct_words(normalise_title(title))


@lru_cache(maxsize=1 << 16)
def _distinct_words(text: str) -> frozenset[str]:
    # Cached: an import asks for each entry's words to count, match, index and store them.
    return frozenset(text.split())


# --------------------------------------------------------------------------------------------
# Author linking
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuthorMatch:
    """How a printed name was resolved: a person, ambiguous (several people) or nobody."""

    person_id: int | None
    ambiguous: tuple[int, ...] = ()
    via: str | None = None


class AuthorIndex:
    """Department people by every form of their name.

    A printed name is looked up level by level: first what the person wrote themselves
    (their full name, variants and native name, letter for letter), then derived forms —
    first name and surname, then initials ("X. Wei" for "Xingda Wei"), the latter only when
    the printed name itself has initials, so "Xiaoming Wei" never links to "Xingda Wei". At the
    first level where the name is known, one person links it and several leave it plain text.
    """

    LEVELS = ("exact", "short", "initials", "first_initial")

    def __init__(self, people: Iterable[tuple[int, str, list[str] | None, str | None]]):
        self.keys: dict[str, dict[str, set[int]]] = {
            level: defaultdict(set) for level in self.LEVELS
        }
        self.names: dict[int, str] = {}
        self._memo: dict[str, AuthorMatch] = {}
        for person_id, full_name, variants, native_name in people:
            self.names[person_id] = full_name
            forms = [full_name, *(variants or [])]
            if native_name:
                forms.append(native_name)
            for form in forms:
                keys = name_match_keys(form)
                for level, key in keys.items():
                    self.keys[level][key].add(person_id)
                given, last = name_parts(form)
                if given:
                    self.keys["first_initial"][f"{given[0][0]} {last}"].add(person_id)

    @classmethod
    def load(cls, session: Session) -> AuthorIndex:
        rows = session.execute(
            select(m.Person.id, m.Person.full_name, m.Person.name_variants, m.Person.native_name)
        )
        return cls(rows)

    def match(self, name: str) -> AuthorMatch:
        found = self._memo.get(name)
        if found is None:
            found = self._memo[name] = self._match(name)
        return found

    def _match(self, name: str) -> AuthorMatch:
        keys = name_match_keys(name)
        if not keys:
            return AuthorMatch(None)
        given, last = name_parts(name)
        lookups = [("exact", keys["exact"])]
        if "short" in keys:
            lookups.append(("short", keys["short"]))
        elif is_initials(given):
            lookups.append(("initials", keys["initials"]))
            if len(given) == 1:
                lookups.append(("first_initial", keys["initials"]))
        for level, key in lookups:
            found = self.keys[level].get(key)
            if found:
                if len(found) == 1:
                    return AuthorMatch(next(iter(found)), via=level)
                return AuthorMatch(None, ambiguous=tuple(sorted(found)), via=level)
        return AuthorMatch(None)

    def matches_person(self, name: str, person_id: int) -> bool:
        """Whether ``name`` could be ``person_id`` (even if it could also be someone else)."""
        result = self.match(name)
        return result.person_id == person_id or person_id in result.ambiguous


def link_authors(
    authors: list[dict[str, Any]], index: AuthorIndex, owner_id: int | None = None
) -> list[AuthorMatch]:
    """Resolve printed author names; ``owner_id`` (the importer) wins an ambiguous name that
    could be them, since they know the paper is theirs."""
    results = []
    for author in authors:
        found = index.match(author["name"])
        if found.person_id is None and owner_id is not None and owner_id in found.ambiguous:
            found = AuthorMatch(owner_id, via=found.via)
        results.append(found)
    # One person is one author: a second printed name resolving to the same person stays text.
    seen: set[int] = set()
    for i, found in enumerate(results):
        if found.person_id is not None:
            if found.person_id in seen:
                results[i] = AuthorMatch(None)
            seen.add(found.person_id)
    return results


def accept_suggested_authorship(session: Session, authorship: m.Authorship, person_id: int) -> None:
    """The member a printed name was suggested to says it is them: the name links to them and
    the paper is on their profile (unless they already were another author of it)."""
    pub = authorship.publication
    authorship.suggested_person_id = None
    if any(a.person_id == person_id for a in pub.authorships):
        session.flush()
        return
    authorship.person_id = person_id
    if session.get(m.ProfilePublication, (person_id, pub.id)) is None:
        session.add(m.ProfilePublication(person_id=person_id, publication_id=pub.id))
    session.flush()


def reject_suggested_authorship(session: Session, authorship: m.Authorship) -> None:
    """The member says the printed name is not them: it stays plain text, not asked again."""
    authorship.suggestion_declined = True
    session.flush()


def _chunks(items: list[Any], size: int = 500) -> Iterable[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


# --------------------------------------------------------------------------------------------
# Matching papers
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A paper that may be the same as the one being imported."""

    publication_id: int
    title: str
    year: int | None
    venue: str | None
    score: int
    reason: str
    #: What linking the entry to this paper would add to it, in words (set by the plan).
    changes: tuple[str, ...] = ()


@dataclass
class MatchResult:
    """The same paper (``same``, with why) or possible duplicates (``candidates``)."""

    same: int | None = None
    reason: str | None = None
    candidates: list[Candidate] = field(default_factory=list)


@dataclass
class _Known:
    id: int
    title: str
    year: int | None
    venue: str | None
    doi: str | None
    norm_title: str
    volume: str | None = None
    number: str | None = None
    pages: str | None = None


#: Titles that many different papers share ("Editorial" in every journal): never the same
#: paper, nor a possible duplicate, on the title alone.
GENERIC_TITLES = frozenset(
    fold_for_matching(t)
    for t in (
        "editorial", "guest editorial", "editorial note", "editor's note", "from the editor",
        "preface", "foreword", "introduction", "erratum", "errata", "corrigendum",
        "correction", "retraction", "addendum", "index", "contents", "table of contents",
        "front matter", "back matter", "book review", "book reviews", "letter to the editor",
        "letters", "in memoriam", "obituary", "reviewers", "acknowledgments",
        "acknowledgements", "abstracts", "news", "announcements", "calendar", "panel",
        "keynote", "invited talk", "tutorial", "summary", "report", "untitled",
    )
)  # fmt: skip
_FIRST_NUMBER_RE = re.compile(r"\d+")
#: Below this word coverage (shorter title's words / longer's) a title contained in another
#: is not taken as the same title: "A" is not "XStore: A Fast ...".
TITLE_COVERAGE = 0.8


def _same_value(name: str, ours: Any, theirs: Any) -> bool:
    """Whether two values of a field can belong to the same paper (a missing one can)."""
    if not ours or not theirs:
        return True
    if name == "pages":
        a, b = _FIRST_NUMBER_RE.search(str(ours)), _FIRST_NUMBER_RE.search(str(theirs))
        return (a.group(0) if a else fold_for_matching(str(ours))) == (
            b.group(0) if b else fold_for_matching(str(theirs))
        )
    if name == "venue":
        # "Proc. SOSP" and "SOSP '23" are one venue, and an abbreviation (one word: "CSUR")
        # may stand for any name; two names of several words that share little are not one.
        a, b = fold_for_matching(str(ours)), fold_for_matching(str(theirs))
        if " " not in a or " " not in b:
            return True
        return fuzz.token_set_ratio(a, b) >= 50
    return fold_for_matching(str(ours)) == fold_for_matching(str(theirs))


def conflicting_detail(data: dict[str, Any], known: _Known) -> str | None:
    """The first detail (DOI, volume, issue, pages, venue) in which ``data`` and a known paper
    differ where both have it: such papers are never the same, however alike the titles."""
    doi = (data.get("doi") or "").lower() or None
    if doi and known.doi and doi != known.doi:
        return "DOI"
    for name, word in (("volume", "volume"), ("number", "issue"), ("pages", "pages"),
                       ("venue", "venue")):  # fmt: skip
        if not _same_value(name, data.get(name), getattr(known, name)):
            return word
    return None


def agreeing_details(data: dict[str, Any], known: _Known) -> bool:
    """Whether ``data`` and a known paper share the details that tell one "Editorial" or
    "Letters" from another: the same venue and the same volume, issue and pages, each
    present on both sides (a missing one tells nothing)."""
    if not (data.get("venue") and known.venue):
        return False
    if fold_for_matching(data["venue"]) != fold_for_matching(known.venue):
        return False
    return all(
        bool(data.get(name)) == bool(getattr(known, name))
        and (
            not data.get(name)
            or fold_for_matching(str(data[name])) == fold_for_matching(str(getattr(known, name)))
        )
        for name in ("volume", "number", "pages")
    ) and any(data.get(name) for name in ("volume", "number", "pages"))


def title_similarity(a: str, b: str, cutoff: float = 0) -> float:
    """How alike two normalised titles are (0..100), not fooled by containment: a title whose
    words are a small part of the other's scores by word order, not as a subset."""
    words_a, words_b = set(a.split()), set(b.split())
    if not words_a or not words_b:
        return 0
    coverage = min(len(words_a), len(words_b)) / max(len(words_a), len(words_b))
    if coverage >= TITLE_COVERAGE:
        return fuzz.token_set_ratio(a, b, score_cutoff=cutoff)
    return fuzz.token_sort_ratio(a, b, score_cutoff=cutoff)


class _KnownPapers(dict):
    """Paper id -> :class:`_Known`, each built from its database row the first time it is
    looked up: matching a file looks at a few of the department's papers, not at all."""

    def __init__(self) -> None:
        super().__init__()
        #: id -> (row of the index query, normalised title), for the papers not built yet.
        self.rows: dict[int, tuple[tuple, str]] = {}

    def __missing__(self, pid: int) -> _Known:
        row, norm = self.rows.pop(pid)
        _, _, title, year, venue, doi, _, volume, number, pages = row
        known = self[pid] = _Known(
            pid, title, year, venue, doi and doi.lower(), norm, volume, number, pages
        )
        return known


#: Values bound in one IN list of the index's reads: a whole file's DOIs or title words at
#: once (a BibTeX file holds at most formats.bibtex.MAX_BIBTEX_ENTRIES), well within what
#: SQLite (32,766) and PostgreSQL's protocol (65,535) bind in one statement.
_MANY = 5000


class PublicationIndex:
    """The directory's papers that the given entries can match, read once, for matching many
    entries without a query each.

    The index reads only what matching ``entries`` (interchange publication dicts: a file
    being imported, or one paper) can touch: the papers with one of their record ids, DOIs
    (compared case-blind) or arXiv ids; the ``own`` papers (the importer's, which the same
    title and year can match); how many papers have each word of their titles, and the papers
    having their rare words (the stored words: :mod:`directory.services.title_words`). So it
    costs what the entries are, not what the directory is. Asked about another paper, it reads
    what that one can match then (a few queries each: give the entries up front).

    Extra papers (those an import is about to create) can be added with :meth:`add`, under
    negative ids chosen by the caller, so that a file's entries are matched against each other
    by the same rules.
    """

    def __init__(
        self, session: Session, entries: Iterable[dict[str, Any]] = (), own: Iterable[int] = ()
    ) -> None:
        self.session = session
        entries = list(entries)
        self.by_uid: dict[str, int] = {}
        self.by_doi: dict[str, int] = {}
        self.by_arxiv: dict[str, int] = {}
        self.known: _KnownPapers = _KnownPapers()
        #: (normalised title, year) -> papers: a person's own paper read again.
        self.by_title_year: dict[tuple[str, int | None], list[int]] = defaultdict(list)
        #: title word -> year -> papers whose title has it (rare words find near-duplicates).
        self.postings: dict[str, dict[int | None, list[int]]] = defaultdict(
            lambda: defaultdict(list)
        )
        #: title word -> how many papers have it (the directory's, then the added ones).
        self.word_count: dict[str, int] = defaultdict(int)
        #: Words of the entries' titles whose papers are not read yet (too common to be worth
        #: it, unless one is a title's rarest: see :meth:`candidates`).
        self._unread_words: set[str] = set()
        #: Common words -> the years their papers were read in (see :meth:`candidates`).
        self._years_read: dict[str, set[int | None]] = defaultdict(set)
        self._own: Iterable[int] | None = None
        self._seen: set[int] = set()
        self._surnames: dict[int, set[str]] = {}
        self._pending_authors: dict[int, list[dict[str, Any]]] = {}
        if session.autoflush:
            session.flush()  # as session.execute would; the rows are read below the ORM
        #: The record ids, DOIs (lower case) and arXiv ids looked up so far.
        self._asked: dict[str, set[str]] = {"uid": set(), "doi": set(), "arxiv_id": set()}
        #: The title words counted so far.
        self._counted: set[str] = set()
        self._read_identifiers(
            uid={d["uid"] for d in entries if d.get("uid")},
            doi={d["doi"].lower() for d in entries if d.get("doi")},
            arxiv_id={d["arxiv_id"] for d in entries if d.get("arxiv_id")},
        )
        self._read_own(own)
        self._know_titles([title_words(d.get("title")) for d in entries])

    # -------------------------------------------------------------------- reading the database

    _PAPER_COLUMNS = (
        "id", "uid", "title", "year", "venue", "doi", "arxiv_id", "volume", "number", "pages"
    )  # fmt: skip

    @classmethod
    def _papers(cls, *extra: Any) -> Any:
        """SELECT of the columns a :class:`_Known` record is built of (then ``extra``)."""
        paper = m.Publication.__table__.c
        return select(*(paper[name] for name in cls._PAPER_COLUMNS), *extra)

    def _read(self, statement: Any) -> None:
        """Index the papers ``statement`` gives (each once; Core rows of plain values: the
        ORM's result processing costs more than the query)."""
        self._remember(self.session.connection().execute(statement).all())

    def _remember(self, rows: Iterable[tuple]) -> None:
        by_uid, by_doi, by_arxiv = self.by_uid, self.by_doi, self.by_arxiv
        by_title_year, seen, stored = self.by_title_year, self._seen, self.known.rows
        # In id order, so that of two papers whose DOIs differ only in case the older is found.
        for row in sorted(rows, key=lambda r: r[0]):
            pid, uid, title, year, _venue, doi, arxiv_id = row[:7]
            if pid in seen:
                continue
            seen.add(pid)
            by_uid[uid] = pid
            if doi:
                by_doi.setdefault(doi.lower(), pid)
            if arxiv_id:
                by_arxiv.setdefault(arxiv_id, pid)
            norm = fold_for_matching(title or "")
            stored[pid] = (row[:10], norm)
            if norm:
                by_title_year[(norm, year)].append(pid)

    def _read_identifiers(self, **values: set[str]) -> None:
        """The papers with any of these record ids (``uid``), DOIs (``doi``, lower case: the
        stored ones are compared by SQL's ``lower``, through an index on PostgreSQL, by one
        scan of a file's DOIs on SQLite) or arXiv ids (``arxiv_id``)."""
        paper = m.Publication.__table__.c
        for name, wanted in values.items():
            wanted = wanted - self._asked[name]
            self._asked[name].update(wanted)
            column = func.lower(paper.doi) if name == "doi" else paper[name]
            for chunk in _chunks(sorted(wanted), _MANY):
                self._read(self._papers().where(column.in_(chunk)))

    def _paper_with(self, name: str, value: str, found: dict[str, int]) -> int | None:
        if value not in self._asked[name]:  # not among the entries the index was made for
            self._read_identifiers(**{name: {value}})
        return found.get(value)

    def paper_with_uid(self, uid: str) -> int | None:
        return self._paper_with("uid", uid, self.by_uid)

    def paper_with_doi(self, doi: str) -> int | None:
        """The paper with this DOI (any case), if any."""
        doi = doi.lower()
        return self._paper_with("doi", doi, self.by_doi)

    def paper_with_arxiv_id(self, arxiv_id: str) -> int | None:
        return self._paper_with("arxiv_id", arxiv_id, self.by_arxiv)

    def _know_titles(self, titles: list[set[str]]) -> None:
        """Count the papers having each word of ``titles`` (each a title's words) if not
        counted yet, and read those having a rare one. A common word's papers are read only
        for a title whose rarest word it is, and only in the years that title is compared in
        (:meth:`candidates`)."""
        counts = self.word_count
        words = set().union(*titles) - self._counted
        if not words:
            return
        self._counted.update(words)
        self._count_words(words)
        rare = [w for w in words if 0 < counts.get(w, 0) <= RARE_WORD]
        self._unread_words.update(w for w in words if counts.get(w, 0) > RARE_WORD)
        self._read_postings(rare)

    def _read_own(self, own: Iterable[int]) -> None:
        self._own = own
        missing = [pid for pid in own if pid > 0 and pid not in self._seen]
        paper = m.Publication.__table__.c
        for chunk in _chunks(missing, _MANY):
            self._read(self._papers().where(paper.id.in_(chunk)))

    def _count_words(self, words: Iterable[str]) -> None:
        word = m.PublicationTitleWord.__table__.c.word
        for chunk in _chunks(sorted(words), _MANY):
            counted = select(word, func.count()).where(word.in_(chunk)).group_by(word)
            for name, count in self.session.connection().execute(counted):
                self.word_count[name] += count

    def _read_postings(self, words: list[str], years: list[int | None] | None = None) -> None:
        """The papers having each of ``words``, posted by word and year; with ``years``, only
        those of these years (``None`` among them: of no year), for a common word."""
        words_table = m.PublicationTitleWord.__table__.c
        paper = m.Publication.__table__.c
        postings = self.postings
        for chunk in _chunks(sorted(words), _MANY):
            statement = (
                self._papers(words_table.word)
                .join_from(
                    m.PublicationTitleWord.__table__,
                    m.Publication.__table__,
                    paper.id == words_table.publication_id,
                )
                .where(words_table.word.in_(chunk))
            )
            if years is not None:
                dated = [y for y in years if y is not None]
                statement = statement.where(
                    or_(paper.year.in_(dated), paper.year.is_(None))
                    if None in years
                    else paper.year.in_(dated)
                )
            rows = self.session.connection().execute(statement).all()
            for row in rows:
                postings[row[10]][row[3]].append(row[0])
            self._remember(rows)
        if years is None:
            self._unread_words.difference_update(words)
        else:
            for word in words:
                self._years_read[word].update(years)

    def _add(self, pid, title, year, venue, doi, arxiv_id, volume, number, pages) -> None:
        if doi:
            doi = doi.lower()
            self.by_doi.setdefault(doi, pid)
        if arxiv_id:
            self.by_arxiv.setdefault(arxiv_id, pid)
        norm = normalise_title(title)
        self.known[pid] = _Known(pid, title, year, venue, doi, norm, volume, number, pages)
        postings, word_count = self.postings, self.word_count
        for word in title_words(title):
            postings[word][year].append(pid)
            word_count[word] += 1
        if norm:
            self.by_title_year[(norm, year)].append(pid)

    def add(self, pid: int, data: dict[str, Any]) -> None:
        """Make an entry about to be imported (``pid`` < 0) matchable by later entries."""
        self._add(
            pid, data["title"], data.get("year"), data.get("venue"), data.get("doi"),
            data.get("arxiv_id"), data.get("volume"), data.get("number"), data.get("pages"),
        )  # fmt: skip
        self._pending_authors[pid] = data.get("authors") or []

    def surnames(self, pids: list[int]) -> dict[int, set[str]]:
        for pid in pids:
            if pid not in self._surnames and pid in self._pending_authors:
                names = self._pending_authors[pid]
                self._surnames[pid] = {surname(a["name"]) for a in names} - {""}
        missing = [pid for pid in pids if pid not in self._surnames and pid > 0]
        for chunk in _chunks(missing):
            for pid in chunk:
                self._surnames[pid] = set()
            rows = self.session.execute(
                select(m.Authorship.publication_id, m.Authorship.name).where(
                    m.Authorship.publication_id.in_(chunk)
                )
            )
            for pid, name in rows:
                self._surnames[pid].add(surname(name))
        return {pid: self._surnames.get(pid, set()) for pid in pids}

    def match(
        self, data: dict[str, Any], *, exclude: Iterable[int] = (), own: Iterable[int] = ()
    ) -> MatchResult:
        """Find ``data`` (an interchange publication dict) among the known papers.

        ``own`` are the importer's papers: one with the same title and year (and no other DOI
        or arXiv id) is the same paper read again, so that importing a file twice adds nothing
        even for entries without identifiers. Elsewhere in the department the same title is
        only a candidate.
        """
        excluded = set(exclude)
        uid = data.get("uid")
        if uid and (pid := self.paper_with_uid(uid)) not in (None, *excluded):
            return MatchResult(pid, "the same record id")
        doi = (data.get("doi") or "").lower() or None
        if doi and (pid := self.paper_with_doi(doi)) not in (None, *excluded):
            return MatchResult(pid, f"the same DOI ({doi})")
        arxiv_id = data.get("arxiv_id")
        if arxiv_id:
            pid = self.paper_with_arxiv_id(arxiv_id)
            # A preprint's arXiv id on a paper with another DOI is a version, not the same.
            if pid is not None and pid not in excluded:
                other_doi = self.known[pid].doi
                if not (doi and other_doi and doi != other_doi):
                    return MatchResult(pid, f"the same arXiv id ({arxiv_id})")
        if own and own is not self._own:
            self._read_own(own)
        norm = normalise_title(data.get("title"))
        same_title = self.by_title_year.get((norm, data.get("year")))
        if own and same_title:
            # A generic title ("Letters", "Calendar": one in every issue) is the importer's own
            # paper read again only with the same venue, volume, issue and pages.
            generic = norm in GENERIC_TITLES
            mine = set(own)  # only here: a profile's hundreds of ids, for each entry of a file
            for pid in same_title:
                known = self.known[pid]
                if (
                    pid in mine and pid not in excluded and not (doi and known.doi)
                    and conflicting_detail(data, known) is None
                    and (not generic or agreeing_details(data, known))
                ):  # fmt: skip
                    return MatchResult(pid, "the same title and year")
        return MatchResult(candidates=self.candidates(data, excluded))

    def candidates(self, data: dict[str, Any], excluded: set[int] = frozenset()) -> list[Candidate]:
        """Papers with a close title, a year within one and a shared author surname."""
        norm = normalise_title(data.get("title"))
        words = title_words(data.get("title"))
        if not words or norm in GENERIC_TITLES:
            return []
        year = data.get("year")
        if not words <= self._counted:  # a title the index was not made for
            self._know_titles([words])
        # Scoring every title costs microseconds each, too much for thousands of entries
        # against thousands of papers. Near-duplicate titles share most of their words, so
        # only papers sharing one of this title's rare words (or its rarest word) are scored.
        counts = self.word_count  # every word here is counted (a defaultdict: 0 if none)
        ranked = sorted(words, key=counts.__getitem__)
        years = None if year is None else (year - 1, year, year + 1, None)
        pool: set[int] = set()
        for i, word in enumerate(ranked):
            if i >= 1 and counts[word] > RARE_WORD:
                break
            if word in self._unread_words:  # a common word, yet this title's rarest
                if years is None:
                    self._read_postings([word])
                elif missing := [y for y in years if y not in self._years_read[word]]:
                    self._read_postings([word], missing)
            by_year = self.postings.get(word)
            if not by_year:
                continue
            if years is None:
                for pids in by_year.values():
                    pool.update(pids)
            else:
                for y in years:
                    pids = by_year.get(y)
                    if pids:
                        pool.update(pids)
        hits: list[tuple[int, int]] = []
        for pid in pool:
            known = self.known[pid]
            if pid in excluded or conflicting_detail(data, known) is not None:
                continue  # a different DOI, volume, issue, pages or venue: another paper
            score = title_similarity(norm, known.norm_title, TITLE_SIMILARITY)
            if score:
                hits.append((pid, int(score)))
        if not hits:
            return []
        mine = {surname(a["name"]) for a in data.get("authors", [])} - {""}
        theirs = self.surnames([pid for pid, _ in hits])
        result = []
        for pid, score in sorted(hits, key=lambda h: (-h[1], h[0])):
            known = self.known[pid]
            shared = sorted(mine & theirs[pid])
            if not shared:
                continue
            when = _year_text(known.year, year)
            reason = f"title {score}% alike, {when}, shared author {shared[0].title()}"
            result.append(Candidate(pid, known.title, known.year, known.venue, score, reason))
        return result


def _year_text(theirs: int | None, ours: int | None) -> str:
    if theirs is None or ours is None:
        return "year unknown"
    if theirs == ours:
        return "same year"
    return f"{theirs} vs {ours}"


# --------------------------------------------------------------------------------------------
# Reading a publication as an interchange dict (exports)
# --------------------------------------------------------------------------------------------

PUBLICATION_COLUMNS = (
    "uid", "title", "venue", "venue_short", "year", "month", "type", "status", "abstract", "doi",
    "arxiv_id", "volume", "number", "pages", "article", "publisher", "location", "note", "labels",
    "authors_incomplete",
)  # fmt: skip


def publication_data(pub: m.Publication, row: m.ProfilePublication | None = None) -> dict:
    """The interchange dict of a publication (what the BibTeX and CSL writers take)."""
    data = {name: getattr(pub, name) for name in PUBLICATION_COLUMNS}
    data["key"] = pub.citation_key
    data["authors"] = author_dicts(pub, lambda a: a.person.slug if a.person else None)
    data.update(child_dicts(pub))
    data["selected"] = bool(row and row.selected)
    return data


def publication_options() -> list[Any]:
    """Eager loading for showing or exporting many publications."""
    return [
        selectinload(m.Publication.authorships).selectinload(m.Authorship.person),
        selectinload(m.Publication.links),
        selectinload(m.Publication.awards),
        selectinload(m.Publication.badges),
    ]
