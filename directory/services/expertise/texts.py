"""What text stands for a paper and for a profile, when their vectors are made.

A paper: its title and abstract. A profile: the research interests, the biography, and the
titles and summaries of its public research projects and recruiting notices. Only what anyone
may read goes into a profile's text (a members-only project never lifts a profile for a
visitor); papers are weighed per viewer when ranking, by the read rules of each paper.
"""

from __future__ import annotations

import hashlib
import re

from directory import models as m
from directory.services.expertise.model import MODEL_NAME
from directory.services.search_index import plain_text

PUBLIC = "public"


def paper_text(pub: m.Publication) -> str:
    return "\n".join(part for part in (pub.title, pub.abstract or "") if part)


def profile_text(
    person: m.Person,
    projects: list[m.ResearchProject],
    notices: list[m.RecruitingNotice],
) -> str:
    parts = [person.interests or "", plain_text(person.bio)]
    parts += [f"{p.title}. {plain_text(p.summary)}" for p in projects if p.visibility == PUBLIC]
    parts += [
        f"{n.title or ''} {plain_text(n.description)}".strip()
        for n in notices
        if n.visibility == PUBLIC
    ]
    return "\n".join(part for part in parts if part)


def digest(text: str) -> str:
    """What a vector was made from: the model and the text."""
    return hashlib.sha1(f"{MODEL_NAME}\n{text}".encode(), usedforsecurity=False).hexdigest()


_SEPARATORS = re.compile(r"[;,\n·•|]+")


def interest_phrases(interests: str | None) -> list[str]:
    """A profile's research interests as the phrases its owner listed ("Operating systems,
    RDMA; LLM serving" → three)."""
    return [p.strip(" .") for p in _SEPARATORS.split(interests or "") if len(p.strip(" .")) > 1]
