"""Planning an import: read parsed entries (BibTeX or ORCID) against the database and say, for
each, what confirming would do (:func:`plan_import`). Reads, writes nothing.

Each entry is checked (:func:`entry_problem`), matched against the department's papers and the
file's earlier entries, its authors resolved to members; an existing paper it matches is
compared with it to say what linking would add (:func:`enrichment`). An ORCID record's profile
entries and person data (biography, keywords, links) are planned beside the papers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.batch import collection_paused
from directory.formats.bibtex.results import BibtexProblem, ParsedEntry
from directory.formats.claim_keys import work_keys
from directory.formats.orcid import PersonData, RecordEntry
from directory.formats.urls import person_link_kind, same_address, web_url
from directory.services.claims.queue import rejected_keys
from directory.services.pubimport.plan import (
    ImportPlan,
    PersonPlan,
    PlannedAuthor,
    PlannedEntry,
    PlannedLink,
    PlannedRecord,
)
from directory.services.publications import (
    AuthorIndex,
    AuthorMatch,
    Candidate,
    PublicationIndex,
    link_authors,
    publication_options,
)


def certain_link(found: AuthorMatch, owner_id: int) -> bool:
    """Whether a printed name resolved to a member may link without asking them: the
    importer (who knows the paper is theirs), or a name the member wrote themselves letter for
    letter (full name, a declared variant, native name). Initials or a first name and surname
    only suggest the paper to them (see :func:`directory.services.publications.suggestions`).
    """
    return found.person_id == owner_id or found.via == "exact"


def _linkable(author: dict[str, Any], authors: list[dict[str, Any]]) -> bool:
    """Editors of a chapter's book are not its authors: only an edited volume's editors
    (no author listed) are linked."""
    return (author.get("role") or "author") == "author" or not any(
        (a.get("role") or "author") == "author" for a in authors
    )


def _limits() -> dict[str, int]:
    limits = {}
    for column in m.Publication.__table__.columns:
        length = getattr(column.type, "length", None)
        if length:
            limits[column.name] = length
    return limits


_PUB_LIMITS = _limits()
_CHECKED = (
    "title", "venue", "venue_short", "doi", "arxiv_id", "volume", "number", "pages",
    "publisher", "location",
)  # fmt: skip
_CHECKS = (
    *((name, _PUB_LIMITS[name]) for name in _CHECKED),
    ("key", _PUB_LIMITS["citation_key"]),
)
_NESTED_LIMITS = (
    ("authors", "name", m.Authorship.__table__.c.name.type.length),
    ("links", "url", m.PublicationLink.__table__.c.url.type.length),
    ("links", "label", m.PublicationLink.__table__.c.label.type.length),
    ("awards", None, m.PublicationAward.__table__.c.name.type.length),
    ("badges", "name", m.ArtifactBadge.__table__.c.name.type.length),
    ("badges", "issuer", m.ArtifactBadge.__table__.c.issuer.type.length),
)


def entry_problem(data: dict[str, Any]) -> str | None:
    """Why ``data`` cannot be stored as a publication, or None."""
    if not (data.get("title") or "").strip():
        return "The entry has no title."
    for name, limit in _CHECKS:
        value = data.get(name)
        if value is not None and len(str(value)) > limit:
            what = "citation key" if name == "key" else name.replace("_", " ")
            return f"The {what} is longer than {limit} characters."
    for collection, name, limit in _NESTED_LIMITS:
        items = data.get(collection)
        if not items:
            continue
        if name is not None:
            items = [item.get(name) for item in items]
        if max(len(value) if value else 0 for value in items) > limit:
            what = collection[:-1] + (f" {name}" if name else "")
            article = "An" if what[0] in "aeiou" else "A"
            return f"{article} {what} is longer than {limit} characters."
    year = data.get("year")
    if year is not None and not 1000 <= year <= 2999:
        return f"The year {year} is not plausible."
    return None


def _safe_links(
    data: dict[str, Any], warnings: list[str], base_url: str | None = None
) -> dict[str, Any]:
    """``data`` without links a page must not point at (see :func:`web_url`), each dropped
    link named in a warning; relative links resolved against ``base_url`` if given. ORCID
    and BibTeX both pass here."""
    links = data.get("links") or []
    kept = []
    for link in links:
        url, problem = web_url(link["url"], base_url)
        if url is None:
            warnings.append(f"The {link['kind']} link {link['url'][:60]!r} was dropped: {problem}.")
        else:
            kept.append({**link, "url": url} if url != link["url"] else link)
    if kept == links:
        return data
    return {**data, "links": kept}


#: Scalar fields an import may fill on an existing paper where they are empty.
FILL_FIELDS = (
    "venue", "venue_short", "month", "abstract", "doi", "arxiv_id", "volume", "number", "pages",
    "publisher", "location",
)  # fmt: skip
_FIELD_WORDS = {"venue_short": "short venue", "arxiv_id": "arXiv id", "doi": "DOI"}


def enrichment(
    pub: m.Publication, data: dict[str, Any], raw: str, index: PublicationIndex,
    authors: AuthorIndex, owner_id: int, on_profile: bool, selected_there: bool | None,
    entry_id: int | None = None,
) -> tuple[list[str], dict[str, Any]]:  # fmt: skip
    """What linking ``data`` to ``pub`` adds (words for the preview, values for the write).
    ``selected_there``: whether the owner's profile marks ``pub`` selected (None: not on it).
    ``entry_id`` is the entry's own id in ``index``, if it was added there."""
    words: list[str] = []
    fill: dict[str, Any] = {}
    _fill_empty_fields(pub, data, raw, index, (pub.id, entry_id), words, fill)
    _add_links_and_awards(pub, data, words, fill)
    _link_department_authors(pub, authors, owner_id, words, fill)
    if on_profile and data.get("selected") and selected_there is False:
        fill["selected"] = True
        words.append("marks it selected")
    return words, fill


