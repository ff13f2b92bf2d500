"""The keys a work is known by in the claim queue: ``doi:…``, ``arxiv:…``, ``dblp:…``,
``openalex:…`` and ``title:<folded title>|<year>``. Two records of one work share one of
them whatever source each came from; a rejection stores them all. Pure."""

from __future__ import annotations

from typing import Any

from directory.formats.identifiers import normalise_arxiv, normalise_doi
from directory.formats.names import fold_for_matching

#: A key's longest form (the model's column); a longer title is cut (still one work's).
MAX_KEY = 300


def work_keys(work: Any) -> list[str]:
    """Every key of ``work`` (a HarvestedWork, a dict of one, or a publication), most
    specific first."""

    def value(name: str) -> Any:
        return work.get(name) if isinstance(work, dict) else getattr(work, name, None)

    keys = []
    doi = normalise_doi(value("doi"))
    if doi:
        keys.append(f"doi:{doi}")
    arxiv = normalise_arxiv(value("arxiv_id"))
    if arxiv:
        keys.append(f"arxiv:{arxiv}")
    for name, prefix in (("dblp_key", "dblp"), ("openalex_id", "openalex")):
        if value(name):
            keys.append(f"{prefix}:{value(name)}")
    title = fold_for_matching(value("title") or "")
    if title:
        keys.append(f"title:{title}|{value('year') or ''}")
    return [key[:MAX_KEY] for key in keys]
