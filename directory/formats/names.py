"""Names: slugs (transliterated Unicode) and sort keys."""

from __future__ import annotations

from slugify import slugify


def make_slug(text: str, max_length: int = 100) -> str:
    """A URL slug; non-Latin names are transliterated ("魏星达" → "wei-xing-da")."""
    return slugify(text, max_length=max_length, word_boundary=True) or "person"


def sort_name(full_name: str) -> str:
    """'Xingda Wei' → 'Wei, Xingda' (a reasonable default the owner may override)."""
    parts = full_name.split()
    if len(parts) < 2:
        return full_name
    return f"{parts[-1]}, {' '.join(parts[:-1])}"


def unique_slug(wanted: str, taken: set[str]) -> str:
    """``wanted`` or ``wanted-2``, ``wanted-3``... whichever is not in ``taken``."""
    slug, n = wanted, 2
    while slug in taken:
        slug, n = f"{wanted}-{n}", n + 1
    return slug