def _fill_empty_fields(
    pub: m.Publication, data: dict[str, Any], raw: str, index: PublicationIndex,
    ours: tuple[int, int | None], words: list[str], fill: dict[str, Any],
) -> None:  # fmt: skip
    """The scalar fields ``pub`` lacks and ``data`` has, its BibTeX source and citation key.
    A DOI or arXiv id is taken only if no other paper has it (``ours``: ``pub`` and the
    entry itself)."""
    for name in FILL_FIELDS:
        value = data.get(name)
        if value in (None, "", []) or getattr(pub, name) not in (None, "", []):
            continue
        if name == "doi" and (index.paper_with_doi(value) or pub.id) not in ours:
            continue
        if name == "arxiv_id" and (index.paper_with_arxiv_id(value) or pub.id) not in ours:
            continue
        fill[name] = value
        words.append(_FIELD_WORDS.get(name, name))
    if raw and not pub.bibtex:
        fill["bibtex"] = raw
        words.append("its BibTeX source")
    if data.get("key") and not pub.citation_key:
        fill["citation_key"] = data["key"]
        words.append(f"citation key {data['key']}")


def _add_links_and_awards(
    pub: m.Publication, data: dict[str, Any], words: list[str], fill: dict[str, Any]
) -> None:
    """The links and awards of ``data`` that ``pub`` does not have yet."""
    urls = {link.url for link in pub.links}
    new_links = [link for link in data.get("links") or [] if link["url"] not in urls]
    if new_links:
        fill["links"] = new_links
        words.append(", ".join(dict.fromkeys(f"{link['kind']} link" for link in new_links)))
    award_names = {a.name for a in pub.awards}
    new_awards = [a for a in data.get("awards") or [] if a not in award_names]
    if new_awards:
        fill["awards"] = new_awards
        words.append("award " + "; ".join(new_awards))


def _link_department_authors(
    pub: m.Publication, authors: AuthorIndex, owner_id: int, words: list[str],
    fill: dict[str, Any],
) -> None:  # fmt: skip
    """Department authors of ``pub`` not linked yet, the importer first; uncertain ones only
    suggested (see :func:`certain_link`)."""
    links, suggestions = _author_positions(pub, authors, owner_id)
    if links:
        fill["author_links"] = links
        words.append(
            "links "
            + ", ".join(authors.names[pid] for pid in links.values())
            + " as author" + ("s" if len(links) > 1 else "")
        )  # fmt: skip
    if suggestions:
        fill["author_suggestions"] = suggestions
        words.append(
            "asks " + ", ".join(authors.names[pid] for pid in suggestions.values())
            + " to confirm being an author"
        )  # fmt: skip


