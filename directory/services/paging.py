"""Where one page of a longer list starts and ends, for every paginated list."""

from __future__ import annotations

import math
from dataclasses import dataclass


class PageSpan:
    """The 1-based positions of a page's first and last item, from its ``number``, ``size``
    and the list's ``total`` (attributes of the class it is mixed into)."""

    number: int
    size: int
    total: int

    @property
    def first_index(self) -> int:
        return (self.number - 1) * self.size + 1 if self.total else 0

    @property
    def last_index(self) -> int:
        return min(self.total, self.number * self.size)


@dataclass
class Page[T](PageSpan):
    """One page of a longer list."""

    items: list[T]
    number: int
    size: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / self.size))


def page_of[T](items: list[T], number: int, size: int) -> Page[T]:
    """The page ``number`` of ``items`` (the last one if past it)."""
    number = min(number, max(1, math.ceil(len(items) / size)))
    start = (number - 1) * size
    return Page(items[start : start + size], number, size, len(items))
