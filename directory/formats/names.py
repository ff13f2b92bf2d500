"""Names and the folded forms of text: slugs, sort keys, and the keys names are matched by.

Text is folded in three ways, each for its own purpose, and only here:

* :func:`fold_for_matching` (publications: titles, venues and printed names compared): lower
  case, accents and punctuation dropped, Latin ligatures spelt out ("Jörg  Müller-Lüdenscheidt"
  → "jorg muller ludenscheidt");
* :func:`fold_for_search` (the search index's tokens): case and the accents of Latin letters
  folded, everything else kept (Japanese voicing marks change the word; punctuation is left
  to the tokeniser);
* :func:`fold_for_sorting` (the stored name orders): case and accents folded, commas dropped,
  other punctuation kept, so that the stored keys stay what they have always been.

Two kinds of *name keys*: :func:`name_keys` gives the stored sort orders of a person (the
``name_key`` columns), :func:`name_match_keys` the keys a printed author name is linked to a
person by (exact, short, initials).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from pypinyin import Style, lazy_pinyin
from slugify import slugify

from directory import i18n

#: Words after a surname that are no part of it ("Jr.", "III"), lower case without the dot.
NAME_SUFFIXES = frozenset(["jr", "sr", "ii", "iii", "iv"])

# Latin letters NFKD does not decompose, spelt in ASCII (for fold_for_matching).
_LATIN_LETTERS = str.maketrans(
    {"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l"}
    | {"Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "þ": "th", "ı": "i", "ȷ": "j"}
)
#: A word of :func:`fold_for_matching`: letters and digits, without the underscore.
_WORD_RE = re.compile(r"[^\W_]+")


@lru_cache(maxsize=1 << 16)
def fold_for_matching(text: str) -> str:
    """Lower case without accents or punctuation, words separated by one space.

    ``fold_for_matching("Jörg  Müller-Lüdenscheidt")`` is ``"jorg muller ludenscheidt"``.
    Letters of other scripts are kept ("魏星达"). Cached: an import folds the same co-author
    names many times.
    """
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text.translate(_LATIN_LETTERS))
        text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(_WORD_RE.findall(text.casefold()))


def fold_for_search(text: str) -> str:
    """Case-fold and drop accents from Latin letters ("Müller" → "muller"); other scripts keep
    their marks (Japanese voicing marks and the like change the word)."""
    if text.isascii():  # what :func:`_fold_unicode` leaves of ASCII (most words)
        return text.lower()
    return _fold_unicode(text)


def _fold_unicode(text: str) -> str:
    out = []
    for char in unicodedata.normalize("NFKC", text).casefold():
        code = ord(char)
        if code < 0x0370 or 0x1E00 <= code <= 0x1EFF:
            out.extend(
                c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)
            )
        else:
            out.append(char)
    return unicodedata.normalize("NFC", "".join(out))


@lru_cache(maxsize=1 << 16)
def name_parts(name: str) -> tuple[tuple[str, ...], str]:
    """(given-name tokens, surname) of a printed name, folded. ``"Wei, Xingda"`` and
    ``"Xingda Wei"`` both give ``(["xingda"], "wei")``; a name in one token (``"魏星达"``)
    gives ``([], "魏星达")``."""
    name = name.strip()
    if "," in name:
        last, _, first = name.partition(",")
        # "Smith, Jr., John": the middle part is a suffix.
        if "," in first:
            _, _, first = first.partition(",")
        tokens = fold_for_matching(first).split() + fold_for_matching(last).split()
        surname_tokens = len(fold_for_matching(last).split())
    else:
        tokens = fold_for_matching(name).split()
        surname_tokens = 1
    while len(tokens) > 1 and tokens[-1] in NAME_SUFFIXES:
        tokens.pop()
    if not tokens:
        return (), ""
    surname_tokens = min(surname_tokens, len(tokens))
    return tuple(tokens[:-surname_tokens]), " ".join(tokens[-surname_tokens:])


def surname(name: str) -> str:
    """The folded surname of a printed name (the whole name for one-token names)."""
    return name_parts(name)[1]


def is_initials(given: tuple[str, ...]) -> bool:
    """Whether folded given names (of :func:`name_parts`) are initials only ("x", "a b")."""
    return bool(given) and all(len(token) == 1 for token in given)


@lru_cache(maxsize=1 << 16)
def name_match_keys(name: str) -> dict[str, str]:
    """Keys a printed name is matched to a person by, by level (see
    :class:`directory.services.publications.AuthorIndex`).

    ``exact``: every letter in order, no spaces ("xingdawei": also "Xing-Da Wei" and
    "Wei, Xingda"); ``short``: first given name and surname ("john smith" for "John A.
    Smith"); ``initials``: given-name initials and surname ("x wei").
    """
    given, last = name_parts(name)
    if not last:
        return {}
    keys = {"exact": "".join(given) + last}
    if given and not is_initials(given):
        keys["short"] = f"{given[0]} {last}"
    if given:
        keys["initials"] = "".join(token[0] for token in given) + " " + last
    return keys


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


def fold_for_sorting(text: str) -> str:
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
    return fold_for_sorting(plain), toned


def name_sort_key(sort_name: str, native_name: str | None, locale: str) -> tuple[str, ...]:
    """How a person sorts in ``locale``: in Chinese, by the pinyin of a name written in Han
    characters (then by tone, then by the characters), others by their Latin sort name; in
    every other locale by the Latin sort name ("Family, Given"), accents and case folded."""
    if locale.split("_")[0] == "zh" and native_name and any(map(_is_han, native_name)):
        plain, toned = _pinyin(native_name.strip())
        return (plain, toned, native_name)
    return (fold_for_sorting(sort_name), "", sort_name)


def person_sort_key(person: Any, locale: str | None = None) -> tuple[str, ...]:
    """:func:`name_sort_key` of a Person in ``locale`` (default: the current one). The people
    listing, its A–Z index and every list of names sorted for reading use it."""
    return name_sort_key(
        person.sort_name or person.full_name, person.native_name, locale or i18n.current_locale()
    )


#: The stored name orders (columns of ``directory_people``): ``name_key`` for every locale but
#: Chinese, ``name_key_zh`` for Chinese (pinyin), each the :func:`stored_sort_key` of the
#: locale's :func:`name_sort_key`. Kept by one gate (``write_gates.fill_name_keys``).
NAME_KEY_LOCALES = {"name_key": "en", "name_key_zh": "zh"}

# A sort key's parts are joined by \x01; the characters \x00-\x02 (which no stored text holds,
# formats.text, but a key must not depend on that) become \x02 and a second character, so that
# the joined string compares, character by character, as the tuple does.
_KEY_SEPARATOR = "\x01"
_KEY_ESCAPES = str.maketrans({"\x00": "\x02\x02", "\x01": "\x02\x03", "\x02": "\x02\x04"})


def stored_sort_key(key: tuple[str, ...]) -> str:
    """``key`` as one string whose code-point (binary) order is the tuple's order: what a
    ``COLLATE "C"`` column on PostgreSQL and a plain one on SQLite sort by."""
    return _KEY_SEPARATOR.join(part.translate(_KEY_ESCAPES) for part in key)


def name_key_column(locale: str) -> str:
    """The column of the stored name order of ``locale`` (:data:`NAME_KEY_LOCALES`)."""
    return "name_key_zh" if locale.split("_")[0] == "zh" else "name_key"


def name_keys(sort_name: str | None, full_name: str, native_name: str | None) -> dict[str, str]:
    """The stored name orders of a person (:data:`NAME_KEY_LOCALES`), by column."""
    name = sort_name or full_name
    return {
        column: stored_sort_key(name_sort_key(name, native_name, locale))
        for column, locale in NAME_KEY_LOCALES.items()
    }


#: The stored forms of a student's typed name on an advising relation (a student without a
#: profile), by column: ``student_fold``, the name case-folded (two relations whose folds are
#: equal are one alumnus), and ``student_key``, its order (:func:`name_sort_key` without a
#: native name, the same in every locale). Kept by ``write_gates.fill_name_keys``.
TYPED_NAME_COLUMNS = ("student_fold", "student_key")


def typed_name_keys(student_name: str | None) -> dict[str, str | None]:
    """The stored forms of a typed student name (:data:`TYPED_NAME_COLUMNS`); None for none."""
    if student_name is None:
        return dict.fromkeys(TYPED_NAME_COLUMNS)
    return {
        "student_fold": student_name.casefold(),
        "student_key": stored_sort_key(name_sort_key(student_name, None, "en")),
    }


def stored_initial(first_character: str) -> str:
    """The A–Z index letter of a stored key starting with ``first_character``: the same as
    :func:`initial` of the key it stores."""
    return initial((first_character,))


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
