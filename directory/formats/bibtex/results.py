"""What reading a publication list gives: the entries in the interchange shape and the
problems met on the way (the BibTeX parser and the ORCID reader both answer with these), and
the limits a file must keep to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: At most this many bytes are read from one file (a larger file is refused at once).
MAX_BIBTEX_BYTES = 5 * 1024 * 1024
#: At most this many entries are read from one file (a larger file is refused at once).
MAX_BIBTEX_ENTRIES = 5000


@dataclass
class ParsedEntry:
    """One imported entry: where it stood in the file and what it became."""

    key: str
    line: int
    raw: str
    data: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


@dataclass
class BibtexProblem:
    """Something in the file that is not imported: an ``"error"`` (a malformed entry, which
    the person may leave out explicitly) or ``"skipped"`` (a block that is not a publication,
    such as ``@preamble`` or ``@set``, reported so that nothing vanishes without a word)."""

    line: int | None
    key: str | None
    message: str
    severity: str = "error"


@dataclass
class ParseResult:
    """Everything ``parse_bibtex`` found; the caller decides whether problems are fatal."""

    entries: list[ParsedEntry]
    problems: list[BibtexProblem]


class BibtexTooLarge(ValueError):
    """The input exceeds the size limit; raised before any parsing work is done."""
