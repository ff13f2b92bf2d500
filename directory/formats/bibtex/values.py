"""Field values as BibTeX computes them: braces, quotes, numbers, ``@string`` macros (the
month macros predefined), ``#`` concatenation and ``%`` comments; LaTeX is left encoded."""

from __future__ import annotations

import re

#: No field value (nor @string macro) is longer than this once macros are expanded, so that
#: macros doubling each other (``@string{s1 = s0 # s0}`` ...) cannot fill the memory.
MAX_VALUE_CHARS = 100_000

# BibTeX predefines the month macros; their values are what the classic styles print.
_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
MONTH_MACROS = tuple(name[:3].lower() for name in _MONTH_NAMES)
_PREDEFINED_MACROS = dict(zip(MONTH_MACROS, _MONTH_NAMES, strict=True))
MONTH_BY_PREFIX = {name[:3].lower(): i for i, name in enumerate(_MONTH_NAMES, start=1)}

_BRACE_RE = re.compile(r"(?<!\\)[{}]")
_QUOTE_OR_BRACE_RE = re.compile(r'(?<!\\)[{}"]')


def closing_brace(raw: str, start: int) -> int:
    """Index of the ``}`` matching the ``{`` at ``start``, or -1."""
    depth = 0
    for m in _BRACE_RE.finditer(raw, start):
        if m.group(0) == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.start()
    return -1


def _closing_quote(raw: str, start: int) -> int:
    """Index of the ``"`` closing the string opened at ``start`` (quotes in braces don't)."""
    depth = 0
    for m in _QUOTE_OR_BRACE_RE.finditer(raw, start + 1):
        char = m.group(0)
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif depth == 0:
            return m.start()
    return -1


class Evaluator:
    """Turns raw field values into strings, resolving ``@string`` macros as it goes."""

    __slots__ = ("macros", "too_long", "undefined")

    def __init__(self) -> None:
        # Macro names are case-insensitive in BibTeX.
        self.macros: dict[str, str] = dict(_PREDEFINED_MACROS)
        self.undefined: list[str] = []
        #: Whether the last value evaluated was cut at MAX_VALUE_CHARS.
        self.too_long = False

    def _atom(self, piece: str) -> str:
        if not piece:
            return ""
        if piece.isdigit():
            return piece
        value = self.macros.get(piece.lower())
        if value is None:
            self.undefined.append(piece)
            return piece
        return value

    def evaluate(self, raw: str) -> str:
        """The value of one field as BibTeX would compute it (LaTeX still undecoded).

        A value longer than MAX_VALUE_CHARS is cut one character past it and ``too_long``
        set, so that a caller can refuse it and nothing grows further from it."""
        self.too_long = False
        if not raw:
            return ""
        if len(raw) > MAX_VALUE_CHARS:
            self.too_long = True
            return raw[: MAX_VALUE_CHARS + 1]
        first = raw[0]
        # Fast paths: a single braced or quoted value, or a bare number / macro.
        if "#" not in raw and "%" not in raw:
            # Without "#", a value that starts and ends with a delimiter is enclosed by it:
            # the splitter only ends a value at balanced braces, so "{a} {b}" (invalid
            # BibTeX anyway) is the only case this misreads, and it does so harmlessly.
            if (first == "{" and raw[-1] == "}") or (first == '"' and raw[-1] == '"'):
                return raw[1:-1]
            if first not in '{"':
                value = self._atom(raw.strip())
                self.too_long = len(value) > MAX_VALUE_CHARS
                return value
        return self._evaluate_concatenation(raw)

    def _evaluate_concatenation(self, raw: str) -> str:
        parts: list[str] = []
        total = 0  # characters in parts, checked as each is added
        i, n = 0, len(raw)
        while i < n:
            char = raw[i]
            if char.isspace() or char == "#":
                i += 1
                continue
            if char == "%":
                # Outside braces and quotes a % starts a comment running to the end of line.
                end = raw.find("\n", i)
                i = n if end < 0 else end + 1
                continue
            if char == "{":
                end = closing_brace(raw, i)
                if end < 0:
                    return raw  # unbalanced: keep the text rather than guess
                part = raw[i + 1 : end]
                i = end + 1
            elif char == '"':
                end = _closing_quote(raw, i)
                if end < 0:
                    return raw
                part = raw[i + 1 : end]
                i = end + 1
            else:
                j = i
                while j < n and not raw[j].isspace() and raw[j] not in '#%{"':
                    j += 1
                part = self._atom(raw[i:j])
                i = j
            parts.append(part)
            total += len(part)
            if total > MAX_VALUE_CHARS:
                self.too_long = True
                return "".join(parts)[: MAX_VALUE_CHARS + 1]
        return "".join(parts)