def _author_positions(
    pub: m.Publication, authors: AuthorIndex, owner_id: int
) -> tuple[dict[int, int], dict[int, int]]:
    """(author position -> member to link, author position -> member to ask) for the
    unlinked authorships of ``pub``."""
    linked = {a.person_id for a in pub.authorships if a.person_id}
    asked = {a.suggested_person_id for a in pub.authorships if a.suggested_person_id}
    links: dict[int, int] = {}
    suggestions: dict[int, int] = {}
    if owner_id not in linked:
        for a in pub.authorships:
            if a.person_id is None and authors.matches_person(a.name, owner_id):
                links[a.position] = owner_id
                break
    for a in pub.authorships:
        if a.person_id is None and a.position not in links:
            found = authors.match(a.name)
            pid = found.person_id
            if not pid or pid in linked or pid in links.values():
                continue
            if certain_link(found, owner_id):
                links[a.position] = pid
            elif pid not in asked and pid not in suggestions.values():
                suggestions[a.position] = pid
    return links, suggestions


@dataclass
class _Known:
    """What planning reads once and checks every entry against."""

    person: m.Person
    #: The owner's papers, and whether each is selected.
    profile_rows: dict[int, bool]
    #: The papers the file's entries can match, and the file's own new entries.
    index: PublicationIndex
    authors: AuthorIndex
    #: Existing paper id -> index of the entry that matched it.
    claimed: dict[int, int] = field(default_factory=dict)


@collection_paused()  # see formats/batch.py: the index and the plan are many small objects
def plan_import(
    session: Session,
    person: m.Person,
    entries: list[ParsedEntry],
    problems: Iterable[BibtexProblem] = (),
    *,
    source: str = "bibtex",
    records: Iterable[RecordEntry] = (),
    person_data: PersonData | None = None,
    base_url: str | None = None,
) -> ImportPlan:
    """What importing ``entries`` (and ORCID ``records``) into ``person``'s profile would do.
    Reads the database, writes nothing."""
    # The owner's papers, and whether each is selected: plain rows (a profile has hundreds).
    mine = m.ProfilePublication
    profile_rows: dict[int, bool] = dict(
        session.execute(
            select(mine.publication_id, mine.selected).where(mine.person_id == person.id)
        ).all()
    )
    # The papers the file's entries can match: by identifier, title words, or the profile's.
    index = PublicationIndex(session, [e.data for e in entries], own=profile_rows)
    known = _Known(person, profile_rows, index, AuthorIndex.load(session))
    not_mine = rejected_keys(session, [person.id])[person.id]
    planned = [_problem_entry(i, problem) for i, problem in enumerate(problems)]
    for parsed in entries:
        entry = PlannedEntry(
            index=len(planned), line=parsed.line, key=parsed.key, status="new", reason="",
            data=parsed.data, raw=parsed.raw, warnings=list(parsed.warnings),
        )  # fmt: skip
        planned.append(entry)
        entry.data = _safe_links(parsed.data, entry.warnings, base_url)
        problem = entry_problem(entry.data)
        if problem:
            entry.status, entry.reason = "error", problem
            continue
        if not_mine and not_mine & set(work_keys(entry.data)):
            entry.status, entry.reason = "not_mine", NOT_MINE
            continue
        _match_entry(entry, planned, known)
        if entry.status == "repeat":
            continue
        if entry.status in ("new", "duplicate"):
            _claimed_identifiers(entry, planned, known.index)
        if entry.status in ("new", "duplicate"):
            index.add(-entry.index - 1, entry.data)
        _plan_authors(entry, known)

    # Existing papers: what linking would add (also to each possible duplicate, so that the
    # preview shows every change a "same paper" decision would make).
    matched_existing = [e for e in planned if e.status in ("on_profile", "department")]
    duplicates = [e for e in planned if e.status == "duplicate"]
    pubs = _papers(
        session,
        [e.target_id for e in matched_existing]
        + [c.publication_id for e in duplicates for c in e.candidates if c.publication_id > 0],
    )
    for entry in matched_existing:
        _plan_link_to_existing(entry, pubs[entry.target_id], known)
    for entry in duplicates:
        _plan_candidate_changes(entry, pubs, known)

    plan = ImportPlan(person_id=person.id, source=source, entries=planned)
    plan.records = _plan_records(session, person, list(records))
    if person_data:
        plan.person = _plan_person(session, person, person_data)
    return plan


