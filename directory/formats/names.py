"""Names: slugs (transliterated Unicode) and sort keys."""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Any

from pypinyin import Style, lazy_pinyin
from slugify import slugify

from directory import i18n


def make_slug(text: str, max_length: int = 100) -> str:
    """A URL slug; non-Latin names are transliterated ("魏星达" → "wei-xing-da")."""
    return slugify(text, max_length=max_length, word_boundary=True) or "person"


def sort_name(full_name: str) -> str:
    """'Xingda Wei' → 'Wei, Xingda' (a reasonable default the owner may override)."""
    parts = full_name.split()
    if len(parts) < 2:
        return full_name
    return f"{parts[-1]}, {' '.join(parts[:-1])}"


def _is_han(char: str) -> bool:
    return unicodedata.name(char, "").startswith("CJK UNIFIED IDEOGRAPH")


def _fold(text: str) -> str:
    """Case and accents folded, commas dropped: "Müller, Ana" → "muller ana"."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.replace(",", " ").casefold().split())


@lru_cache(maxsize=4096)
def _pinyin(native_name: str) -> tuple[str, str]:
    """(toneless, numbered-tone) pinyin of a Han name, family name first as written:
    "魏星达" → ("wei xing da", "wei4 xing1 da2")."""
    plain = " ".join(lazy_pinyin(native_name, style=Style.NORMAL))
    toned = " ".join(lazy_pinyin(native_name, style=Style.TONE3, neutral_tone_with_five=True))
    return _fold(plain), toned


def name_sort_key(sort_name: str, native_name: str | None, locale: str) -> tuple[str, ...]:
    """How a person sorts in ``locale``: in Chinese, by the pinyin of a name written in Han
    characters (then by tone, then by the characters), others by their Latin sort name; in
    every other locale by the Latin sort name ("Family, Given"), accents and case folded."""
    if locale.split("_")[0] == "zh" and native_name and any(map(_is_han, native_name)):
        plain, toned = _pinyin(native_name.strip())
        return (plain, toned, native_name)
    return (_fold(sort_name), "", sort_name)


def person_sort_key(person: Any, locale: str | None = None) -> tuple[str, ...]:
    """:func:`name_sort_key` of a Person in ``locale`` (default: the current one). The people
    listing, its A–Z index and every list of names sorted for reading use it."""
    return name_sort_key(
        person.sort_name or person.full_name, person.native_name, locale or i18n.current_locale()
    )


def initial(key: tuple[str, ...]) -> str:
    """The A–Z index letter of a sort key ("" when it starts with no Latin letter)."""
    first = key[0][:1].upper() if key and key[0] else ""
    return first if "A" <= first <= "Z" else ""


def unique_slug(wanted: str, taken: set[str]) -> str:
    """``wanted`` or ``wanted-2``, ``wanted-3``... whichever is not in ``taken``."""
    slug, n = wanted, 2
    while slug in taken:
        slug, n = f"{wanted}-{n}", n + 1
    return slug
