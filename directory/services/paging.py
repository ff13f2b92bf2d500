"""Where one page of a longer list starts and ends, for every paginated list."""

from __future__ import annotations


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
