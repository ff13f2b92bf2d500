"""A synthetic department, written straight into the directory's tables with bulk inserts.

Deterministic for a given seed and sizes. Additive: a second call with another ``prefix`` adds
more people and papers next to the first (the query-count tests grow a department that way).

    python -m tests.support.synthetic --db sqlite:////tmp/bench.sqlite3 [--small]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.names import name_keys
from directory.formats.placements import parse_placement
from directory.services.cache import invalidate
from directory.services.title_words import word_rows

# fmt: off
GIVEN = (
    "Wei", "Jing", "Xin", "Yang", "Hao", "Rui", "Ming", "Lei", "Tao", "Yu", "Jun", "Chen", "Bo",
    "Lin", "Ying", "Qian", "Ada", "Grace", "Alan", "Barbara", "Edsger", "Frances", "Leslie",
    "Margaret", "Radia", "Tony", "Butler", "Shafi", "Silvio", "Sophie", "Ravi", "Priya", "Ana",
    "Lucas", "Mateo", "Sofia", "Yuki", "Haruto", "Min-jun", "Seo-yeon", "Amara", "Kwame", "Olga",
    "Ivan", "Fatima", "Omar", "Nadia", "Jonas",
)
FAMILY = (
    "Chen", "Wang", "Li", "Zhang", "Liu", "Yang", "Huang", "Zhao", "Wu", "Zhou", "Xu", "Sun", "Ma",
    "Zhu", "Hu", "Guo", "He", "Lin", "Gao", "Luo", "Zheng", "Smith", "Johnson", "Garcia",
    "Martinez", "Kim", "Park", "Lee", "Nguyen", "Tanaka", "Sato", "Suzuki", "Patel", "Singh",
    "Kumar", "Okafor", "Mensah", "Ivanova", "Petrov", "Haddad", "Rahman", "Silva", "Santos",
    "Rossi", "Bianchi", "Muller", "Schmidt", "Dubois",
)
# fmt: on
AREAS = (
    "Operating Systems",
    "Distributed Systems",
    "Networking",
    "Databases",
    "Computer Architecture",
    "Programming Languages",
    "Compilers",
    "Security and Privacy",
    "Cryptography",
    "Machine Learning",
    "Machine Learning Systems",
    "Computer Vision",
    "Natural Language Processing",
    "Robotics",
    "Human-Computer Interaction",
    "Graphics",
    "Theory of Computation",
    "Algorithms",
    "Formal Methods",
    "Software Engineering",
    "Computational Biology",
    "Quantum Computing",
    "Storage Systems",
    "Cloud Computing",
)
VENUES = (
    ("OSDI", "USENIX Symposium on Operating Systems Design and Implementation"),
    ("SOSP", "ACM Symposium on Operating Systems Principles"),
    ("NSDI", "USENIX Symposium on Networked Systems Design and Implementation"),
    ("EuroSys", "European Conference on Computer Systems"),
    ("SIGCOMM", "ACM SIGCOMM Conference"),
    ("SIGMOD", "ACM SIGMOD International Conference on Management of Data"),
    ("VLDB", "Proceedings of the VLDB Endowment"),
    ("ISCA", "International Symposium on Computer Architecture"),
    ("PLDI", "ACM SIGPLAN Conference on Programming Language Design and Implementation"),
    ("NeurIPS", "Advances in Neural Information Processing Systems"),
    ("ICML", "International Conference on Machine Learning"),
    ("CVPR", "IEEE/CVF Conference on Computer Vision and Pattern Recognition"),
    ("ACL", "Annual Meeting of the Association for Computational Linguistics"),
    ("CHI", "ACM CHI Conference on Human Factors in Computing Systems"),
    ("S&P", "IEEE Symposium on Security and Privacy"),
    ("STOC", "ACM Symposium on Theory of Computing"),
)
# fmt: off
WORDS = (
    "scalable", "efficient", "adaptive", "verified", "distributed", "learned", "secure", "fast",
    "elastic", "serverless", "consistent", "fault-tolerant", "transactional", "approximate",
    "incremental", "streaming", "federated", "disaggregated", "persistent", "memory", "cache",
    "scheduler", "runtime", "compiler", "kernel", "storage", "network", "inference", "training",
    "graph", "query", "index", "consensus", "replication", "analysis", "synthesis", "system",
    "framework", "benchmark", "accelerator", "protocol", "model", "language", "retrieval",
    "agents",
)
# fmt: on
RANKS = ("professor", "associate_professor", "assistant_professor", "research_professor")
RANK_TITLES = {
    "professor": "Professor",
    "associate_professor": "Associate Professor",
    "assistant_professor": "Assistant Professor",
    "research_professor": "Research Professor",
}
MEMBER_ROLES = (("phd_student", 60), ("masters_student", 20), ("postdoc", 15), ("undergraduate", 5))
DEGREE_OF_ROLE = {
    "phd_student": "phd",
    "masters_student": "masters",
    "postdoc": "postdoc",
    "undergraduate": "undergraduate",
}
CHUNK = 2000


@dataclass(frozen=True)
class Sizes:
    """How big the department is. The defaults are the issue's (a large department)."""

    faculty: int = 150
    members: int = 1200  # students and postdocs
    alumni: int = 400
    publications: int = 25_000
    notices: int = 300


