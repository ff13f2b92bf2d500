"""Citation keys: a conventional ASCII key for a publication (``wei2023mitosis``) and the
first free variant of a key already taken (``wei2023mitosisb``)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from directory.formats.names import NAME_SUFFIXES

# Latin letters NFKD does not decompose, in ASCII: names.fold_for_matching's table but for the
# dotless j, which keys have always dropped (so that exported keys stay what they were).
_ASCII_FOLD = str.maketrans(
    {"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l"}
    | {"Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "þ": "th", "ı": "i"}
)
_NON_ALNUM_RE = re.compile(r"[^a-z0-9]+")
_KEY_STOPWORDS = frozenset(
    "a an the on of in for to and with towards toward via from at by is are do does how what "  # noqa: SIM905
    "when why can we our".split()
)


def _ascii(text: str) -> str:
    """Lower-case ASCII letters and digits only: "Müller-Lüdenscheidt" → "mullerludenscheidt"."""
    if text.isascii():  # nothing to fold (most names and words): skip the Unicode round trip
        return _NON_ALNUM_RE.sub("", text.lower())
    text = unicodedata.normalize("NFKD", text.translate(_ASCII_FOLD))
    return _NON_ALNUM_RE.sub("", text.encode("ascii", "ignore").decode("ascii").lower())


def _surname(name: str) -> str:
    if "," in name:
        return name.split(",", 1)[0]
    tokens = name.split()
    while len(tokens) > 1 and tokens[-1].lower().rstrip(".") in NAME_SUFFIXES:
        tokens.pop()
    return tokens[-1] if tokens else ""


def make_citation_key(pub: dict[str, Any]) -> str:
    """A conventional ASCII key: first author's surname, year, first significant title word.

    ``{"authors": [{"name": "Xingda Wei"}], "year": 2023, "title": "Mitosis: ..."}``
    gives ``wei2023mitosis``. Missing parts are left out (``anon`` stands in for no author).
    """
    authors = pub.get("authors") or []
    surname = _ascii(_surname(authors[0].get("name", ""))) if authors else ""
    year = pub.get("year")
    word = ""
    for token in str(pub.get("title") or "").split():
        folded = _ascii(token)
        if folded and folded not in _KEY_STOPWORDS:
            word = folded
            break
    return f"{surname or 'anon'}{year if isinstance(year, int) else ''}{word}"


def free_key(base: str, used: set[str]) -> str:
    """``base``, or ``base`` with the first letter suffix not in ``used`` (which it joins)."""
    key = base
    if key.lower() in used:
        for suffix in _key_suffixes():
            key = base + suffix
            if key.lower() not in used:
                break
    used.add(key.lower())
    return key


def _key_suffixes() -> Iterator[str]:
    """b, c, ... z, then -27, -28, ...: what tells apart the papers that share a key."""
    yield from "bcdefghijklmnopqrstuvwxyz"
    n = 27
    while True:
        yield f"-{n}"
        n += 1
