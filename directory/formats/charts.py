"""Small charts drawn on the server as SVG geometry for a template (no JavaScript, no inline
styles: the template uses presentation attributes and classes from directory.css)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass
class Bar:
    label: str
    value: int
    x: float
    y: float
    width: float
    height: float
    selected: bool
    show_label: bool
    #: A label that may be dropped where space is short (every other shown label).
    minor_label: bool

    @property
    def center(self) -> float:
        return round(self.x + self.width / 2, 1)


@dataclass
class BarChart:
    width: int
    height: int
    baseline: float
    label_y: float
    bars: list[Bar]

    @property
    def total(self) -> int:
        return sum(bar.value for bar in self.bars)

    def __bool__(self) -> bool:
        return bool(self.bars)


def bar_chart(
    counts: list[tuple[int, int]],
    selected: int | None = None,
    *,
    slot: float = 40.0,
    height: int = 180,
    max_labels: int = 16,
) -> BarChart:
    """Bars for ``(key, count)`` pairs in order, ``slot`` units apart (the drawing is as wide as
    its bars need, so a few bars stay narrow); a value label sits above every non-empty bar
    and every n-th key label below, so that labels never overlap."""
    top, bottom, side = 18.0, 22.0, 4.0
    plot_height = height - top - bottom
    width = int(max(160, 2 * side + slot * len(counts)))
    peak = max((count for _, count in counts), default=0) or 1
    every = max(1, math.ceil(len(counts) / max_labels))
    bars = []
    for i, (key, count) in enumerate(counts):
        bar_height = round(plot_height * count / peak, 1)
        bars.append(
            Bar(
                label=str(key),
                value=count,
                x=round(side + i * slot + slot * 0.15, 1),
                y=round(top + plot_height - bar_height, 1),
                width=round(slot * 0.7, 1),
                height=bar_height,
                selected=selected is not None and key == selected,
                show_label=(len(counts) - 1 - i) % every == 0,
                minor_label=(len(counts) - 1 - i) % (2 * every) != 0,
            )
        )
    return BarChart(width, height, top + plot_height, height - 6.0, bars)


@dataclass
class Segment:
    """One series' part of a stacked bar."""

    series: str
    value: int
    y: float
    height: float


@dataclass
class StackedBar:
    label: str
    value: int
    x: float
    y: float
    width: float
    segments: list[Segment]
    show_label: bool
    minor_label: bool

    @property
    def center(self) -> float:
        return round(self.x + self.width / 2, 1)


@dataclass
class StackedChart:
    width: int
    height: int
    baseline: float
    label_y: float
    bars: list[StackedBar]
    #: The series drawn, bottom to top, in the order given.
    series: list[str]

    @property
    def total(self) -> int:
        return sum(bar.value for bar in self.bars)

    def __bool__(self) -> bool:
        return any(bar.value for bar in self.bars)


def stacked_bar_chart(
    counts: list[tuple[int, dict[str, int]]],
    series: tuple[str, ...],
    *,
    slot: float = 40.0,
    height: int = 200,
    max_labels: int = 16,
) -> StackedChart:
    """Bars for ``(key, {series: count})`` pairs in order, each split into its ``series`` (in
    that order, bottom up; a series absent from ``series`` is not drawn), laid out as
    :func:`bar_chart` lays out its bars: a total above every non-empty bar and every n-th key
    below."""
    top, bottom, side = 18.0, 22.0, 4.0
    plot_height = height - top - bottom
    width = int(max(160, 2 * side + slot * len(counts)))
    totals = [sum(parts.get(s, 0) for s in series) for _, parts in counts]
    peak = max(totals, default=0) or 1
    every = max(1, math.ceil(len(counts) / max_labels))
    bars = []
    for i, ((key, parts), total) in enumerate(zip(counts, totals, strict=True)):
        base = top + plot_height
        segments = []
        for name in series:
            value = parts.get(name, 0)
            if not value:
                continue
            segment_height = round(plot_height * value / peak, 1)
            base = round(base - segment_height, 1)
            segments.append(Segment(name, value, base, segment_height))
        bars.append(
            StackedBar(
                label=str(key),
                value=total,
                x=round(side + i * slot + slot * 0.15, 1),
                y=round(top + plot_height - plot_height * total / peak, 1),
                width=round(slot * 0.7, 1),
                segments=segments,
                show_label=(len(counts) - 1 - i) % every == 0,
                # Every other label gives way on a narrow screen, when there are many.
                minor_label=len(counts) > max_labels // 2
                and (len(counts) - 1 - i) % (2 * every) != 0,
            )
        )
    used = [name for name in series if any(parts.get(name) for _, parts in counts)]
    return StackedChart(width, height, top + plot_height, height - 6.0, bars, used)