#: Why an entry the importer once rejected (or took off their profile) is left out.
NOT_MINE = (
    "You took this paper off your profile (or said it is not yours), so it is not added "
    "again; add it by hand to list it once more."
)


def _problem_entry(index: int, problem: BibtexProblem) -> PlannedEntry:
    """The plan's line for what the parser could not take as a publication."""
    return PlannedEntry(
        index=index, line=problem.line, key=problem.key,
        status="skipped" if problem.severity == "skipped" else "error", reason=problem.message,
    )  # fmt: skip


def _match_entry(entry: PlannedEntry, planned: list[PlannedEntry], known: _Known) -> None:
    """Set ``entry``'s status by what it matches: a paper of the profile or the department
    (claimed for it), an earlier entry of the file (a repeat), close papers (a possible
    duplicate), or nothing (new)."""
    data, index = entry.data, known.index
    result = index.match(data, own=known.profile_rows)
    if result.same is not None and result.same in known.claimed:
        # An earlier entry of the file has that paper: another one of the profile may be
        # this entry's own (two alike entries the person once imported as two papers).
        again = index.match(data, own=known.profile_rows, exclude=known.claimed)
        if again.same is not None:
            result = again
    if result.same is None:
        if result.candidates:
            entry.status = "duplicate"
            entry.candidates = result.candidates
            entry.reason = "A paper like this exists: decide whether it is the same."
        else:
            entry.reason = "Not in the department yet; it will be added."
        return
    entry.target_id = result.same
    earlier = known.claimed.get(result.same) if result.same > 0 else -result.same - 1
    if earlier is not None:
        entry.status = "repeat"
        line = planned[earlier].line
        where = f"line {line}" if line else f"entry {earlier + 1}"
        entry.reason = f"Same paper as the entry on {where} ({result.reason}); skipped."
        entry.target_id = -earlier - 1
        return
    known.claimed[result.same] = entry.index
    entry.target_title = index.known[result.same].title
    if result.same in known.profile_rows:
        entry.status = "on_profile"
        entry.reason = f"Already on the profile: {result.reason}."
    else:
        entry.status = "department"
        entry.reason = f"A department paper has {result.reason}; it will be linked."


#: The unique identifiers an entry can bring: (field, its name in messages, the lookup).
_UNIQUE_IDENTIFIERS = (
    ("doi", "DOI", "paper_with_doi"),
    ("arxiv_id", "arXiv id", "paper_with_arxiv_id"),
)


def _claimed_identifiers(
    entry: PlannedEntry, planned: list[PlannedEntry], index: PublicationIndex
) -> None:
    """A new entry whose DOI or arXiv id another paper has (a stored one, or an earlier entry
    of the file) that it did not match as the same paper: a unique identifier names one
    paper, so the entry becomes a possible duplicate of that paper, and keeps the identifier
    only if the person says it is the same paper (else it is written without it, as the
    warning says)."""
    for name, words, lookup in _UNIQUE_IDENTIFIERS:
        value = entry.data.get(name)
        holder = getattr(index, lookup)(value) if value else None
        if holder is None:
            continue
        known = index.known[holder]
        if holder < 0:
            line = planned[-holder - 1].line
            where = f"the entry on line {line}" if line else f"entry {-holder}"
        else:
            where = f"“{known.title}”"
        entry.data = {**entry.data, name: None}
        entry.warnings.append(
            f"{words} {value} is also {where}'s; unless you say they are the same paper, this "
            f"one is imported without it (one {words} names one paper)."
        )
        entry.status = "duplicate"
        entry.reason = "A paper like this exists: decide whether it is the same."
        if all(c.publication_id != holder for c in entry.candidates):
            reason = f"the same {words} ({value})"
            candidate = Candidate(holder, known.title, known.year, known.venue, 100, reason)
            entry.candidates = [candidate, *entry.candidates]


