"""Who works with whom: the department's members as nodes, sized by their papers published
in the period, coloured by their research area, and joined by the papers they wrote together
(two members are a pair when the paper is listed on both their profiles).

The layout is networkx's spring layout (Fruchterman–Reingold) with a fixed seed, so the same
data draws the same picture every time; the drawing itself is :mod:`directory.formats.network`.
Only papers and people ``viewer`` may see are counted (:func:`~directory.services.access
.listed_publications`, :func:`~directory.services.access.listed_people`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import networkx
from sqlalchemy import ColumnElement, and_, func, select
from sqlalchemy.orm import Session, aliased

from directory import models as m
from directory.services.access import listed_people, listed_publications
from directory.services.identity import Viewer
from directory.services.reports import counting
from directory.services.reports.periods import Period

#: The layout's seed: the same network is drawn the same way every time.
SEED = 2026
#: Colours the drawing gives areas (the most common first); the rest share "other".
AREA_COLOURS = 8


@dataclass
class Node:
    id: int
    slug: str
    name: str
    papers: int
    #: The research area the node is coloured by (a top-level area), and its colour's number
    #: (None: no area, or one of the less common).
    area: str | None = None
    colour: int | None = None
    #: The layout's position, from -1 to 1 each way.
    x: float = 0.0
    y: float = 0.0


@dataclass
class Pair:
    first: Node
    second: Node
    papers: int


@dataclass
class Network:
    #: Every member with a joint paper (or the report's person), most papers first.
    nodes: list[Node] = field(default_factory=list)
    #: Every pair, most joint papers first.
    pairs: list[Pair] = field(default_factory=list)
    #: The nodes drawn (the most papers, up to the limit) and the pairs between them.
    drawn: list[Node] = field(default_factory=list)
    drawn_pairs: list[Pair] = field(default_factory=list)
    #: (area, colour number) of the legend.
    legend: list[tuple[str, int]] = field(default_factory=list)

    @property
    def left_out(self) -> int:
        return len(self.nodes) - len(self.drawn)


def _member_papers(viewer: Viewer, period: Period) -> Any:
    """(person_id, publication_id) of papers published in the period on the profile of a
    listed member, both visible to ``viewer``."""
    row, pub = m.ProfilePublication, m.Publication
    members = select(m.Person.id).where(listed_people(viewer)).correlate(None)
    return (
        select(row.person_id, row.publication_id)
        .join(pub, pub.id == row.publication_id)
        .where(
            row.hidden.is_(False),
            row.person_id.in_(members),
            counting.paper_group(period, pub) == "published",
            listed_publications(viewer, pub),
        )
        .subquery("member_papers")
    )


def _pairs(session: Session, papers: Any, only: ColumnElement | None) -> list[tuple[int, int, int]]:
    one, two = aliased(papers, name="pair_one"), aliased(papers, name="pair_two")
    stmt = (
        select(one.c.person_id, two.c.person_id, func.count())
        .join(
            two,
            and_(two.c.publication_id == one.c.publication_id, two.c.person_id > one.c.person_id),
        )  # fmt: skip
        .group_by(one.c.person_id, two.c.person_id)
    )
    if only is not None:
        stmt = stmt.where(one.c.publication_id.in_(only))
    return [tuple(row) for row in session.execute(stmt)]


def _nodes(session: Session, papers: Any, ids: set[int], only: Any) -> dict[int, Node]:
    if not ids:
        return {}
    person = m.Person
    count = (
        select(papers.c.person_id, func.count().label("papers"))
        .where(papers.c.person_id.in_(ids))
        .group_by(papers.c.person_id)
        .subquery()
    )
    stmt = (
        select(person.id, person.slug, person.full_name, func.coalesce(count.c.papers, 0))
        .outerjoin(count, count.c.person_id == person.id)
        .where(person.id.in_(ids))
    )
    return {row[0]: Node(*row) for row in session.execute(stmt)}


def _colour(session: Session, nodes: dict[int, Node]) -> list[tuple[str, int]]:
    """Each node's top-level research area (its first area by the taxonomy's order), and a
    colour for the most common :data:`AREA_COLOURS` of them."""
    if not nodes:
        return []
    areas = {a.id: a for a in session.scalars(select(m.ResearchArea))}

    def top(area_id: int) -> m.ResearchArea:
        area, seen = areas[area_id], set()
        while area.parent_id in areas and area.id not in seen:
            seen.add(area.id)
            area = areas[area.parent_id]
        return area

    rows = session.execute(
        select(m.person_areas.c.person_id, m.person_areas.c.area_id)
        .where(m.person_areas.c.person_id.in_(list(nodes)))
    )  # fmt: skip
    firsts: dict[int, m.ResearchArea] = {}
    for person_id, area_id in rows:
        area = top(area_id)
        known = firsts.get(person_id)
        if known is None or (area.position, area.name) < (known.position, known.name):
            firsts[person_id] = area
    counts = Counter(area.name for area in firsts.values())
    ranked = sorted(counts, key=lambda name: (-counts[name], name))[:AREA_COLOURS]
    colours = {name: i for i, name in enumerate(ranked)}
    for person_id, area in firsts.items():
        nodes[person_id].area = area.name
        nodes[person_id].colour = colours.get(area.name)
    return [(name, colours[name]) for name in ranked]


def _layout(nodes: list[Node], pairs: list[Pair]) -> None:
    """Positions from networkx's spring layout with :data:`SEED`, nodes and edges added in a
    fixed order (the layout depends on it)."""
    if not nodes:
        return
    graph = networkx.Graph()
    graph.add_nodes_from(sorted(node.id for node in nodes))
    edges = sorted((p.first.id, p.second.id, p.papers) for p in pairs)
    graph.add_weighted_edges_from(edges)
    if len(nodes) == 1:
        return
    positions = networkx.spring_layout(graph, seed=SEED, weight="weight", iterations=60)
    for node in nodes:
        x, y = positions[node.id]
        node.x, node.y = round(float(x), 4), round(float(y), 4)


def build_network(
    session: Session, viewer: Viewer, period: Period, limit: int, *, person: m.Person | None = None
) -> Network:
    """The co-authorship network of the period: the department's, or with ``person`` theirs
    (their co-authors and the joint papers among them on the person's papers)."""
    papers = _member_papers(viewer, period)
    only = None
    if person is not None:
        only = select(papers.c.publication_id).where(papers.c.person_id == person.id)
    found = _pairs(session, papers, only)
    ids = {a for a, _, _ in found} | {b for _, b, _ in found}
    if person is not None:
        ids.add(person.id)
    nodes = _nodes(session, papers, ids, only)
    network = Network()
    network.legend = _colour(session, nodes)
    network.nodes = sorted(nodes.values(), key=lambda n: (-n.papers, n.name.casefold(), n.id))
    network.pairs = sorted(
        (Pair(nodes[a], nodes[b], count) for a, b, count in found),
        key=lambda p: (-p.papers, p.first.name.casefold(), p.second.name.casefold()),
    )
    network.drawn = network.nodes[:limit]
    if person is not None and nodes[person.id] not in network.drawn:
        network.drawn = [nodes[person.id], *network.drawn[: limit - 1]]
    drawn = {node.id for node in network.drawn}
    network.drawn_pairs = [p for p in network.pairs
                           if p.first.id in drawn and p.second.id in drawn]  # fmt: skip
    _layout(network.drawn, network.drawn_pairs)
    return network


def person_network(session: Session, viewer: Viewer, person: m.Person, period: Period) -> Network:
    """``person``'s own network for their report (every co-author is drawn: a person has few)."""
    return build_network(session, viewer, period, limit=10_000, person=person)
