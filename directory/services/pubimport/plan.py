"""What an import would do, entry by entry: the plan's types, built by :mod:`.planning`,
shown by the preview and written by :mod:`.writing`. Plain data; nothing here reads the database."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from directory.services.publications import Candidate

STATUSES = (
    ("new", "New"),
    ("on_profile", "Already on the profile"),
    ("department", "Matches a department paper"),
    ("duplicate", "Possible duplicate"),
    ("repeat", "Repeated in this file"),
    ("not_mine", "You said it is not yours"),
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