def _plan_authors(entry: PlannedEntry, known: _Known) -> None:
    """Resolve the entry's printed names to members: linked when certain, else suggested;
    warn when a paper to be created names no author who is the importer."""
    person, authors = known.person, known.authors
    everyone = entry.data.get("authors") or []
    matches = link_authors(everyone, authors, owner_id=person.id)
    for author, found in zip(everyone, matches, strict=True):
        author_plan = PlannedAuthor(
            name=author["name"],
            ambiguous=[authors.names[p] for p in found.ambiguous],
            role=author.get("role") or "author",
        )
        if found.person_id is not None and _linkable(author, everyone):
            if certain_link(found, person.id):
                author_plan.person_id = found.person_id
                author_plan.person_name = authors.names[found.person_id]
            else:
                author_plan.suggested_id = found.person_id
                author_plan.suggested_name = authors.names[found.person_id]
        entry.authors.append(author_plan)
    if entry.status in ("new", "duplicate") and person.id not in (
        a.person_id for a in entry.authors
    ):
        entry.importer_missing = True
        entry.warnings.append(
            f"No author matches {person.full_name} or their name variants; the paper "
            "will be on the profile, but no author is linked to it."
        )


def _papers(session: Session, ids: list[int]) -> dict[int, m.Publication]:
    """The papers ``ids`` with what :func:`enrichment` reads of them, 500 to a query."""
    pubs = {}
    for start in range(0, len(ids), 500):
        for pub in session.scalars(
            select(m.Publication)
            .where(m.Publication.id.in_(ids[start : start + 500]))
            .options(*publication_options())
        ):
            pubs[pub.id] = pub
    return pubs


def _plan_link_to_existing(entry: PlannedEntry, pub: m.Publication, known: _Known) -> None:
    """What linking the entry to the paper it matched adds to that paper, and a warning when
    the importer would be on none of its authors."""
    person = known.person
    entry.changes, entry.fill = enrichment(
        pub, entry.data, entry.raw, known.index, known.authors, person.id,
        entry.status == "on_profile", known.profile_rows.get(entry.target_id),
    )  # fmt: skip
    if entry.status == "on_profile" and not entry.changes:
        entry.reason += " Nothing to add."
    if entry.status == "department" and person.id not in (
        *(a.person_id for a in pub.authorships),
        *entry.fill.get("author_links", {}).values(),
    ):
        entry.importer_missing = True
        entry.warnings.append(
            f"No author of the existing record matches {person.full_name} or their name "
            "variants; the paper will be on the profile, but no author is linked to it."
        )


def _plan_candidate_changes(
    entry: PlannedEntry, pubs: dict[int, m.Publication], known: _Known
) -> None:
    """What deciding "same paper" would add to each existing paper a possible duplicate may be."""
    entry.candidates = [
        replace(c, changes=tuple(enrichment(
            pubs[c.publication_id], entry.data, entry.raw, known.index, known.authors,
            known.person.id, False, None, -entry.index - 1,
        )[0])) if c.publication_id > 0 else c
        for c in entry.candidates
    ]  # fmt: skip


_RECORD_KEYS = {
    "education": ("institution", "degree", "start_year"),
    "experience": ("organisation", "title", "start_year"),
    "awards": ("title", "year"),
    "service": ("venue", "role", "year"),
    "funding": ("funder", "title", "grant_number"),
}


def _record_key(kind: str, values: dict[str, Any]) -> tuple:
    return tuple(
        (str(values.get(name) or "")).casefold().strip() if name != "year" and not
        name.endswith("_year") else values.get(name)
        for name in _RECORD_KEYS[kind]
    )  # fmt: skip


def _plan_records(
    session: Session, person: m.Person, records: list[RecordEntry]
) -> list[PlannedRecord]:
    existing: dict[str, set[tuple]] = {}
    planned = []
    for i, record in enumerate(records):
        if record.kind not in existing:
            model = m.ENTRY_MODELS[record.kind]
            existing[record.kind] = {
                _record_key(record.kind, {n: getattr(row, n) for n in _RECORD_KEYS[record.kind]})
                for row in session.scalars(select(model).where(model.owner_id == person.id))
            }
        data, warnings = record.data, list(record.warnings)
        if data.get("url"):
            # The same policy as publication links: ORCID employment, distinction and
            # funding addresses are user input too.
            url, problem = web_url(data["url"])
            if url != data["url"]:
                data = {**data, "url": url}
            if problem:
                warnings.append(f"The link {record.data['url'][:60]!r} was dropped: {problem}.")
        key = _record_key(record.kind, data)
        status = "on_profile" if key in existing[record.kind] else "new"
        existing[record.kind].add(key)
        planned.append(PlannedRecord(i, record.kind, data, record.summary, status, warnings))
    return planned