SMALL = Sizes(faculty=15, members=120, alumni=40, publications=2_500, notices=30)


@dataclass
class Summary:
    people: int = 0
    publications: int = 0
    authorships: int = 0
    rows: int = 0
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, other: Summary) -> None:
        """Count ``other`` (another department generated into the same database) in."""
        self.people += other.people
        self.publications += other.publications
        self.authorships += other.authorships
        self.rows += other.rows
        self.seconds += other.seconds
        for name, count in other.counts.items():
            self.counts[name] = self.counts.get(name, 0) + count


def _chunks(rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    for i in range(0, len(rows), CHUNK):
        yield rows[i : i + CHUNK]


class _Writer:
    def __init__(self, session: Session, summary: Summary) -> None:
        self.session = session
        self.summary = summary

    def insert(self, target: Any, rows: list[dict[str, Any]]) -> None:
        for chunk in _chunks(rows):
            self.session.execute(insert(target), chunk)
        self._count(target, len(rows))

    def insert_returning_ids(self, model: Any, rows: list[dict[str, Any]]) -> list[int]:
        ids: list[int] = []
        for chunk in _chunks(rows):
            stmt = insert(model).returning(model.id, sort_by_parameter_order=True)
            ids.extend(self.session.scalars(stmt, chunk))
        self._count(model, len(rows))
        return ids

    def _count(self, target: Any, n: int) -> None:
        name = getattr(target, "__tablename__", None) or target.name
        self.summary.counts[name] = self.summary.counts.get(name, 0) + n
        self.summary.rows += n


#: Where the generated alumni went, as written ({} is a made-up name).
PLACEMENTS = (
    "Assistant Professor, {} University",
    "Postdoc at {} University",
    "Research Scientist, {} Labs",
    "Software Engineer @ {}",
    "{} University",
)


def _placement(text: str) -> dict[str, Any]:
    """A placement's columns: the text and its structure, as the editor would store them."""
    found = parse_placement(text)
    return {
        "placement": text,
        "placement_organisation": found.organisation,
        "placement_kind": found.kind,
        "placement_year": found.year,
        "placement_unparsed": not found.understood,
    }


def _sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[:1].upper() + text[1:]


_SYLLABLES = ("bar", "vel", "dor", "qui", "san", "mef", "tol", "ush", "rin", "gal", "pho", "wex")


def _topic_vocabulary(size: int = 20_000) -> tuple[list[str], list[float]]:
    """Words of a paper's own topic (``Velqui``, ``Dorsanmef``...), the same for every
    department of a university, and their cumulative weights by Zipf's law (the word of rank
    r drawn 1/r as often as the first), as the words of real titles are: a few are common,
    most are rare."""
    rng = random.Random("topic words")
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    ranked = sorted(words)
    rng.shuffle(ranked)
    cumulative, total = [], 0.0
    for rank in range(1, size + 1):
        total += 1 / rank
        cumulative.append(total)
    return ranked, cumulative


_TOPIC_WORDS, _TOPIC_WEIGHTS = _topic_vocabulary()


def _title(rng: random.Random) -> str:
    """A paper's title: two to six of the field's common words (``WORDS``) and one to three
    words of its topic. (Titles of the common words alone made every word of every title
    common: a duplicate check then compares a title with a share of all the papers.)"""
    words = [rng.choice(WORDS) for _ in range(rng.randint(2, 6))]
    words += rng.choices(_TOPIC_WORDS, cum_weights=_TOPIC_WEIGHTS, k=rng.randint(1, 3))
    rng.shuffle(words)
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def _weighted(rng: random.Random, pairs: Iterable[tuple[str, int]]) -> str:
    values, weights = zip(*pairs, strict=True)
    return rng.choices(values, weights=weights)[0]


def _area_ids(session: Session, writer: _Writer) -> list[int]:
    existing = dict(session.execute(select(m.ResearchArea.name, m.ResearchArea.id)).all())
    missing = [name for name in AREAS if name not in existing]
    if missing:
        slugs = [name.lower().replace(" ", "-").replace("&", "and") for name in missing]
        new = writer.insert_returning_ids(
            m.ResearchArea,
            [
                {"name": name, "slug": slug, "position": i}
                for i, (name, slug) in enumerate(zip(missing, slugs, strict=True))
            ],
        )
        existing.update(zip(missing, new, strict=True))
    return [existing[name] for name in AREAS]


def generate(session: Session, sizes: Sizes, seed: int = 1, prefix: str = "") -> Summary:
    """Add a department of ``sizes`` to ``session``'s database (flushed, not committed)."""
    started = time.perf_counter()
    rng = random.Random(f"{seed}-{prefix}")
    # The papers' titles draw from their own stream, so that how titles are made does not
    # change who and what else the department holds.
    titles_rng = random.Random(f"{seed}-{prefix}-titles")
    summary = Summary()
    writer = _Writer(session, summary)
    today = date.today()
    areas = _area_ids(session, writer)
    base = session.scalar(select(func.count(m.Person.id))) or 0

    # ------------------------------------------------------------------ people
    people: list[dict[str, Any]] = []
    kinds: list[str] = []
    for kind, count in (
        ("faculty", sizes.faculty),
        ("member", sizes.members),
        ("alumni", sizes.alumni),
    ):
        for _ in range(count):
            n = base + len(people) + 1
            given, family = rng.choice(GIVEN), rng.choice(FAMILY)
            name = f"{given} {family}"
            slug = f"{prefix}{given}-{family}-{n}".lower()
            row: dict[str, Any] = {
                "slug": slug,
                "full_name": name,
                "sort_name": f"{family}, {given}",
                "email": f"{slug}@example.edu",
                "interests": ", ".join(rng.sample(WORDS, 4)),
                "name_variants": [f"{given[0]}. {family}"],
                "section_intros": {},
                "visibility": "public",
                "last_confirmed": today - timedelta(days=rng.randrange(700)),
            }
            if kind == "faculty":
                rank = rng.choice(RANKS)
                row.update(
                    role="faculty",
                    rank=rank,
                    title=RANK_TITLES[rank],
                    office=f"Gates {rng.randrange(100, 500)}",
                    phone=f"+1 555 01{rng.randrange(10, 99)}",
                    bio="\n\n".join(
                        f"{_sentence(rng, 18)}. **{_sentence(rng, 3)}** and "
                        f"[{_sentence(rng, 2)}](https://example.org/{n})."
                        for _ in range(3)
                    ),
                )
            elif kind == "member":
                role = _weighted(rng, MEMBER_ROLES)
                row.update(role=role, title=m.label(m.ROLES, role).rstrip("s"))
                row["bio"] = f"{_sentence(rng, 20)}."
            else:
                row.update(role="alumni", title=f"Engineer at {rng.choice(FAMILY)} Labs")
            # Bulk inserts pass no ORM event: the stored name orders, as directory.db fills them.
            row.update(name_keys(row["sort_name"], row["full_name"], row.get("native_name")))
            people.append(row)
            kinds.append(kind)
    ids = writer.insert_returning_ids(m.Person, people)
    summary.people = len(ids)
    faculty = [i for i, k in zip(ids, kinds, strict=True) if k == "faculty"]
    members = [(i, p) for i, p, k in zip(ids, people, kinds, strict=True) if k == "member"]
    alumni = [i for i, k in zip(ids, kinds, strict=True) if k == "alumni"]

    person_areas, links = [], []
    for pid, kind in zip(ids, kinds, strict=True):
        for area in rng.sample(areas, 3 if kind == "faculty" else rng.randint(1, 2)):
            person_areas.append({"person_id": pid, "area_id": area})
        for pos, link_kind in enumerate(("homepage", "scholar", "github")):
            links.append(
                {
                    "person_id": pid,
                    "kind": link_kind,
                    "url": f"https://{link_kind}.example.org/{pid}",
                    "position": pos,
                }
            )
    writer.insert(m.person_areas, person_areas)
    writer.insert(m.PersonLink, links)

    # ------------------------------------------------------------------ profile entries
    def entries(owner: int, count: int, make: Any) -> list[dict[str, Any]]:
        return [
            {"owner_id": owner, "position": pos, "visibility": "public", **make(pos)}
            for pos in range(count)
        ]

    news, education, experience, teaching, service, awards, funding, custom = ([] for _ in range(8))
    for pid in faculty:
        news += entries(
            pid,
            8,
            lambda pos: {
                "year": today.year - pos // 3,
                "month": 1 + pos,
                "body": f"{_sentence(rng, 12)}.",
            },
        )
        education += entries(
            pid,
            3,
            lambda pos: {
                "degree": ("PhD", "MS", "BS")[pos],
                "institution": f"University of {rng.choice(FAMILY)}",
                "start_year": 2000 - 4 * pos,
                "end_year": 2005 - 4 * pos,
            },
        )
        experience += entries(
            pid,
            2,
            lambda pos: {
                "kind": "job",
                "title": "Researcher",
                "organisation": f"{rng.choice(FAMILY)} Research",
                "start_year": 2006 + pos,
                "end_year": 2008 + pos,
            },
        )
        teaching += entries(
            pid,
            5,
            lambda pos: {
                "course_code": f"CS {100 + 10 * pos}",
                "title": _sentence(rng, 3),
                "term": "Fall",
                "year": today.year - pos,
                "role": "instructor",
            },
        )
        service += entries(
            pid,
            8,
            lambda pos: {
                "kind": rng.choice(("program_committee", "organizer", "reviewer")),
                "venue": rng.choice(VENUES)[0],
                "year": today.year - pos // 2,
            },
        )
        awards += entries(
            pid,
            3,
            lambda pos: {
                "title": f"{_sentence(rng, 2)} Award",
                "year": today.year - 3 * pos,
                "giver": "ACM",
            },
        )
        funding += entries(
            pid,
            2,
            lambda pos: {
                "funder": "National Science Foundation",
                "title": _sentence(rng, 5),
                "grant_number": f"CNS-{rng.randrange(10**6)}",
            },
        )
        custom += entries(
            pid, 1, lambda pos: {"title": "Office hours", "body": "Tuesdays, **2–4 pm**."}
        )
    for pid, _ in members:
        news += entries(
            pid,
            2,
            lambda pos: {"year": today.year - pos, "month": 6, "body": f"{_sentence(rng, 10)}."},
        )
        education += entries(
            pid,
            2,
            lambda pos: {
                "degree": ("MS", "BS")[pos],
                "institution": f"{rng.choice(FAMILY)} University",
                "start_year": 2018 - 4 * pos,
                "end_year": 2020 - 4 * pos,
            },
        )
        experience += entries(
            pid,
            1,
            lambda pos: {
                "kind": "internship",
                "title": "Research Intern",
                "organisation": f"{rng.choice(FAMILY)} AI",
                "hosts": f"{rng.choice(GIVEN)} {rng.choice(FAMILY)}",
                "start_year": today.year - 1,
            },
        )
    for model, rows in (
        (m.NewsItem, news),
        (m.Education, education),
        (m.Experience, experience),
        (m.Teaching, teaching),
        (m.Service, service),
        (m.Award, awards),
        (m.Funding, funding),
        (m.CustomSection, custom),
    ):
        writer.insert(model, rows)

    # ------------------------------------------------------------------ advising
    advising = []
    for pid, person in members:
        advisor = rng.choice(faculty)
        degree = DEGREE_OF_ROLE[person["role"]]
        advising.append(
            {
                "owner_id": advisor,
                "position": 0,
                "visibility": "public",
                "advisor_id": advisor,
                "student_id": pid,
                "role": "advisor",
                "degree": degree,
                "status": "current",
                "start_year": today.year - rng.randrange(5),
            }
        )
        if rng.random() < 0.2:
            other = rng.choice(faculty)
            advising.append(
                {
                    "owner_id": other,
                    "position": 1,
                    "visibility": "public",
                    "advisor_id": other,
                    "student_id": pid,
                    "role": "co_advisor",
                    "degree": degree,
                    "status": "current",
                    "start_year": today.year - 2,
                }
            )
    for pid in alumni:
        advisor = rng.choice(faculty)
        advising.append(
            {
                "owner_id": advisor,
                "position": 0,
                "visibility": "public",
                "advisor_id": advisor,
                "student_id": pid,
                "role": "advisor",
                "degree": "phd",
                "status": "graduated",
                "start_year": 2010,
                "end_year": today.year - rng.randrange(1, 12),
                **_placement(rng.choice(PLACEMENTS).format(rng.choice(FAMILY))),
                "thesis": _sentence(rng, 6),
            }
        )
    writer.insert(m.AdvisingRelation, advising)

    # ------------------------------------------------------------------ projects
    parents = [
        {
            "owner_id": pid,
            "position": pos,
            "visibility": "public",
            "title": _sentence(rng, 3),
            "summary": f"{_sentence(rng, 15)}.",
            "status": "current",
        }
        for pid in faculty
        for pos in range(3)
    ]
    parent_ids = writer.insert_returning_ids(m.ResearchProject, parents)
    children = [
        {
            "owner_id": row["owner_id"],
            "parent_id": parent,
            "position": pos,
            "visibility": "public",
            "title": _sentence(rng, 2),
            "status": "past",
        }
        for parent, row in zip(parent_ids, parents, strict=True)
        for pos in range(2)
    ]
    writer.insert(m.ResearchProject, children)

    # ------------------------------------------------------------------ publications
    # Productivity is skewed, as in real departments: the busiest faculty member has a few
    # percent of all papers (about 800 of 25,000), most have a few hundred or fewer.
    faculty_weights = [1 / (rank + 10) for rank in range(len(faculty))]
    member_ids = [pid for pid, _ in members] + alumni
    names = {pid: p["full_name"] for pid, p in zip(ids, people, strict=True)}
    pubs = []
    for i in range(sizes.publications):
        short, venue = rng.choice(VENUES)
        year = today.year - min(int(rng.expovariate(0.25)), 25)
        pubs.append(
            {
                "uid": f"bench{prefix}{seed}x{i}",
                "title": _title(titles_rng),
                "venue": venue,
                "venue_short": f"{short}'{year % 100:02d}",
                "year": year,
                "month": rng.randint(1, 12),
                "type": "conference",
                "status": "published",
                "doi": f"10.5555/bench.{prefix}{seed}.{i}" if rng.random() < 0.6 else None,
                "abstract": f"{_sentence(rng, 40)}." if rng.random() < 0.3 else None,
                "labels": ["CCF A"] if rng.random() < 0.2 else [],
                "visibility": "public",
            }
        )
    pub_ids = writer.insert_returning_ids(m.Publication, pubs)
    summary.publications = len(pub_ids)
    # Bulk inserts pass no ORM event: the titles' words, as directory.db stores them.
    words = word_rows((pid, pub["title"]) for pid, pub in zip(pub_ids, pubs, strict=True))
    writer.insert(m.PublicationTitleWord, [{"word": w, "publication_id": p} for w, p in words])

    authorships, profile_pubs, pub_links, pub_awards = [], [], [], []
    for pub_id in pub_ids:
        count = rng.choice((2, 3, 3, 4, 4, 4, 5, 5, 6, 7))  # about four authors each
        last = rng.choices(faculty, weights=faculty_weights)[0]
        authors: list[int | None] = [
            rng.choice(member_ids) if member_ids and rng.random() < 0.7 else None
            for _ in range(count - 1)
        ] + [last]
        seen: set[int] = set()
        for pos, pid in enumerate(authors):
            if pid is not None and pid in seen:
                pid = None
            name = names[pid] if pid else f"{rng.choice(GIVEN)} {rng.choice(FAMILY)}"
            authorships.append(
                {
                    "publication_id": pub_id,
                    "position": pos,
                    "name": name,
                    "person_id": pid,
                    "co_first": pos == 1 and rng.random() < 0.1,
                    "corresponding": pid == last,
                }
            )
            if pid is not None:
                seen.add(pid)
                profile_pubs.append(
                    {
                        "person_id": pid,
                        "publication_id": pub_id,
                        "selected": rng.random() < 0.03,
                        "hidden": False,
                        "position": 0,
                    }
                )
        pub_links.append(
            {
                "publication_id": pub_id,
                "kind": "paper",
                "url": f"https://papers.example.org/{pub_id}.pdf",
                "position": 0,
            }
        )
        if rng.random() < 0.4:
            pub_links.append(
                {
                    "publication_id": pub_id,
                    "kind": "code",
                    "url": f"https://github.example.org/{pub_id}",
                    "position": 1,
                }
            )
        if rng.random() < 0.02:
            pub_awards.append({"publication_id": pub_id, "name": "Best Paper Award", "position": 0})
    writer.insert(m.Authorship, authorships)
    writer.insert(m.ProfilePublication, profile_pubs)
    writer.insert(m.PublicationLink, pub_links)
    writer.insert(m.PublicationAward, pub_awards)
    summary.authorships = len(authorships)

    # ------------------------------------------------------------------ recruiting
    notices = []
    for i in range(sizes.notices):
        expired = rng.random() < 0.1
        notices.append(
            {
                "owner_id": faculty[i % len(faculty)],
                "position": i // len(faculty),
                "visibility": "public",
                "level": rng.choice(("phd", "phd", "masters", "postdoc", "intern")),
                # Structured terms (a bulk insert is not read by the model): most for next
                # fall, some rolling.
                "term_season": None if i % 4 == 3 else "fall",
                "term_year": None if i % 4 == 3 else today.year + 1,
                "title": f"{_sentence(rng, 4)}",
                "description": "\n".join(
                    (
                        f"{_sentence(rng, 30)}.",
                        "",
                        f"* {_sentence(rng, 5)}",
                        f"* {_sentence(rng, 5)}",
                    )
                ),
                "how_to_apply": "Email a CV and a short statement.",
                "expires_on": today - timedelta(days=5) if expired else today + timedelta(days=90),
                "funded": rng.random() < 0.5,
                "last_confirmed": today - timedelta(days=rng.randrange(100)),
            }
        )
    notice_ids = writer.insert_returning_ids(m.RecruitingNotice, notices)
    writer.insert(
        m.notice_areas,
        [
            {"notice_id": nid, "area_id": area}
            for nid in notice_ids
            for area in rng.sample(areas, rng.randint(1, 2))
        ],
    )
    invalidate(session)
    session.flush()
    summary.seconds = time.perf_counter() - started
    return summary


@dataclass(frozen=True)
class Facts:
    """What the benchmark's URLs need to know about the generated department."""

    largest_profile: str
    largest_profile_publications: int
    area: str  #: the area with the most recruiting notices
    people_area: str  #: the area with the most people
    year: int  #: the year with the most publications
    surname: str
    paper: str = ""  #: the uid of the paper with a DOI and the most authors (its record page)


def department_facts(session: Session) -> Facts:
    count = func.count(m.ProfilePublication.publication_id)
    slug, pubs = session.execute(
        select(m.Person.slug, count)
        .join(m.ProfilePublication, m.ProfilePublication.person_id == m.Person.id)
        .group_by(m.Person.id, m.Person.slug)
        .order_by(count.desc(), m.Person.slug)
        .limit(1)
    ).one()
    area = session.scalar(
        select(m.ResearchArea.slug)
        .join(m.notice_areas, m.notice_areas.c.area_id == m.ResearchArea.id)
        .group_by(m.ResearchArea.id, m.ResearchArea.slug)
        .order_by(func.count().desc(), m.ResearchArea.slug)
        .limit(1)
    ) or session.scalar(select(m.ResearchArea.slug).order_by(m.ResearchArea.slug).limit(1))
    people_area = session.scalar(
        select(m.ResearchArea.slug)
        .join(m.person_areas, m.person_areas.c.area_id == m.ResearchArea.id)
        .group_by(m.ResearchArea.id, m.ResearchArea.slug)
        .order_by(func.count().desc(), m.ResearchArea.slug)
        .limit(1)
    )
    year = (
        session.scalar(
            select(m.Publication.year)
            .group_by(m.Publication.year)
            .order_by(func.count().desc(), m.Publication.year.desc())
            .limit(1)
        )
        or date.today().year
    )
    surname = session.scalar(select(m.Person.sort_name).order_by(m.Person.id).limit(1)) or "Chen"
    authors = func.count(m.Authorship.id)
    paper = session.scalar(
        select(m.Publication.uid)
        .join(m.Authorship, m.Authorship.publication_id == m.Publication.id)
        .where(m.Publication.doi.isnot(None))
        .group_by(m.Publication.id, m.Publication.uid)
        .order_by(authors.desc(), m.Publication.id)
        .limit(1)
    )
    return Facts(
        slug, pubs, area or "", people_area or "", year, surname.split(",")[0], paper or ""
    )


def bind_viewers(session: Session, facts: Facts, keys: dict[str, str]) -> None:
    """Make ``keys["owner"]`` the identity key of the largest profile, so that a request signed
    in with it gets that profile's editor at ``/me``. Flushes."""
    for holder in session.scalars(select(m.Person).where(m.Person.user_key == keys["owner"])):
        holder.user_key = None
    session.flush()
    person = session.scalar(select(m.Person).where(m.Person.slug == facts.largest_profile))
    person.user_key = keys["owner"]
    session.flush()


def main() -> None:
    from directory import migrate
    from directory.db import make_engine

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--db", required=True, help="SQLAlchemy URL (its directory tables are replaced)"
    )
    parser.add_argument("--small", action="store_true", help="a tenth of the default sizes")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    engine = make_engine(args.db)
    migrate.downgrade(engine, "base")
    migrate.upgrade(engine)
    with Session(engine) as session:
        summary = generate(session, SMALL if args.small else Sizes(), seed=args.seed)
        session.commit()
    print(
        f"{summary.people} people, {summary.publications} publications, "
        f"{summary.rows} rows in {summary.seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
