"""Name lists of a BibTeX entry (author, editor): split at ``and`` outside braces, each name
into its parts (given, von, family, Jr), co-first and corresponding-author markers read (in the
name itself or in al-folio's side fields)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from bibtexparser.middlewares.names import InvalidNameError, parse_single_name_into_parts

from directory.formats.bibtex.latex import latex_to_text

AND_RE = re.compile(r"\s+and\s+", re.I)
_AND_OR_BRACE_RE = re.compile(r"\s+and\s+|[{}]", re.I)
_COMMA_OR_BRACE_RE = re.compile(r"[,{}]")
# Co-first markers after (or inside) a name: Wei*, Wei$^*$, Wei$^{\dagger}$,
# Wei\textsuperscript{*}, Wei\dag, Wei†.
_MARK = r"(?:\*|\\ast\b|\\star\b|\\dagger\b|\\dag\b|\\ddagger\b|\\ddag\b|\\textdagger\b|[∗†‡])"
_COFIRST_RE = re.compile(
    r"\s*(?:\$\s*\^\s*(?:\{\s*" + _MARK + r"+\s*\}|" + _MARK + r")\s*\$"
    r"|\\textsuperscript\s*\{\s*" + _MARK + r"+\s*\}"
    r"|\\textdagger(?:\{\})?|\\dag(?:ger)?(?:\{\})?|\\ddag(?:ger)?(?:\{\})?|[*∗†‡]+)"
)
_CORRESPONDING_RE = re.compile(
    r"\s*(?:\(\s*corresponding(?:\s+author)?\s*\)|\\textsuperscript\s*\{\s*\\(?:Letter|Envelope)"
    r"\s*\}|\\(?:Letter|Envelope)\b(?:\{\})?|✉)",
    re.I,
)
_MARKER_HINT_RE = re.compile(r"[*∗†‡$✉(]|\\(?:text|dag|ddag|ast|star|Letter|Envelope)")


def _split_top_level(value: str, pattern: re.Pattern[str]) -> list[str]:
    """Split at separators outside braces (``{Simon and Schuster}`` stays one name)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for m in pattern.finditer(value):
        char = m.group(0)
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            parts.append(value[start : m.start()])
            start = m.end()
    parts.append(value[start:])
    return parts


def _balanced(parts: list[str]) -> bool:
    """Whether no part has an unclosed brace, i.e. no separator was inside braces."""
    return all(part.count("{") == part.count("}") for part in parts)


def _split_names(value: str) -> list[str]:
    value = value.strip()
    if not value:
        return []
    parts = AND_RE.split(value)
    # Braced groups rarely contain " and "; check cheaply before scanning brace by brace.
    if "{" not in value or _balanced(parts):
        return parts
    return _split_top_level(value, _AND_OR_BRACE_RE)


def _reorder_name(name: str) -> str:
    """``von Last, First`` / ``von Last, Jr, First`` -> ``First von Last [Jr]`` (raw LaTeX)."""
    if "," not in name:
        return name
    parts = name.split(",")
    if "{" in name and not _balanced(parts):
        parts = _split_top_level(name, _COMMA_OR_BRACE_RE)
    parts = [p.strip() for p in parts]
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        last, first = parts
        return f"{first} {last}" if first else last
    last, jr, first = parts[0], parts[1], ", ".join(parts[2:])
    return " ".join(p for p in (first, last, jr) if p)


def _name_key(name: str) -> str:
    """Comparison form of a display name (for matching ``corresponding = {...}``)."""
    return " ".join(name.casefold().replace(".", " ").split())


