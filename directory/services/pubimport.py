"""Importing publications into a profile: a plan first (nothing written), then all or nothing.

:func:`plan_import` reads parsed entries (BibTeX or ORCID) against the database and says, for
each, what confirming would do:

========== ==============================================================================
new        a paper the department does not have yet; it will be created
on_profile already on this profile (same DOI / arXiv id); nothing to add, or only the
           missing details listed
department the same paper is on a colleague's profile; it will be linked, not copied
duplicate  a close title, a year within one and a shared author surname: the person decides
           (link to it, import as new, import as a separate version, or skip)
repeat     the same paper as an earlier entry of the same file; skipped
skipped    not a publication (``@preamble``, ``@comment``, ``@set``, an identical copy...);
           reported, never written
error      cannot be imported (malformed entry, no title, a value too long); confirming
           needs the person to say "import the rest" (``skip_invalid``), or a fixed file
========== ==============================================================================

:func:`apply_plan` writes a plan in the caller's transaction (it only flushes). New papers are
written with bulk INSERTs, so that a file of thousands of entries imports in seconds.

The text being imported is kept server-side between preview and confirm in an
:class:`ImportDraft`; the confirm step re-plans from it and refuses if the database changed
what the person was shown (:attr:`ImportPlan.fingerprint`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.batch import collection_paused
from directory.formats.bibtex.results import BibtexProblem, ParsedEntry
from directory.formats.orcid import PersonData, RecordEntry
from directory.formats.urls import person_link_kind, same_address, web_url
from directory.models import ImportDraft
from directory.services.cache import invalidate
from directory.services.publications import (
    AuthorIndex,
    AuthorMatch,
    Candidate,
    PublicationIndex,
    link_authors,
    link_coauthor_profiles,
    link_versions,
    publication_options,
)
from directory.services.search import note_written
from directory.services.title_words import word_rows

STATUSES = (
    ("new", "New"),
    ("on_profile", "Already on the profile"),
    ("department", "Matches a department paper"),
    ("duplicate", "Possible duplicate"),
    ("repeat", "Repeated in this file"),
    ("skipped", "Not a publication"),
    ("error", "Error"),
)
DECISIONS = ("link", "new", "version", "skip")
#: Choices that decide every possible duplicate at once (web and ``--duplicates``).
BULK_DECISIONS = (
    ("new", "All are different papers: import each as new"),
    ("link", "All are the same paper as their closest match: link them"),
    ("skip", "Skip all of them"),
)
#: How many new papers one bulk INSERT round writes (and the progress bar advances by).
CHUNK = 250

# --------------------------------------------------------------------------------------------
# Drafts: the text between preview and confirm
# --------------------------------------------------------------------------------------------


def create_draft(
    session: Session, person: m.Person, created_by: str, kind: str, source: str,
    filename: str | None, max_age_hours: int, base_url: str | None = None,
) -> ImportDraft:  # fmt: skip
    """Store ``source`` for preview; drafts older than ``max_age_hours`` are removed."""
    cutoff = m.utcnow() - timedelta(hours=max_age_hours)
    session.execute(delete(ImportDraft).where(ImportDraft.created_at < cutoff))
    draft = ImportDraft(
        person_id=person.id, created_by=created_by, kind=kind, source=source,
        filename=(filename or None) and filename[-255:], base_url=base_url or None,
    )  # fmt: skip
    session.add(draft)
    session.flush()
    return draft


def draft_expired(draft: ImportDraft, max_age_hours: int) -> bool:
    created = draft.created_at
    if created.tzinfo is None:  # SQLite hands back naive datetimes
        created = created.replace(tzinfo=m.utcnow().tzinfo)
    return created < m.utcnow() - timedelta(hours=max_age_hours)


# --------------------------------------------------------------------------------------------
# The plan
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class PlannedAuthor:
    name: str
    person_id: int | None = None
    person_name: str | None = None
    #: Names of the department people it could be, when it is ambiguous.
    ambiguous: list[str] = field(default_factory=list)
    #: A member the name may be (initials, first name and surname): asked, not linked.
    suggested_id: int | None = None
    suggested_name: str | None = None
    role: str = "author"


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


@dataclass
class PlannedEntry:
    """One entry of the file and what confirming does with it."""

    index: int
    line: int | None
    key: str | None
    status: str
    reason: str
    data: dict[str, Any] | None = None
    raw: str = ""
    warnings: list[str] = field(default_factory=list)
    #: The existing paper (on_profile, department) or, negative, the earlier entry (repeat).
    target_id: int | None = None
    target_title: str | None = None
    candidates: list[Candidate] = field(default_factory=list)
    authors: list[PlannedAuthor] = field(default_factory=list)
    #: What linking adds to the existing paper, in words, and as values.
    changes: list[str] = field(default_factory=list)
    fill: dict[str, Any] = field(default_factory=dict)
    #: Whether no author of the paper is the person imported into.
    importer_missing: bool = False

    @property
    def title(self) -> str:
        return (self.data or {}).get("title") or ""

    @property
    def needs_decision(self) -> bool:
        return self.status == "duplicate"


@dataclass
class PlannedRecord:
    """A profile entry from an ORCID record (education, experience, award, service, funding)."""

    index: int
    kind: str
    data: dict[str, Any]
    summary: str
    status: str  # "new" or "on_profile"
    warnings: list[str] = field(default_factory=list)


@dataclass
class PlannedLink:
    """A researcher URL of an ORCID record and what becomes of it: ``new`` (added to the
    profile's links), ``on_profile`` (the profile links to it already) or ``refused``."""

    given: str
    label: str | None
    status: str
    url: str | None = None
    kind: str = "other"
    reason: str = ""


@dataclass
class PersonPlan:
    """What an ORCID record's biography, keywords and researcher URLs do to the profile.

    A profile field that is empty is filled; one that holds text already is changed only
    when the person opts in (``replace`` of :func:`apply_plan`: ``"bio"``, ``"interests"``),
    the preview showing the text before and after. Keywords naming one of the department's
    research areas add that area; the others go into the research interests. Links already
    on the profile are not added again; a refused one is listed with its reason.
    """

    #: The record's biography; ``bio_status``: "" (none), "new" (the profile has none),
    #: "same", or "replace" (differs from the profile's: only if the person opts in).
    bio: str | None = None
    bio_status: str = ""
    bio_before: str | None = None
    #: The research interests after the import (``interests_status`` "new": the profile has
    #: none; "add": keywords appended to the profile's own, only if the person opts in).
    interests_before: str | None = None
    interests_after: str | None = None
    interests_status: str = ""
    #: Keywords going into the interests, and those already there (or already an area).
    keywords_added: list[str] = field(default_factory=list)
    keywords_on_profile: list[str] = field(default_factory=list)
    #: Research areas a keyword names, added to the profile: (id, name).
    areas: list[tuple[int, str]] = field(default_factory=list)
    links: list[PlannedLink] = field(default_factory=list)
    #: What the record holds that is not taken, each named with the reason.
    not_taken: list[str] = field(default_factory=list)

    @property
    def optional(self) -> list[str]:
        """The fields changed only if the person opts in."""
        return [name for name, status in (("bio", self.bio_status),
                                          ("interests", self.interests_status))
                if status in ("replace", "add")]  # fmt: skip

    @property
    def new_links(self) -> list[PlannedLink]:
        return [link for link in self.links if link.status == "new"]

    def writes(self, replace: Iterable[str] = ()) -> bool:
        """Whether importing with the opt-ins ``replace`` changes the profile."""
        replace = set(replace)
        return bool(
            self.bio_status == "new" or self.interests_status == "new" or self.areas
            or self.new_links or set(self.optional) & replace
        )  # fmt: skip

    @property
    def shown(self) -> bool:
        """Whether the record said anything about the person (the preview has a section)."""
        return bool(self.bio_status or self.interests_status or self.keywords_on_profile
                    or self.areas or self.links or self.not_taken)  # fmt: skip


@dataclass
class ImportPlan:
    person_id: int
    source: str
    entries: list[PlannedEntry]
    records: list[PlannedRecord] = field(default_factory=list)
    person: PersonPlan = field(default_factory=PersonPlan)

    @property
    def errors(self) -> list[PlannedEntry]:
        return [e for e in self.entries if e.status == "error"]

    @property
    def blocked(self) -> bool:
        """Whether confirming is refused (the file must be fixed first)."""
        return bool(self.errors)

    @property
    def counts(self) -> dict[str, int]:
        counts = {status: 0 for status, _ in STATUSES}
        for entry in self.entries:
            counts[entry.status] += 1
        return counts

    @property
    def importer_missing(self) -> tuple[int, int]:
        """(papers that would be added without the person among their authors, papers that
        would be added): when they are equal, the file is probably not the person's."""
        adding = [e for e in self.entries if e.status in ("new", "duplicate", "department")]
        return sum(e.importer_missing for e in adding), len(adding)

    @property
    def new_records(self) -> list[PlannedRecord]:
        return [r for r in self.records if r.status == "new"]

    @property
    def has_work(self) -> bool:
        """Whether confirming may write something (with the opt-ins the preview offers)."""
        return self.writes(self.person.optional)

    def writes(self, replace: Iterable[str] = ()) -> bool:
        """Whether confirming with the opt-ins ``replace`` writes something."""
        return (
            any(e.status in ("new", "department", "duplicate") or e.changes for e in self.entries)
            or bool(self.new_records)
            or self.person.writes(replace)
        )

    def line_of(self, target: int) -> int | None:
        """The file line of an entry referred to by its negative id."""
        entry = self.entries[-target - 1]
        return entry.line

    @property
    def fingerprint(self) -> str:
        """Changes whenever what confirming would do changes (new department papers, an
        entry now on the profile...), so a confirm based on an outdated preview is refused."""
        shape = [
            (
                e.status,
                e.target_id,
                [(c.publication_id, c.changes) for c in e.candidates],
                e.changes,
            )  # fmt: skip
            for e in self.entries
        ]
        shape.append([(r.kind, r.status) for r in self.records])
        p = self.person
        shape.append([p.bio_status, p.bio_before, p.interests_status, p.interests_before,
                      p.areas, [(k.status, k.url) for k in p.links]])  # fmt: skip
        text = json.dumps(shape, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


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


def _enrichment(
    pub: m.Publication, data: dict[str, Any], raw: str, index: PublicationIndex,
    authors: AuthorIndex, owner_id: int, on_profile: bool, selected_there: bool | None,
    entry_id: int | None = None,
) -> tuple[list[str], dict[str, Any]]:  # fmt: skip
    """What linking ``data`` to ``pub`` adds (words for the preview, values for the write).
    ``selected_there``: whether the owner's profile marks ``pub`` selected (None: not on it).
    ``entry_id`` is the entry's own id in ``index``, if it was added there."""
    ours = (pub.id, entry_id)
    words: list[str] = []
    fill: dict[str, Any] = {}
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
    # Department authors not linked yet, the importer first; uncertain ones only suggested.
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
    if on_profile and data.get("selected") and selected_there is False:
        fill["selected"] = True
        words.append("marks it selected")
    return words, fill


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
    authors = AuthorIndex.load(session)
    planned: list[PlannedEntry] = []
    for problem in problems:
        planned.append(
            PlannedEntry(
                index=len(planned), line=problem.line, key=problem.key,
                status="skipped" if problem.severity == "skipped" else "error",
                reason=problem.message,
            )
        )  # fmt: skip
    claimed: dict[int, int] = {}  # existing paper id -> index of the entry that matched it
    matched_existing: list[PlannedEntry] = []
    for parsed in entries:
        i = len(planned)
        data = parsed.data
        entry = PlannedEntry(
            index=i, line=parsed.line, key=parsed.key, status="new", reason="", data=data,
            raw=parsed.raw, warnings=list(parsed.warnings),
        )  # fmt: skip
        planned.append(entry)
        data = entry.data = _safe_links(data, entry.warnings, base_url)
        problem = entry_problem(data)
        if problem:
            entry.status, entry.reason = "error", problem
            continue
        result = index.match(data, own=profile_rows)
        if result.same is not None and result.same in claimed:
            # An earlier entry of the file has that paper: another one of the profile may be
            # this entry's own (two alike entries the person once imported as two papers).
            again = index.match(data, own=profile_rows, exclude=claimed)
            if again.same is not None:
                result = again
        if result.same is not None:
            entry.target_id = result.same
            earlier = claimed.get(result.same) if result.same > 0 else -result.same - 1
            if earlier is not None:
                entry.status = "repeat"
                line = planned[earlier].line
                where = f"line {line}" if line else f"entry {earlier + 1}"
                entry.reason = f"Same paper as the entry on {where} ({result.reason}); skipped."
                entry.target_id = -earlier - 1
                continue
            claimed[result.same] = i
            entry.target_title = index.known[result.same].title
            if result.same in profile_rows:
                entry.status = "on_profile"
                entry.reason = f"Already on the profile: {result.reason}."
            else:
                entry.status = "department"
                entry.reason = f"A department paper has {result.reason}; it will be linked."
            matched_existing.append(entry)
        elif result.candidates:
            entry.status = "duplicate"
            entry.candidates = result.candidates
            entry.reason = "A paper like this exists: decide whether it is the same."
        else:
            entry.reason = "Not in the department yet; it will be added."
        if entry.status in ("new", "duplicate"):
            index.add(-i - 1, data)
        everyone = data.get("authors") or []
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

    # Existing papers: what linking would add (also to each possible duplicate, so that the
    # preview shows every change a "same paper" decision would make).
    pubs = {}
    duplicates = [e for e in planned if e.status == "duplicate"]
    ids = [e.target_id for e in matched_existing] + [
        c.publication_id for e in duplicates for c in e.candidates if c.publication_id > 0
    ]
    for start in range(0, len(ids), 500):
        for pub in session.scalars(
            select(m.Publication)
            .where(m.Publication.id.in_(ids[start : start + 500]))
            .options(*publication_options())
        ):
            pubs[pub.id] = pub
    for entry in matched_existing:
        entry.changes, entry.fill = _enrichment(
            pubs[entry.target_id], entry.data, entry.raw, index, authors, person.id,
            entry.status == "on_profile", profile_rows.get(entry.target_id),
        )  # fmt: skip
        if entry.status == "on_profile" and not entry.changes:
            entry.reason += " Nothing to add."
        pub = pubs[entry.target_id]
        if entry.status == "department" and person.id not in (
            *(a.person_id for a in pub.authorships),
            *entry.fill.get("author_links", {}).values(),
        ):
            entry.importer_missing = True
            entry.warnings.append(
                f"No author of the existing record matches {person.full_name} or their name "
                "variants; the paper will be on the profile, but no author is linked to it."
            )

    for entry in duplicates:
        entry.candidates = [
            replace(c, changes=tuple(_enrichment(
                pubs[c.publication_id], entry.data, entry.raw, index, authors, person.id,
                False, None, -entry.index - 1,
            )[0])) if c.publication_id > 0 else c
            for c in entry.candidates
        ]  # fmt: skip

    plan = ImportPlan(person_id=person.id, source=source, entries=planned)
    plan.records = _plan_records(session, person, list(records))
    if person_data:
        plan.person = _plan_person(session, person, person_data)
    return plan


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
        current = (person.bio or "").strip()
        plan.bio, plan.bio_before = data.biography, person.bio
        if len(data.biography) > BIO_MAX:
            plan.not_taken.append(
                f"The biography ({len(data.biography)} characters) is longer than a "
                f"profile's {BIO_MAX}; not imported."
            )
        elif not current:
            plan.bio_status = "new"
        elif " ".join(current.split()) == " ".join(data.biography.split()):
            plan.bio_status = "same"
        else:
            plan.bio_status = "replace"

    if data.keywords:
        areas = {}
        for area in session.scalars(select(m.ResearchArea)):
            areas.setdefault(area.name.casefold(), area)
            areas.setdefault(area.slug.casefold(), area)
        mine = {a.id for a in person.areas}
        interests = _words(person.interests)
        for keyword in data.keywords:
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
    return plan


def _apply_person(
    session: Session, plan: PersonPlan, person: m.Person, replace: Iterable[str]
) -> list[str]:
    """Write what ``plan`` does to the profile's own fields; the names of what changed."""
    replace = set(replace)
    written = []
    if plan.bio_status == "new" or (plan.bio_status == "replace" and "bio" in replace):
        person.bio = plan.bio
        written.append("biography")
    if plan.interests_status == "new" or (
        plan.interests_status == "add" and "interests" in replace
    ):
        person.interests = plan.interests_after
        written.append("research interests")
    if plan.areas:
        ids = [area_id for area_id, _name in plan.areas]
        person.areas = [
            *person.areas,
            *session.scalars(select(m.ResearchArea).where(m.ResearchArea.id.in_(ids))),
        ]
        written.append(f"{len(ids)} research area{'s' if len(ids) != 1 else ''}")
    new_links = plan.new_links
    for link in new_links:
        person.links.append(
            m.PersonLink(kind=link.kind, url=link.url, label=link.label, position=len(person.links))
        )
    if new_links:
        written.append(f"{len(new_links)} link{'s' if len(new_links) != 1 else ''}")
    return written


# --------------------------------------------------------------------------------------------
# Decisions and writing
# --------------------------------------------------------------------------------------------


class PlanRefused(Exception):
    """The plan cannot be written as it stands; ``messages`` say why."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


def decision_choices(entry: PlannedEntry, plan: ImportPlan) -> list[tuple[str, str]]:
    """The choices offered for a possible duplicate, as (value, label)."""
    choices = []
    for c in entry.candidates:
        if c.publication_id < 0:
            line = plan.line_of(c.publication_id)
            where = f"the entry on line {line} of this file" if line else "an earlier entry"
        else:
            where = f"“{c.title}”" + (f" ({c.year})" if c.year else "")
        choices.append((f"link:{c.publication_id}", f"Same paper as {where}"))
        choices.append(
            (
                f"version:{c.publication_id}",
                f"A different version of {where} (preprint ↔ published)",
            )
        )
    choices.append(("new", "A different paper: import it as new"))
    choices.append(("skip", "Skip this entry"))
    return choices


def resolve_decisions(
    plan: ImportPlan, chosen: dict[int, str], bulk: str | None = None
) -> dict[int, str]:
    """The decision for every possible duplicate: its own choice, else the ``bulk`` choice
    (``"new"``, ``"skip"``, or ``"link"`` to the closest match); undecided ones are left out."""
    decisions = {}
    for entry in plan.entries:
        if not entry.needs_decision:
            continue
        decision = chosen.get(entry.index) or ""
        if not decision and bulk == "link" and entry.candidates:
            decision = f"link:{entry.candidates[0].publication_id}"
        elif not decision and bulk in ("new", "skip"):
            decision = bulk
        if decision:
            decisions[entry.index] = decision
    return decisions


def check_decisions(
    plan: ImportPlan, decisions: dict[int, str], *, skip_invalid: bool = False
) -> list[str]:
    """Problems with the decisions given for a plan (empty when it may be written).
    Entries that cannot be imported block it unless ``skip_invalid`` says to leave them out."""
    messages = []
    if plan.blocked and not skip_invalid:
        count = len(plan.errors)
        messages.append(
            f"{count} entr{'y' if count == 1 else 'ies'} cannot be imported; choose to import "
            "the rest without them, or fix the file and preview it again. Nothing was imported."
        )
    for entry in plan.entries:
        if not entry.needs_decision:
            continue
        decision = decisions.get(entry.index)
        allowed = {value for value, _ in decision_choices(entry, plan)}
        if decision not in allowed:
            where = f"line {entry.line}" if entry.line else f"“{entry.title}”"
            messages.append(f"Decide what to do with the possible duplicate on {where}.")
    return messages


@dataclass
class ImportSummary:
    created: int = 0
    linked: int = 0
    updated: int = 0
    skipped: int = 0
    versions: int = 0
    records: int = 0
    #: What the import wrote, for its history record (and for undoing it).
    created_ids: list[int] = field(default_factory=list)
    linked_ids: list[int] = field(default_factory=list)
    #: Profile entries created from an ORCID record, as (kind, id).
    record_refs: list[tuple[str, int]] = field(default_factory=list)
    #: What the record's person data changed on the profile ("biography", "2 links").
    person: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        parts = [f"{self.created} new paper{'s' if self.created != 1 else ''}"]
        if self.linked:
            parts.append(f"{self.linked} linked to existing department papers")
        if self.updated:
            plural = "s" if self.updated != 1 else ""
            parts.append(f"{self.updated} existing paper{plural} completed")
        if self.versions:
            parts.append(f"{self.versions} linked as versions")
        if self.records:
            parts.append(f"{self.records} profile entr{'y' if self.records == 1 else 'ies'}")
        parts.extend(self.person)
        if self.skipped:
            parts.append(f"{self.skipped} skipped")
        return ", ".join(parts)


#: The columns of a new paper's row, in the order of :func:`_publication_row`'s tuple; the
#: others (the id) take the database's default.
_PUBLICATION_COLUMNS = (
    "uid", "title", "venue", "venue_short", "year", "month", "type", "status", "abstract",
    "doi", "arxiv_id", "volume", "number", "pages", "article", "publisher", "location", "note",
    "labels", "authors_incomplete", "citation_key", "bibtex", "visibility", "created_by_id",
    "version", "created_at", "updated_at",
)  # fmt: skip


def _publication_row(
    data: dict[str, Any], raw: str, owner_id: int, labels: Callable[[list], Any], now: Any,
    flag: tuple[Any, Any],
) -> tuple:  # fmt: skip
    """A new paper's row in the order of ``_PUBLICATION_COLUMNS``, as the driver takes it:
    ``labels`` converts the label list for the JSON column, ``now`` is the time already so,
    ``flag`` is (false, true) so (see :func:`_driver_flags`)."""
    get = data.get
    return (
        m.new_uid(), data["title"], get("venue"), get("venue_short"), get("year"),
        get("month"), get("type") or "other", get("status") or "published", get("abstract"),
        get("doi"), get("arxiv_id"), get("volume"), get("number"), get("pages"),
        get("article"), get("publisher"), get("location"), get("note"),
        labels(list(get("labels") or [])), flag[bool(get("authors_incomplete"))], get("key"),
        raw or None, "public", owner_id, 1, now, now,
    )  # fmt: skip


def _next_position(session: Session, model: Any, column: Any, person_id: int) -> int:
    current = session.scalar(select(func.max(model.position)).where(column == person_id))
    return 0 if current is None else current + 1


def _create_publications(
    session: Session, items: list[PlannedEntry], owner_id: int, position: int
) -> list[int]:
    """Bulk-write new papers with their authors, links, awards, badges and profile rows."""
    # One executemany without RETURNING (with it, SQLite inserts row by row when the order
    # of the returned ids must match), then the ids by the uids just generated.
    table = m.Publication.__table__
    convert = _converters(session, table, ("labels", "created_at"))
    labels, now = convert["labels"], convert["created_at"](m.utcnow())
    flag = _driver_flags(session)
    rows = [_publication_row(e.data, e.raw, owner_id, labels, now, flag) for e in items]
    _insert_plain_rows(session, table, _PUBLICATION_COLUMNS, rows)
    uids = [row[0] for row in rows]
    found = session.execute(select(table.c.uid, table.c.id).where(table.c.uid.in_(uids)))
    id_of = {uid: pid for uid, pid in found}
    ids = [id_of[uid] for uid in uids]
    # Child rows as tuples in the column order of _PLAIN_COLUMNS.
    authorships: list[tuple] = []
    links: list[tuple] = []
    awards: list[tuple] = []
    badges: list[tuple] = []
    profile_rows: list[tuple] = []
    # The title's words too: these papers pass no ORM event (services/title_words.py).
    words = word_rows((pid, row[1]) for pid, row in zip(ids, rows, strict=True))
    for offset, (pid, entry) in enumerate(zip(ids, items, strict=True)):
        data = entry.data
        people = []
        for pos, (author, planned) in enumerate(zip(data["authors"], entry.authors, strict=True)):
            person_id = planned.person_id
            authorships.append(
                (pid, pos, author["name"], person_id, flag[bool(author.get("co_first"))],
                 flag[bool(author.get("corresponding"))], author.get("given"),
                 author.get("particle"), author.get("family"), author.get("suffix"),
                 author.get("role") or "author", planned.suggested_id)
            )  # fmt: skip
            if person_id is not None and person_id != owner_id:
                people.append(person_id)
        for pos, k in enumerate(data.get("links") or ()):
            links.append((pid, k["kind"], k["url"], k.get("label"), pos))
        for pos, name in enumerate(data.get("awards") or ()):
            awards.append((pid, name, pos))
        for pos, b in enumerate(data.get("badges") or ()):
            badges.append((pid, b["name"], b.get("issuer"), pos))
        selected = flag[bool(data.get("selected"))]
        profile_rows.append((owner_id, pid, selected, flag[False], position + offset))
        for other in dict.fromkeys(people):
            profile_rows.append((other, pid, flag[False], flag[False], 0))
    for model, rows in (
        (m.Authorship, authorships),
        (m.PublicationLink, links),
        (m.PublicationAward, awards),
        (m.ArtifactBadge, badges),
        (m.ProfilePublication, profile_rows),
        (m.PublicationTitleWord, words),
    ):
        if rows:
            _insert_plain_rows(session, model.__table__, _PLAIN_COLUMNS[model], rows)
    return ids


_PLAIN_COLUMNS = {
    m.Authorship: (
        "publication_id",
        "position",
        "name",
        "person_id",
        "co_first",
        "corresponding",
        "given",
        "particle",
        "family",
        "suffix",
        "role",
        "suggested_person_id",
    ),  # fmt: skip
    m.PublicationLink: ("publication_id", "kind", "url", "label", "position"),
    m.PublicationAward: ("publication_id", "name", "position"),
    m.ArtifactBadge: ("publication_id", "name", "issuer", "position"),
    m.ProfilePublication: ("person_id", "publication_id", "selected", "hidden", "position"),
    m.PublicationTitleWord: ("word", "publication_id"),
}


def _insert_plain_rows(
    session: Session, table: Any, names: tuple[str, ...], rows: list[tuple]
) -> None:
    """INSERT many rows of plain values (int, str, None; booleans as :func:`_driver_flags`
    gives them) in one go: PostgreSQL's COPY through psycopg, else one DBAPI executemany.

    SQLAlchemy's Core executemany still processes every parameter of every row in Python,
    which for the tens of thousands of author rows of a large import costs more than the
    database does. So the rows are handed to the driver as they are, and a value whose
    column type converts it (JSON, a date on SQLite) must come converted: see
    :func:`_converters`. On PostgreSQL even psycopg's executemany spends about a millisecond
    of the client's CPU per ten rows on its pipeline; COPY takes the rows in one stream (a
    fourth of the write's CPU time), checks the same constraints and runs in the same
    transaction. COPY passes no SQLAlchemy execute event (nothing here relies on one); its
    errors are raised as SQLAlchemy's own (IntegrityError, OperationalError...), as the
    executemany's are.
    """
    connection = session.connection()
    preparer = connection.dialect.identifier_preparer
    columns = ", ".join(preparer.quote(n) for n in names)
    target = f"{preparer.format_table(table)} ({columns})"
    if connection.dialect.driver == "psycopg":
        sql = f"COPY {target} FROM STDIN"
        dbapi_error = connection.dialect.loaded_dbapi.Error
        cursor = connection.connection.cursor()
        try:
            with cursor, cursor.copy(sql) as copy:
                for row in rows:
                    copy.write_row(row)
        except dbapi_error as error:  # as SQLAlchemy raises it for any statement it runs
            raise DBAPIError.instance(sql, None, error, dbapi_error) from error
        return
    style = connection.dialect.paramstyle
    if style == "qmark":
        marks = ", ".join("?" for _ in names)
    elif style in ("format", "pyformat"):
        marks = ", ".join("%s" for _ in names)
    else:  # named / numeric drivers: let SQLAlchemy do it
        session.execute(insert(table), [dict(zip(names, row, strict=True)) for row in rows])
        return
    connection.exec_driver_sql(f"INSERT INTO {target} VALUES ({marks})", rows)  # noqa: S608


def _converters(session: Session, table: Any, names: tuple[str, ...]) -> dict[str, Callable]:
    """For each column named, the function that turns a Python value into what this
    session's driver takes for it (the column type's bind processor for this dialect, or the
    value itself): what SQLAlchemy would do per parameter, for :func:`_insert_plain_rows`."""
    dialect = session.connection().dialect
    converters = {}
    for name in names:
        column_type = table.c[name].type
        processor = column_type.dialect_impl(dialect).bind_processor(dialect)
        converters[name] = processor or (lambda value: value)
    return converters


def _driver_flags(session: Session) -> tuple[Any, Any]:
    """(false, true) as this session's driver takes them for a Boolean column: 0 and 1 on
    SQLite, whose driver binds an int at once but looks up an adapter for every bool (a
    tenth of an import's write went there), and the bools themselves where the database has
    a boolean type (PostgreSQL refuses an int for one)."""
    table = m.Authorship.__table__
    convert = _converters(session, table, ("co_first",))["co_first"]
    return convert(False), convert(True)


def _link_existing(
    session: Session, pub: m.Publication, entry: PlannedEntry, owner_id: int, position: int
) -> bool:
    """Attach an existing paper to the owner's profile, filling what it lacked. Returns
    whether the paper itself changed."""
    fill = entry.fill
    changed = False
    for name in (*FILL_FIELDS, "bibtex", "citation_key"):
        if name in fill:
            setattr(pub, name, fill[name])
            changed = True
    for link in fill.get("links", []):
        pub.links.append(
            m.PublicationLink(
                kind=link["kind"], url=link["url"], label=link.get("label"),
                position=len(pub.links),
            )
        )  # fmt: skip
        changed = True
    for name in fill.get("awards", []):
        pub.awards.append(m.PublicationAward(name=name, position=len(pub.awards)))
        changed = True
    for authorship in pub.authorships:
        person_id = fill.get("author_links", {}).get(authorship.position)
        if person_id is not None:
            authorship.person_id = person_id
            authorship.suggested_person_id = None
            changed = True
        suggested = fill.get("author_suggestions", {}).get(authorship.position)
        if suggested is not None and authorship.person_id is None:
            authorship.suggested_person_id = suggested
            changed = True
    row = session.get(m.ProfilePublication, (owner_id, pub.id))
    if row is None:
        session.add(
            m.ProfilePublication(
                person_id=owner_id, publication_id=pub.id,
                selected=bool((entry.data or {}).get("selected")), position=position,
            )
        )  # fmt: skip
    elif fill.get("selected"):
        row.selected = True
    session.flush()
    return changed


@collection_paused()  # see formats/batch.py
def apply_plan(
    session: Session,
    plan: ImportPlan,
    person: m.Person,
    decisions: dict[int, str] | None = None,
    *,
    skip_invalid: bool = False,
    progress: Callable[[int], None] | None = None,
    replace: Iterable[str] = (),
) -> ImportSummary:
    """Write ``plan`` (with a decision for every possible duplicate) in the caller's
    transaction. Raises :class:`PlanRefused`, having written nothing, if it may not be;
    entries that cannot be imported are left out only when ``skip_invalid``. ``replace``
    names the profile fields holding text the record's may change (``"bio"``,
    ``"interests"``: the person opted in on the preview)."""
    decisions = decisions or {}
    messages = check_decisions(plan, decisions, skip_invalid=skip_invalid)
    if messages:
        raise PlanRefused(messages)
    step = progress or (lambda _n: None)
    summary = ImportSummary()
    position = _next_position(
        session, m.ProfilePublication, m.ProfilePublication.person_id, person.id
    )
    entry_pub: dict[int, int] = {}  # entry index -> paper it ended on
    versions: list[tuple[PlannedEntry, int]] = []
    to_create: list[PlannedEntry] = []
    to_link: list[tuple[PlannedEntry, int]] = []
    for entry in plan.entries:
        if entry.status == "new":
            to_create.append(entry)
        elif entry.status == "department" or (entry.status == "on_profile" and entry.fill):
            to_link.append((entry, entry.target_id))
        elif entry.status == "duplicate":
            action, _, target = decisions[entry.index].partition(":")
            if action == "new":
                to_create.append(entry)
            elif action == "version":
                to_create.append(entry)
                versions.append((entry, int(target)))
            elif action == "link":
                to_link.append((entry, int(target)))
            else:
                summary.skipped += 1
        elif entry.status in ("repeat", "error"):
            summary.skipped += 1

    # New papers, in bulk and in file order.
    for start in range(0, len(to_create), CHUNK):
        chunk = to_create[start : start + CHUNK]
        ids = _create_publications(session, chunk, person.id, position + start)
        for entry, pid in zip(chunk, ids, strict=True):
            entry_pub[entry.index] = pid
        summary.created += len(chunk)
        summary.created_ids.extend(ids)
        step(len(chunk))
    session.flush()
    # Written below the ORM: tell the search index and the page cache.
    note_written(session, "publication", summary.created_ids)
    invalidate(session)

    # Existing papers (and "same as an earlier entry" decisions).
    touched: list[m.Publication] = []
    indexes: list[Any] = []  # built once, only if a duplicate was decided "same paper"
    for offset, (entry, target) in enumerate(to_link):
        if target < 0:
            entry_pub[entry.index] = entry_pub.get(-target - 1, 0)
            summary.skipped += 1
            step(1)
            continue
        pub = session.get(m.Publication, target)
        if pub is None:
            raise PlanRefused(["A paper this import links to was just deleted; preview again."])
        if entry.status == "duplicate":
            # Decided "same paper" on the preview: fill in like a DOI match would.
            if not indexes:
                decided = [e.data for e, _ in to_link if e.status == "duplicate"]
                indexes.extend((PublicationIndex(session, decided), AuthorIndex.load(session)))
            entry.changes, entry.fill = _enrichment(
                pub, entry.data, entry.raw, *indexes, person.id, False, None
            )
        on_profile_before = session.get(m.ProfilePublication, (person.id, pub.id)) is not None
        if _link_existing(session, pub, entry, person.id, position + len(to_create) + offset):
            summary.updated += 1
        if not on_profile_before:
            summary.linked += 1
            summary.linked_ids.append(pub.id)
        entry_pub[entry.index] = pub.id
        touched.append(pub)
        step(1)
    link_coauthor_profiles(session, touched)

    for entry, target in versions:
        other_id = entry_pub.get(-target - 1) if target < 0 else target
        if not other_id:
            continue
        mine = session.get(m.Publication, entry_pub[entry.index])
        other = session.get(m.Publication, other_id)
        if mine.type == "preprint" or mine.status == "preprint":
            link_versions(session, mine, other)
        else:
            link_versions(session, other, mine)
        summary.versions += 1

    for record in plan.new_records:
        model = m.ENTRY_MODELS[record.kind]
        created = model(
            owner_id=person.id,
            position=_next_position(session, model, model.owner_id, person.id),
            **record.data,
        )
        session.add(created)
        session.flush()
        summary.records += 1
        summary.record_refs.append((record.kind, created.id))
    summary.person = _apply_person(session, plan.person, person, replace)
    session.flush()
    return summary


def parsed_decisions(form: Any, plan: ImportPlan) -> dict[int, str]:
    """The decisions posted for ``plan`` (form fields ``decision-<index>``)."""
    return {
        entry.index: form.get(f"decision-{entry.index}", "")
        for entry in plan.entries
        if entry.needs_decision
    }
