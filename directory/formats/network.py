"""A network drawn as SVG geometry for a template: nodes at laid-out positions (from -1 to 1
each way) scaled into a drawing, sized by a count, and the edges between them, thicker for
more. Pure: plain numbers in, plain numbers out (no styles: the template uses classes)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Dot:
    key: int
    label: str
    x: float
    y: float
    r: float
    colour: int | None
    #: Whether the label is drawn beside the dot (the largest few; the table names them all).
    labelled: bool


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float


@dataclass(frozen=True)
class Drawing:
    width: int
    height: int
    dots: list[Dot]
    lines: list[Line]

    def __bool__(self) -> bool:
        return bool(self.dots)


def _filling(
    nodes: Sequence[tuple[int, str, float, float, int, int | None]],
) -> list[tuple[int, str, float, float, int, int | None]]:
    """The positions stretched to fill -1 to 1 each way (a layout seldom reaches its edges),
    the proportions kept."""
    if len(nodes) < 2:
        return [(k, label, 0.0, 0.0, count, colour) for k, label, _x, _y, count, colour in nodes]
    xs, ys = [n[2] for n in nodes], [n[3] for n in nodes]
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    half = max(max(xs) - min(xs), max(ys) - min(ys)) / 2 or 1.0
    return [(k, label, (x - cx) / half, (y - cy) / half, count, colour)
            for k, label, x, y, count, colour in nodes]  # fmt: skip


def draw_network(
    nodes: Sequence[tuple[int, str, float, float, int, int | None]],
    edges: Sequence[tuple[int, int, int]],
    *,
    size: int = 640,
    labels: int = 12,
) -> Drawing:
    """The drawing of ``nodes`` (key, label, x, y, count, colour) and ``edges`` (key, key,
    count): a square of ``size`` units; a dot's area grows with its count; the ``labels``
    nodes of the largest counts are labelled."""
    margin, smallest, largest = 48.0, 4.0, 18.0
    nodes = _filling(nodes)
    peak = max((count for *_, count, _ in nodes), default=0) or 1
    span = (size - 2 * margin) / 2
    ranked = sorted(nodes, key=lambda n: (-n[4], n[1]))
    named = {n[0] for n in ranked[:labels]}
    dots, where = [], {}
    for key, label, x, y, count, colour in nodes:
        r = smallest + (largest - smallest) * math.sqrt(max(count, 0) / peak)
        cx, cy = round(margin + span * (x + 1), 1), round(margin + span * (1 - y), 1)
        where[key] = (cx, cy)
        dots.append(Dot(key, label, cx, cy, round(r, 1), colour, key in named))
    strongest = max((count for *_, count in edges), default=0) or 1
    lines = []
    for one, two, count in edges:
        if one in where and two in where:
            width = round(1 + 4 * (count / strongest), 1)
            lines.append(Line(*where[one], *where[two], width))
    return Drawing(size, size, dots, lines)
