"""The record every harvest source produces, and the account of one source's run for one
person. Pure data: no database, no network."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class HarvestedAuthor:
    """One printed author of a harvested work, with the identifiers the source gives."""

    name: str
    orcid: str | None = None
    #: The source's own author id (OpenAlex "A123…", DBLP pid "12/3456", Semantic Scholar id).
    source_id: str | None = None
    affiliations: tuple[str, ...] = ()


@dataclass(frozen=True)
class HarvestedWork:
    """One work as a source lists it for one person."""

    #: The source's name, as in DIRECTORY_HARVEST_SOURCES ("orcid", "openalex", ...).
    source: str
    #: The work's id at that source (ORCID put code, OpenAlex "W…", DBLP key, arXiv id, ...).
    source_key: str
    title: str
    year: int | None = None
    month: int | None = None
    venue: str | None = None
    #: The directory's publication types (models.vocabularies), mapped by the parser.
    type: str = "other"
    authors: tuple[HarvestedAuthor, ...] = ()
    doi: str | None = None
    arxiv_id: str | None = None
    dblp_key: str | None = None
    openalex_id: str | None = None
    semantic_scholar_id: str | None = None
    abstract: str | None = None
    url: str | None = None
    #: How the source found it for this person: "orcid", "dblp", "openalex",
    #: "semantic_scholar" (the person's identifier at that source) or "name".
    found_by: str = "name"


@dataclass
class SourceOutcome:
    """What one source's run for one person did: every fault is recorded, never raised."""

    source: str
    works: list[HarvestedWork] = field(default_factory=list)
    #: Calls made, and bytes read, for the run's report.
    calls: int = 0
    bytes_read: int = 0
    #: Each fault in words ("timeout after 10 s", "HTTP 429, retried after 2 s", "malformed
    #: JSON at page 3"); the works already read are kept.
    errors: list[str] = field(default_factory=list)
    #: True when the source was skipped (no identifier for this person at that source).
    skipped: bool = False
