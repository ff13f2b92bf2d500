"""A publication's own lists — authors, links, awards, badges — read as plain dicts and built
as rows, in one place. The history's snapshots, the interchange import and export, and record
splits all go through these functions; only the bulk BibTeX/ORCID writer
(:mod:`directory.services.pubimport`) writes the same columns as raw tuples, for speed."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from directory import models as m


def link_dicts(links: Iterable[Any]) -> list[dict[str, Any]]:
    return [{"kind": k.kind, "url": k.url, "label": k.label} for k in links]


def child_dicts(pub: m.Publication) -> dict[str, Any]:
    """The paper's links, awards and badges as JSON-ready data."""
    return {
        "links": link_dicts(pub.links),
        "awards": [a.name for a in pub.awards],
        "badges": [{"name": b.name, "issuer": b.issuer} for b in pub.badges],
    }


def author_dicts(
    pub: m.Publication, person_key: Callable[[m.Authorship], Any], field: str = "person"
) -> list[dict[str, Any]]:
    """The printed authors in order; ``person_key`` names the linked person under ``field``
    (its id as "person_id" for the history, its slug as "person" for the interchange format)."""
    return [
        {
            "name": a.name,
            field: person_key(a),
            "co_first": a.co_first,
            "corresponding": a.corresponding,
        }
        for a in pub.authorships
    ]


def new_authorships(
    authors: Iterable[dict[str, Any]], person_id_of: Callable[[Any], Any], field: str = "person"
) -> list[m.Authorship]:
    """Authorship rows, positions in print order; ``person_id_of`` turns an author's ``field``
    (a person id or slug) into a person id, or None when it names nobody (any more)."""
    return [
        m.Authorship(
            position=i,
            name=a["name"],
            person_id=person_id_of(a.get(field)),
            co_first=bool(a.get("co_first")),
            corresponding=bool(a.get("corresponding")),
        )
        for i, a in enumerate(authors)
    ]


def set_children(pub: m.Publication, data: dict[str, Any]) -> None:
    """Replace the paper's links, awards and badges by those in ``data`` (keys it lacks are
    left alone)."""
    if "links" in data:
        pub.links = [
            m.PublicationLink(kind=k["kind"], url=k["url"], label=k.get("label"), position=i)
            for i, k in enumerate(data["links"])
        ]
    if "awards" in data:
        pub.awards = [m.PublicationAward(name=n, position=i) for i, n in enumerate(data["awards"])]
    if "badges" in data:
        pub.badges = [
            m.ArtifactBadge(name=b["name"], issuer=b.get("issuer"), position=i)
            for i, b in enumerate(data["badges"])
        ]
