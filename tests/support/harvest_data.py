"""The people and papers the loopback harvest server (tests/support/harvest_server.py) tells
about: generated in code, deterministically (no third-party data), or set by a test."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass


def orcid_for(number: int) -> str:
    """A well-formed ORCID iD (right checksum) made from ``number``."""
    digits = f"{number % 10**15:015d}"
    total = 0
    for char in digits:
        total = (total + int(char)) * 2
    check = (12 - total % 11) % 11
    tail = "X" if check == 10 else str(check)
    full = digits + tail
    return "-".join(full[i : i + 4] for i in range(0, 16, 4))


@dataclass(frozen=True)
class Author:
    name: str
    orcid: str | None = None
    dblp: str | None = None
    openalex: str | None = None
    semantic_scholar: str | None = None
    affiliation: str | None = None


@dataclass(frozen=True)
class HarvestPerson:
    """A person the server knows, with the identifiers each source finds them by."""

    key: str
    name: str
    orcid: str | None = None
    dblp: str | None = None
    openalex: str | None = None
    semantic_scholar: str | None = None
    arxiv: str | None = None
    affiliation: str | None = "Example University"

    def ids(self) -> dict[str, str]:
        """The ``person_ids`` a harvest passes to the sources."""
        kinds = ("orcid", "dblp", "openalex", "semantic_scholar", "arxiv")
        return {kind: getattr(self, kind) for kind in kinds if getattr(self, kind)}

    def as_author(self) -> Author:
        return Author(
            self.name, self.orcid, self.dblp, self.openalex, self.semantic_scholar, self.affiliation
        )


@dataclass(frozen=True)
class Paper:
    """One paper as every source tells it (``type`` is the directory's publication type)."""

    number: int
    title: str
    year: int
    authors: tuple[Author, ...]
    type: str = "conference"
    month: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    abstract: str | None = None


_FIRST = (
    "Ada",
    "Wei",
    "Priya",
    "Jonas",
    "Mei",
    "Omar",
    "Lena",
    "Kenji",
    "Sofia",
    "Ravi",
    "Chen",
    "Nora",
)
_LAST = (
    "Lovelace",
    "Zhang",
    "Raman",
    "Berg",
    "Tanaka",
    "Haddad",
    "Novak",
    "Sato",
    "Rossi",
    "Iyer",
    "Okafor",
    "Liu",
)
_WORDS = (
    "Scalable",
    "Verified",
    "Adaptive",
    "Robust",
    "Learned",
    "Distributed",
    "Private",
    "Efficient",
)
_TOPICS = (
    "Consensus",
    "Query Planning",
    "Memory Safety",
    "Graph Learning",
    "Caching",
    "Compilers",
    "Scheduling",
    "Storage",
)
_VENUES = (
    ("conference", "Symposium on Systems Principles"),
    ("conference", "Conference on Learning"),
    ("journal", "Journal of Computing"),
    ("workshop", "Workshop on Hot Topics"),
    ("preprint", None),
)


def generated_people(count: int, *, start: int = 0) -> list[HarvestPerson]:
    """``count`` people with every identifier, deterministic (the benchmark's department)."""
    people = []
    for i in range(start, start + count):
        name = f"{_FIRST[i % len(_FIRST)]} {_LAST[(i // len(_FIRST)) % len(_LAST)]} {i}"
        people.append(
            HarvestPerson(
                key=f"p{i}",
                name=name,
                orcid=orcid_for(10_000_000 + i),
                dblp=f"{i % 300}/{1000 + i}",
                openalex=f"A{5_000_000_000 + i}",
                semantic_scholar=str(90_000_000 + i),
            )
        )
    return people


class HarvestData:
    """Each person's papers: generated (``works_per_source`` each, deterministic) unless a
    test sets them with :meth:`set_papers`."""

    def __init__(self, people: Iterable[HarvestPerson], works_per_source: int = 15) -> None:
        self.people = list(people)
        self.works_per_source = works_per_source
        self._papers: dict[str, list[Paper]] = {}
        self._index = {person.key: i for i, person in enumerate(self.people)}
        self.by_id: dict[tuple[str, str], HarvestPerson] = {}
        for person in self.people:
            self._register(person)

    def _register(self, person: HarvestPerson) -> None:
        for kind, value in person.ids().items():
            self.by_id[(kind, value)] = person

    def add_person(self, person: HarvestPerson, papers: list[Paper] | None = None) -> None:
        self._index[person.key] = len(self.people)
        self.people.append(person)
        self._register(person)
        if papers is not None:
            self._papers[person.key] = papers

    def set_papers(self, person: HarvestPerson, papers: list[Paper]) -> None:
        self._papers[person.key] = papers

    def papers(self, person: HarvestPerson) -> list[Paper]:
        if person.key not in self._papers:
            self._papers[person.key] = self._generate(person)
        return self._papers[person.key]

    def _generate(self, person: HarvestPerson) -> list[Paper]:
        rng = random.Random(f"harvest:{person.key}")
        index = self._index[person.key]
        papers = []
        for n in range(self.works_per_source):
            number = index * 1000 + n
            kind, venue = _VENUES[rng.randrange(len(_VENUES))]
            authors = [person.as_author()]
            for _ in range(rng.randrange(3)):
                other = self.people[rng.randrange(len(self.people))]
                if other.key != person.key:
                    authors.append(other.as_author())
            authors.insert(rng.randrange(len(authors) + 1), Author(f"Stranger {number}"))
            year = 2010 + rng.randrange(16)
            arxiv = f"{year % 100:02d}{rng.randrange(1, 13):02d}.{number % 100000:05d}"
            word, topic = rng.choice(_WORDS), rng.choice(_TOPICS)
            title = f"{word} {topic} {number}"
            papers.append(
                Paper(
                    number=number,
                    title=title,
                    year=year,
                    month=rng.randrange(1, 13),
                    authors=tuple(authors),
                    type=kind,
                    venue=venue,
                    doi=None if kind == "preprint" else f"10.5555/dir.{number}",
                    arxiv_id=arxiv if kind == "preprint" or rng.random() < 0.6 else None,
                    abstract=f"We study {title.lower()}.",
                )
            )
        return papers
