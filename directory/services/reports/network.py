"""Who works with whom: the department's members as nodes, sized by their papers published
in the period, coloured by their research area, and joined by the papers they wrote together
(two members are a pair when the paper is listed on both their profiles).

The layout is networkx's spring layout (Fruchterman–Reingold) with a fixed seed, so the same
data draws the same picture every time; the drawing itself is :mod:`directory.formats.network`.
Only papers and people ``viewer`` may see are counted (a paper listed on a listed member's
profile, :func:`~directory.services.access.listed_people`, that the viewer may see,
:func:`~directory.services.access.publication_clause`)."""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Container
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations, groupby
from operator import itemgetter

import networkx
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.services.access import listed_people, publication_clause
from directory.services.identity import Viewer
from directory.services.reports import counting
from directory.services.reports.periods import Period

#: The layout's seed: the same network is drawn the same way every time.
SEED = 2026
#: The strongest pairs a drawing draws (more make a tangle, and the layout's cost grows).
PAIRS_DRAWN = 400
#: The co-authors a person's own network draws.
PERSON_NODES = 40
#: Colours the drawing gives areas (the most common first); the rest share "other".
AREA_COLOURS = 8
#: Layouts kept, each under the graph it lays out (its nodes and weighted edges, which alone
#: decide the positions): a write that leaves the drawn graph as it was (most writes touch no
#: joint paper of the period) counts the network anew but does not lay it out again.
LAYOUTS_KEPT = 16
_LAYOUTS: OrderedDict[tuple, dict[int, tuple[float, float]]] = OrderedDict()
_LAYOUTS_LOCK = threading.Lock()


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
    #: (member id, member id) → joint papers, for every pair (:attr:`pairs` in order).
    joint: dict[tuple[int, int], int] = field(default_factory=dict)
    #: The nodes drawn (the most papers, up to the limit) and the pairs between them.
    drawn: list[Node] = field(default_factory=list)
    drawn_pairs: list[Pair] = field(default_factory=list)
    #: (area, colour number) of the legend.
    legend: list[tuple[str, int]] = field(default_factory=list)

    @cached_property
    def pairs(self) -> list[Pair]:
        """Every pair, most joint papers first (made when asked: the department's page shows
        only the pairs drawn, of some 16,000)."""
        by_id = {node.id: node for node in self.nodes}
        return [Pair(by_id[a], by_id[b], n) for (a, b), n in _strongest(self.joint, by_id)]

    @property
    def left_out(self) -> int:
        return len(self.nodes) - len(self.drawn)

    @property
    def pairs_left_out(self) -> int:
        return len(self.joint) - len(self.drawn_pairs)


def _strongest(
    joint: dict[tuple[int, int], int], nodes: dict[int, Node], among: set[int] | None = None
) -> list[tuple[tuple[int, int], int]]:
    """The pairs of ``joint`` (only those between members of ``among``), most joint papers
    first, then by the members' names (and ids, for namesakes)."""
    if among is not None:
        joint = {(a, b): n for (a, b), n in joint.items() if a in among and b in among}
    folded = {i: nodes[i].name.casefold() for pair in joint for i in pair}
    return sorted(joint.items(), key=lambda pc: (-pc[1], folded[pc[0][0]], folded[pc[0][1]], pc[0]))


def _listed_members(session: Session, viewer: Viewer, named: bool) -> dict[int, tuple]:
    """Every listed member ``viewer`` may see: id → (slug, name), or only the ids (→ ())
    unless ``named`` (a person's network names the few it draws apart)."""
    person = m.Person
    if not named:
        return dict.fromkeys(session.scalars(select(person.id).where(listed_people(viewer))), ())
    stmt = select(person.id, person.slug, person.full_name).where(listed_people(viewer))
    return {person_id: (slug, name) for person_id, slug, name in session.execute(stmt)}


def _member_papers(
    session: Session, viewer: Viewer, period: Period, person: m.Person | None, listed: Container
) -> list[tuple[int, int]]:
    """(paper, listed member) for each listing of the papers published in the period (only
    ``person``'s papers, with ``person``), all visible to ``viewer``, in order of paper and
    then member: the pairs and the members' papers are counted from it.

    The papers of the period are found by the index on the year (``person``'s by the index
    on the person), their listing rows by the index on the paper (which gives them in this
    order), and the rows on a listed member's profile kept in Python from the set of members
    read apart: with ``person_id IN (members)`` in the statement SQLite reads every member's
    whole list, and looks each of its papers up, for a few thousand papers of the period."""
    row, pub = m.ProfilePublication, m.Publication
    papers = select(pub.id).where(
        pub.year.between(period.first_year, period.last_year),
        counting.paper_group(period, pub) == "published",
        publication_clause(viewer, pub),
    )
    if person is not None:
        own = papers.join(row, row.publication_id == pub.id)
        own = own.where(row.person_id == person.id, row.hidden.is_(False))
        papers = list(session.scalars(own))
    # Listed, not hidden, on a listed member's profile: on a visible profile already, so the
    # paper is listed (access.listed_publications) when the viewer may see it.
    stmt = (
        select(row.publication_id, row.person_id)
        .where(row.publication_id.in_(papers), row.hidden.is_(False))
        .order_by(row.publication_id, row.person_id)
    )
    # Plain rows of the session's connection: some 18,000 of them, which the ORM's result
    # would wrap for nothing (no entity is loaded).
    rows = session.connection().execute(stmt)
    return [(paper, who) for paper, who in rows if who in listed]