_SUFFIX_WORDS = frozenset(["jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "v"])
_SIMPLE_NAME_RE = re.compile(r"^[^{}\\,~]+$")


def _decoded_part(words: list[str]) -> str | None:
    text = latex_to_text(" ".join(words)) if words else ""
    return text or None


_PART_KEYS = ("name", "given", "particle", "family", "suffix")


def split_name(raw_name: str) -> dict[str, str | None]:
    """The parts of one BibTeX name; see :func:`_split_name` (cached: a file names the same
    co-authors many times)."""
    return dict(zip(_PART_KEYS, _split_name(raw_name.strip()), strict=True))


@lru_cache(maxsize=1 << 14)
def _split_name(raw_name: str) -> tuple[str | None, ...]:
    """The parts of one BibTeX name (LaTeX still encoded): ``given``, ``particle`` (von),
    ``family``, ``suffix`` (Jr), decoded, and the display ``name`` ("First von Last Jr").

    bibtexparser's splitting (BibTeX's rules, braces respected) with two corrections real
    files need: in ``Last, First`` the words before the comma are the family name, only its
    leading lower-case words a particle ("Vázques de Parga, Luis" is family "Vázques de
    Parga", as the writer meant); and ``King, Jr.`` after a full name ("Martin Luther King,
    Jr.") is a suffix, not a first name. A braced name ("{LaTeX3 Project Team}") is one family
    name: an organisation.
    """
    last, comma, first = raw_name.partition(",")
    if comma and last.strip().lower() in _SUFFIX_WORDS and "," not in first and first.strip():
        # DBLP writes "Barry W. Peddycord III" as "III, Barry W. Peddycord".
        return _with_suffix(_split_name(first.strip()), last.strip())
    tokens = raw_name.split()
    if _SIMPLE_NAME_RE.match(raw_name) and all(t[:1].isupper() for t in tokens):
        # The common case, as BibTeX would split it: no von, the last word is the family.
        return _decoded_name(tokens[:-1], [], tokens[-1:], [])
    if (
        comma
        and _SIMPLE_NAME_RE.match(last)
        and _SIMPLE_NAME_RE.match(first)
        and first.strip().lower() not in _SUFFIX_WORDS
        and all(t[:1].isupper() for t in raw_name.replace(",", " ").split())
    ):  # "Last, First" in capitalised words: no von, no Jr
        return _decoded_name(first.split(), [], last.split(), [])
    return _split_by_bibtex_rules(raw_name)


def _split_by_bibtex_rules(raw_name: str) -> tuple[str | None, ...]:
    """:func:`_split_name` of a name that needs BibTeX's rules (braces, von, Jr)."""
    try:
        parts = parse_single_name_into_parts(raw_name, strict=False)
    except InvalidNameError:
        return (latex_to_text(raw_name), None, None, None, None)
    given, particle, family, suffix = parts.first, parts.von, parts.last, parts.jr
    top_commas = _split_top_level(raw_name, _COMMA_OR_BRACE_RE)
    if (
        len(top_commas) == 2
        and not suffix
        and len(given) == 1
        and given[0].lower() in _SUFFIX_WORDS
        and family
    ):
        # "Martin Luther King, Jr.": reparse the part before the comma.
        before_comma = _split_name(top_commas[0].strip())
        return _with_suffix(before_comma, latex_to_text(given[0]))
    if (
        len(top_commas) == 3
        and len(given) == 1
        and given[0].lower() in _SUFFIX_WORDS
        and suffix
        and not any(word.lower() in _SUFFIX_WORDS for word in suffix)
    ):
        # "Fulton, James E., Jr." (JabRef) and "Moore, B, III" (Google Scholar) put the
        # suffix last; BibTeX's "Last, Jr, First" would make "Jr." the first name.
        given, suffix = suffix, given
    if len(top_commas) >= 2 and particle:
        # "Vázques de Parga, Luis": only leading lower-case words are a particle.
        lead = 0
        while lead < len(particle) and _starts_lower(particle[lead]):
            lead += 1
        family = particle[lead:] + family
        particle = particle[:lead]
    return _decoded_name(given, particle, family, suffix)


def _decoded_name(
    given: list[str], particle: list[str], family: list[str], suffix: list[str]
) -> tuple[str | None, ...]:
    """(display name, given, particle, family, suffix), the parts' words decoded."""
    shown = (
        _decoded_part(given), _decoded_part(particle), _decoded_part(family),
        _decoded_part(suffix),
    )  # fmt: skip
    return (" ".join(p for p in shown if p), *shown)


def _with_suffix(split: tuple[str | None, ...], suffix: str) -> tuple[str | None, ...]:
    """A split name (:func:`_split_name`) with ``suffix`` ("Jr.") added after it."""
    name, given, particle, family, _ = split
    return (f"{name} {suffix}", given, particle, family, suffix)


def _starts_lower(word: str) -> bool:
    text = latex_to_text(word) if ("{" in word or "\\" in word) else word
    first = next((c for c in text if c.isalpha()), "")
    return first.islower()


def _parse_names(raw: str, role: str, warnings: list[str]) -> tuple[list[dict[str, Any]], bool]:
    """The names of one name field, and whether the list ends in "and others"."""
    if not raw:
        return [], False
    names: list[dict[str, Any]] = []
    incomplete = False
    may_have_markers = _MARKER_HINT_RE.search(raw) is not None
    for raw_name in _split_names(raw):
        co_first = corresponding = False
        if may_have_markers:
            raw_name, hits = _CORRESPONDING_RE.subn("", raw_name)
            corresponding = hits > 0
            raw_name, hits = _COFIRST_RE.subn("", raw_name)
            co_first = hits > 0
        if raw_name.strip().lower() == "others":
            incomplete = True
            continue
        name, given, particle, family, suffix = _split_name(raw_name.strip())
        if not name:
            continue
        names.append(
            {"name": name, "given": given, "particle": particle, "family": family,
             "suffix": suffix, "role": role, "person": None, "co_first": co_first,
             "corresponding": corresponding}
        )  # fmt: skip
    return names, incomplete


def parse_authors(fields: dict[str, str], warnings: list[str]) -> tuple[list[dict[str, Any]], bool]:
    """Authors, then editors (role "editor"), and whether either list ends in "and others"."""
    authors, incomplete = _parse_names(fields.get("author") or "", "author", warnings)
    editors, editors_incomplete = _parse_names(fields.get("editor") or "", "editor", warnings)
    if editors_incomplete and not authors:
        incomplete = True
    people = authors + editors
    authors = people  # the side fields below count positions over authors first

    # al-folio style side fields: indices (1-based) or names.
    co_first_field = fields.get("co_first") or fields.get("equal_contribution")
    if co_first_field:
        for index in _indices(co_first_field, len(authors), "co_first", warnings):
            authors[index]["co_first"] = True
    corresponding_field = fields.get("corresponding")
    if corresponding_field:
        by_name = {_name_key(a["name"]): a for a in authors}
        for item in re.split(r"\s+and\s+|;", corresponding_field):
            item = item.strip()
            if not item:
                continue
            if item.isdigit():
                for index in _indices(item, len(authors), "corresponding", warnings):
                    authors[index]["corresponding"] = True
                continue
            author = by_name.get(_name_key(latex_to_text(_reorder_name(item))))
            if author is None:
                author = by_name.get(_name_key(latex_to_text(item)))
            if author is None:
                warnings.append(f"corresponding author '{item}' is not in the author list")
            else:
                author["corresponding"] = True
    return people, incomplete


def _indices(value: str, count: int, field_name: str, warnings: list[str]) -> list[int]:
    result = []
    for token in re.split(r"[\s,;]+", value.strip()):
        if not token:
            continue
        if token.isdigit() and 1 <= int(token) <= count:
            result.append(int(token) - 1)
        else:
            warnings.append(f"{field_name}: '{token}' is not an author position (1..{count})")
    return result