#: The longest research interests and biography the profile form accepts.
INTERESTS_MAX, BIO_MAX = 1000, 20000


def _words(text: str | None) -> set[str]:
    """The comma- or semicolon-separated items of an interests line, compared loosely."""
    return {" ".join(w.split()).casefold() for w in _ITEM_RE.split(text or "") if w.strip()}


_ITEM_RE = re.compile(r"[,;\n]")


def _plan_person(session: Session, person: m.Person, data: PersonData) -> PersonPlan:
    """What the record's person data does to ``person``'s profile (reads, writes nothing)."""
    plan = PersonPlan()
    if data.biography:
        _plan_biography(plan, person, data.biography)
    if data.keywords:
        _plan_keywords(plan, session, person, data.keywords)
    _plan_links(plan, person, data)
    return plan


def _plan_biography(plan: PersonPlan, person: m.Person, biography: str) -> None:
    """The record's biography: new (the profile has none), the same, too long, or a
    replacement the person may opt in to."""
    current = (person.bio or "").strip()
    plan.bio, plan.bio_before = biography, person.bio
    if len(biography) > BIO_MAX:
        plan.not_taken.append(
            f"The biography ({len(biography)} characters) is longer than a "
            f"profile's {BIO_MAX}; not imported."
        )
    elif not current:
        plan.bio_status = "new"
    elif " ".join(current.split()) == " ".join(biography.split()):
        plan.bio_status = "same"
    else:
        plan.bio_status = "replace"


def _plan_keywords(
    plan: PersonPlan, session: Session, person: m.Person, keywords: list[str]
) -> None:
    """Keywords naming a research area add the area; the others go into the research
    interests, as far as they fit."""
    areas = {}
    for area in session.scalars(select(m.ResearchArea)):
        areas.setdefault(area.name.casefold(), area)
        areas.setdefault(area.slug.casefold(), area)
    mine = {a.id for a in person.areas}
    interests = _words(person.interests)
    for keyword in keywords:
        slug = re.sub(r"[^a-z0-9]+", "-", keyword.casefold()).strip("-")
        area = areas.get(keyword.casefold()) or areas.get(slug)
        if area is not None and area.id not in mine:
            plan.areas.append((area.id, area.name))
            mine.add(area.id)
        elif area is not None or keyword.casefold() in interests:
            plan.keywords_on_profile.append(keyword)
        else:
            plan.keywords_added.append(keyword)
            interests.add(keyword.casefold())
    before = (person.interests or "").strip()
    after = before
    for keyword in list(plan.keywords_added):
        longer = f"{after}, {keyword}" if after else keyword
        if len(longer) > INTERESTS_MAX:
            plan.keywords_added.remove(keyword)
            plan.not_taken.append(
                f"The keyword “{keyword}” does not fit in the research interests "
                f"({INTERESTS_MAX} characters at most); not imported."
            )
            continue
        after = longer
    if plan.keywords_added:
        plan.interests_before, plan.interests_after = person.interests, after
        plan.interests_status = "add" if before else "new"


def _plan_links(plan: PersonPlan, person: m.Person, data: PersonData) -> None:
    """The record's researcher URLs: new, already on the profile, or refused (and why)."""
    known = {same_address(link.url) for link in person.links}
    limit = m.PersonLink.__table__.c.url.type.length
    for given in data.urls:
        label = (given.name or "").strip()[:200] or None
        url, problem = web_url(given.url)
        if url is not None and len(url) > limit:
            url, problem = None, f"it is longer than {limit} characters"
        shown = "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in given.url)
        if url is None:
            plan.links.append(PlannedLink(shown[:200], label, "refused", reason=problem or ""))
            plan.not_taken.append(f"The link {shown[:120]!r} is not imported: {problem}.")
            continue
        status = "on_profile" if same_address(url) in known else "new"
        known.add(same_address(url))
        plan.links.append(PlannedLink(shown[:200], label, status, url,
                                      person_link_kind(url, label)))  # fmt: skip