def _pairs(rows: list[tuple[int, int]]) -> Counter:
    """(member, member) → their joint papers, from :func:`_member_papers`' rows (a paper's
    members in order of id: each pair is (smaller id, larger id))."""
    joint: list[tuple[int, int]] = []
    for _paper, listing in groupby(rows, key=itemgetter(0)):
        people = [who for _, who in listing]
        if len(people) > 1:  # most papers have one member: no pair
            joint.extend(combinations(people, 2))
    return Counter(joint)


def _nodes(
    session: Session, viewer: Viewer, period: Period, ids: set[int], *, counted: bool = True
) -> dict[int, Node]:
    """The nodes of ``ids``, each with their papers published in the period read (unless
    not ``counted``: a co-author not drawn)."""
    if not ids:
        return {}
    person = m.Person
    rows = session.execute(select(person.id, person.slug, person.full_name)
                           .where(person.id.in_(ids)))  # fmt: skip
    nodes = {row[0]: Node(row[0], row[1], row[2], 0) for row in rows}
    if not counted:
        return nodes
    listing, pub = m.ProfilePublication, m.Publication
    stmt = (
        select(listing.person_id, func.count())
        .join(pub, pub.id == listing.publication_id)
        .where(listing.person_id.in_(ids), listing.hidden.is_(False),
               pub.year.between(period.first_year, period.last_year),
               counting.paper_group(period, pub) == "published",
               publication_clause(viewer, pub))
        .group_by(listing.person_id)
    )  # fmt: skip
    for person_id, count in session.execute(stmt):
        nodes[person_id].papers = count
    return nodes


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


def _positions(
    node_ids: tuple[int, ...], edges: tuple[tuple[int, int, int], ...]
) -> dict[int, tuple[float, float]]:
    """The spring layout of the graph of ``node_ids`` and weighted ``edges``, laid out once
    for each graph kept (:data:`LAYOUTS_KEPT`)."""
    key = (node_ids, edges)
    with _LAYOUTS_LOCK:
        if key in _LAYOUTS:
            _LAYOUTS.move_to_end(key)
            return _LAYOUTS[key]
    graph = networkx.Graph()
    graph.add_nodes_from(node_ids)
    graph.add_weighted_edges_from(edges)
    positions = networkx.spring_layout(graph, seed=SEED, weight="weight", iterations=60)
    placed = {i: (round(float(x), 4), round(float(y), 4)) for i, (x, y) in positions.items()}
    with _LAYOUTS_LOCK:
        _LAYOUTS[key] = placed
        while len(_LAYOUTS) > LAYOUTS_KEPT:
            _LAYOUTS.popitem(last=False)
    return placed


def forget_layouts() -> None:
    """Drop every kept layout (the benchmark's "counting anew, laid out anew")."""
    with _LAYOUTS_LOCK:
        _LAYOUTS.clear()


def _layout(nodes: list[Node], pairs: list[Pair]) -> None:
    """Positions from networkx's spring layout with :data:`SEED`, nodes and edges added in a
    fixed order (the layout depends on it)."""
    if len(nodes) < 2:
        return
    node_ids = tuple(sorted(node.id for node in nodes))
    edges = tuple(sorted((p.first.id, p.second.id, p.papers) for p in pairs))
    positions = _positions(node_ids, edges)
    for node in nodes:
        node.x, node.y = positions[node.id]


def build_network(
    session: Session, viewer: Viewer, period: Period, limit: int, *, person: m.Person | None = None
) -> Network:
    """The co-authorship network of the period: the department's, or with ``person`` theirs
    (their co-authors, and the joint papers among them on the person's papers). The ``limit``
    members with the most papers are drawn, with the :data:`PAIRS_DRAWN` strongest pairs
    between them (the pages' tables list the pairs drawn; ``pairs`` holds every one)."""
    listed = _listed_members(session, viewer, named=person is None)
    rows = _member_papers(session, viewer, period, person, listed)
    found = _pairs(rows)
    ids = {a for a, _ in found} | {b for _, b in found}
    if person is not None:
        ids.add(person.id)
    network = Network(joint=dict(found))
    if person is None:  # every node a listed member: named from the members read
        papers = Counter(who for _, who in rows)
        nodes = {i: Node(i, *listed[i], papers[i]) for i in ids}
        ranked = sorted(nodes.values(), key=lambda n: (-n.papers, n.name.casefold(), n.id))
        drawn_ids = {n.id for n in ranked[:limit]}
    else:  # the person, then their co-authors by joint papers; papers counted for the drawn
        joint = Counter({b if a == person.id else a: n for (a, b), n in found.items()
                         if person.id in (a, b)})  # fmt: skip
        drawn_ids = {person.id, *(i for i, _ in joint.most_common(limit - 1))}
        nodes = _nodes(session, viewer, period, drawn_ids)
        nodes |= _nodes(session, viewer, period, ids - drawn_ids, counted=False)
        ranked = sorted(nodes.values(), key=lambda n: (n.id != person.id, -joint[n.id],
                                                       n.name.casefold(), n.id))  # fmt: skip
    network.legend = _colour(session, {i: nodes[i] for i in drawn_ids})
    network.nodes = ranked
    network.drawn = [n for n in ranked if n.id in drawn_ids]
    strongest = _strongest(network.joint, nodes, drawn_ids)[:PAIRS_DRAWN]
    network.drawn_pairs = [Pair(nodes[a], nodes[b], count) for (a, b), count in strongest]
    _layout(network.drawn, network.drawn_pairs)
    return network


def person_network(session: Session, viewer: Viewer, person: m.Person, period: Period) -> Network:
    """``person``'s own network for their report: the :data:`PERSON_NODES` co-authors with
    the most papers drawn (the table lists every one)."""
    return build_network(session, viewer, period, PERSON_NODES, person=person)
