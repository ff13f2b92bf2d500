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
