"""A judged query set for "who works on X?" (docs/search.md): questions with graded relevant
people, on the demo department and on topics planted in the generated one.

Grades: 3 the person works on it (most of their recent work, or their first-author papers);
2 a good part of their work; 1 touches it (a middle author, a related interest). Each topic
has a *keyword* question (words of the titles: names, acronyms) and *paraphrases* that share no
word with any title or interest of the people judged relevant (tests/services/
test_expertise_judgments.py checks that), the question someone who does not know the field's
words asks.

The planted topics go into a department of tests/support/synthetic.py with :func:`plant`:
each topic gets a faculty member (the last author of six papers on it, and the topic in their
interests), a student of theirs (the first author of three of them) and a member who is a
middle author of one. Their other papers stay the generator's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from directory import models as m


@dataclass(frozen=True)
class Judged:
    query: str
    #: Person slug → grade (3, 2, 1); anyone else is not relevant.
    grades: dict[str, int]
    #: "keyword" (the titles' own words) or "paraphrase" (none of them).
    kind: str
    topic: str


# ----------------------------------------------------------------------------- the demo

_SERVING = {
    "jiangfei-duan": 3,
    "dingyan-zhang": 3,
    "rongxin-cheng": 2,
    "xingda-wei": 2,
    "danyang-zhuo": 2,
    "jinbo-han": 1,
    "kaixi-zhang": 1,
    "jiahao-wang": 1,
}
_RDMA = {"xingda-wei": 3, "rongxin-cheng": 1}
_QUANT = {"jiangfei-duan": 3}
_CHECKPOINT = {"xingda-wei": 3, "tianle-sun": 2}
_TRAINING = {"jiangfei-duan": 3, "xingda-wei": 1, "danyang-zhuo": 1}
_VECTORS = {"rongxin-cheng": 3, "xingda-wei": 1}
_CLOUD = {"danyang-zhuo": 3, "xingda-wei": 2, "dingyan-zhang": 1, "tianle-sun": 1}

DEMO: tuple[Judged, ...] = (
    Judged("LLM serving", _SERVING, "keyword", "serving"),
    Judged("who works on LLM serving?", _SERVING, "keyword", "serving"),
    Judged(
        "answering chatbot prompts for many simultaneous users", _SERVING, "paraphrase", "serving"
    ),
    Judged("RDMA", _RDMA, "keyword", "rdma"),
    Judged("databases whose machines fetch each other's RAM directly", _RDMA, "paraphrase", "rdma"),
    Judged("quantization", _QUANT, "keyword", "quantization"),
    Judged("shrinking neural network weights to fewer bits", _QUANT, "paraphrase", "quantization"),
    Judged("GPU checkpoint and restore", _CHECKPOINT, "keyword", "checkpoint"),
    Judged(
        "saving accelerator contents so crashed programs resume",
        _CHECKPOINT,
        "paraphrase",
        "checkpoint",
    ),
    Judged("distributed training of large models", _TRAINING, "keyword", "training"),
    Judged("teaching huge transformers on thousands of chips", _TRAINING, "paraphrase", "training"),
    Judged("vector search", _VECTORS, "keyword", "vectors"),
    Judged(
        "approximate nearest neighbour lookup among embeddings", _VECTORS, "paraphrase", "vectors"
    ),
    Judged("datacenter and cloud computing", _CLOUD, "keyword", "cloud"),
    Judged(
        "warehouse-sized computers and the services hosted there", _CLOUD, "paraphrase", "cloud"
    ),
)

#: Questions on nothing either department works on: the fewer people found, the better.
OFF_TOPIC = (
    "medieval poetry",
    "bird migration ecology",
    "cooking recipes",
    "tax law",
    "soccer tactics",
    "french literature",
)

#: Chinese questions and the English question each says (docs/search.md, "Languages").
CHINESE = (
    ("谁在做大语言模型推理服务", "who works on LLM serving?"),
    ("远程直接内存访问", "RDMA"),
    ("模型量化", "quantization"),
    ("向量检索", "vector search"),
    ("云计算与数据中心", "datacenter and cloud computing"),
)


# ----------------------------------------------------------------------------- planted topics


@dataclass(frozen=True)
class Topic:
    name: str
    interest: str
    titles: tuple[str, ...]
    keyword: str
    paraphrases: tuple[str, ...]


TOPICS: tuple[Topic, ...] = (
    Topic(
        "proteins",
        "protein structure prediction",
        (
            "Predicting protein structure from amino acid sequences",
            "Deep learning for tertiary structure of proteins",
            "Contact maps improve protein folding accuracy",
            "Evolutionary couplings in multiple sequence alignments",
            "Benchmarking protein structure predictors on CASP targets",
            "Side-chain packing with equivariant networks",
        ),
        "protein structure",
        ("how do biomolecules take on their three-dimensional shape",),
    ),
    Topic(
        "privacy",
        "differential privacy",
        (
            "Differentially private query release",
            "Privacy budget accounting for federated analytics",
            "Private synthetic data with marginal queries",
            "Tight composition bounds for the Gaussian mechanism",
            "Auditing differentially private machine learning",
            "Local differential privacy for telemetry",
        ),
        "differential privacy",
        ("publishing statistics without revealing any individual person",),
    ),
    Topic(
        "music",
        "music recommendation",
        (
            "Playlist continuation with sequential models",
            "Listening history embeddings for song suggestions",
            "Cold-start recommendation of new music tracks",
            "Audio features for personalised radio",
            "Fairness toward artists in music recommenders",
            "Session-based track recommendation",
        ),
        "music recommendation",
        ("which tunes should a streaming app propose to its listeners",),
    ),
    Topic(
        "wildfire",
        "wildfire detection",
        (
            "Satellite detection of wildfires",
            "Predicting wildfire spread from weather data",
            "Smoke segmentation in aerial imagery",
            "Early warning of forest fires with sensor networks",
            "Burned area mapping after wildfires",
            "Fuel moisture estimation from remote sensing",
        ),
        "wildfire",
        ("spotting blazes in woodland from orbit",),
    ),
    Topic(
        "quantum",
        "quantum error correction",
        (
            "Surface code decoding with union-find",
            "Logical qubit thresholds under circuit-level noise",
            "Lattice surgery for topological codes",
            "Fault-tolerant magic state distillation",
            "Decoders for biased-noise qubits",
            "Measurement scheduling in surface code architectures",
        ),
        "surface code",
        ("keeping fragile computations in superposition reliable",),
    ),
    Topic(
        "serving",
        "LLM serving",
        (
            "Serving large language models with paged attention",
            "Continuous batching for LLM serving",
            "Speculative decoding in production LLM serving",
            "KV cache offloading for long-context LLM serving",
            "SLO-aware scheduling of LLM requests",
            "Multi-tenant LLM serving on shared GPUs",
        ),
        "LLM serving",
        ("answering chatbot prompts quickly for many simultaneous users",),
    ),
)


def plant(session: Session, seed: int = 29) -> tuple[Judged, ...]:
    """Write the planted topics into the generated department of ``session`` (bulk inserts;
    the caller rebuilds the search index and the vectors) and return their judged questions."""
    rng = random.Random(seed)
    people = session.execute(
        select(m.Person.id, m.Person.slug, m.Person.role, m.Person.full_name)
        .where(m.Person.active.is_(True))
        .order_by(m.Person.id)
    ).all()
    faculty = [p for p in people if p.role == "faculty"]
    students = [p for p in people if p.role == "phd_student"]
    others = [p for p in people if p.role in ("postdoc", "masters_student")]
    judged: list[Judged] = []
    year = date.today().year
    for n, topic in enumerate(TOPICS):
        professor = faculty[(2 * n + 1) % len(faculty)]
        student = students[(5 * n + 2) % len(students)]
        middle = others[(7 * n + 3) % len(others)]
        session.execute(
            update(m.Person).where(m.Person.id == professor.id).values(interests=topic.interest)
        )
        for i, title in enumerate(topic.titles):
            authors = [student if i < 3 else None, middle if i == 0 else None, professor]
            _paper(session, f"planted-{topic.name}-{i}", title, year - rng.randint(0, 4), authors)
        grades = {professor.slug: 3, student.slug: 3, middle.slug: 1}
        judged.append(Judged(topic.keyword, grades, "keyword", topic.name))
        judged += [Judged(q, grades, "paraphrase", topic.name) for q in topic.paraphrases]
    session.flush()
    return tuple(judged)


def _paper(session: Session, uid: str, title: str, year: int, authors: list) -> None:
    pub_id = session.execute(
        insert(m.Publication)
        .values(
            uid=uid,
            title=title,
            year=year,
            type="conference",
            status="published",
            visibility="public",
            labels=[],
        )
        .returning(m.Publication.id)
    ).scalar_one()
    for position, author in enumerate(authors):
        person_id = None if author is None else author.id
        session.execute(
            insert(m.Authorship).values(
                publication_id=pub_id,
                position=position,
                person_id=person_id,
                name="Alex Outsider" if author is None else author.full_name,
                co_first=False,
                corresponding=position == len(authors) - 1,
            )
        )
        if person_id is not None:
            session.execute(
                insert(m.ProfilePublication).values(
                    person_id=person_id,
                    publication_id=pub_id,
                    selected=False,
                    hidden=False,
                    position=0,
                )
            )
