"""A publication's own lists — authors, links, awards, badges — read as plain dicts and built
as rows, in one place. The history's snapshots, the interchange import and export, and record
splits all go through these functions; only the bulk BibTeX/ORCID writer
(:mod:`directory.services.pubimport.bulk`) writes the same columns as raw tuples, for speed."""

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


#: What an author carries besides its name and person: the name's parts and its role.
NAME_PARTS = ("given", "particle", "family", "suffix")


def author_dicts(
    pub: m.Publication,
    person_key: Callable[[m.Authorship], Any],
    field: str = "person",
    suggested_key: Callable[[m.Authorship], Any] | None = None,
    suggested_field: str = "suggested_person",
) -> list[dict[str, Any]]:
    """The printed authors in order; ``person_key`` names the linked person under ``field``
    (its id as "person_id" for the history, its slug as "person" for the interchange format),
    ``suggested_key`` the member the name may be (not confirmed) under ``suggested_field``."""
    rows = []
    for a in pub.authorships:
        row = {
            "name": a.name,
            field: person_key(a),
            "co_first": a.co_first,
            "corresponding": a.corresponding,
            "role": a.role or "author",
            **{part: getattr(a, part) for part in NAME_PARTS},
        }
        if suggested_key is not None:
            row[suggested_field] = suggested_key(a)
            row["suggestion_declined"] = a.suggestion_declined
        rows.append(row)
    return rows


def new_authorships(
    authors: Iterable[dict[str, Any]],
    person_id_of: Callable[[Any], Any],
    field: str = "person",
    suggested_field: str = "suggested_person",
) -> list[m.Authorship]:
    """Authorship rows, positions in print order; ``person_id_of`` turns an author's ``field``
    (a person id or slug) into a person id, or None when it names nobody (any more); the same
    for the member the name is suggested to (``suggested_field``)."""
    return [
        m.Authorship(
            position=i,
            name=a["name"],
            person_id=person_id_of(a.get(field)),
            co_first=bool(a.get("co_first")),
            corresponding=bool(a.get("corresponding")),
            role=a.get("role") or "author",
            suggested_person_id=person_id_of(a.get(suggested_field))
            if a.get(suggested_field) is not None and a.get(field) is None
            else None,
            suggestion_declined=bool(a.get("suggestion_declined")),
            **{part: a.get(part) or None for part in NAME_PARTS},
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
