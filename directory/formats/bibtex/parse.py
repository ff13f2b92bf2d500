"""``parse_bibtex``: a ``.bib`` file into publications in the interchange shape plus the
problems met, every malformed or skipped block said with its line.

bibtexparser 2.x only *splits* the file here (or the quicker :mod:`.split` does, for a
well-formed file). Its middlewares are not used because, in 2.1.0:

* ``ResolveStringReferencesMiddleware`` only replaces whole-value references, so
  ``booktitle = conf # " 2024"`` stays unresolved;
* ``LatexDecodingMiddleware`` (pylatexenc) costs about 1.6 ms per title, which alone would
  make a few-thousand-entry import many times slower than the split itself;
* the name middlewares walk every name character by character.

Values are evaluated in :mod:`.values`, LaTeX decoded in :mod:`.latex`, names split in
:mod:`.authors`, ``crossref`` and ``@xdata`` inherited in :mod:`.crossref` and the fields
mapped in :mod:`.entries`.
"""

from __future__ import annotations

import re
from typing import Any

from bibtexparser import parse_string as _bibtexparser_split
from bibtexparser.exceptions import BlockAbortedException
from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ExplicitComment,
    ImplicitComment,
    ParsingFailedBlock,
    Preamble,
    String,
)

from directory.formats.batch import collection_paused
from directory.formats.bibtex.crossref import CONTAINER_TYPES, resolve_crossrefs
from directory.formats.bibtex.entries import build_publication
from directory.formats.bibtex.keys import free_key, make_citation_key
from directory.formats.bibtex.latex import UNKNOWN_COMMANDS
from directory.formats.bibtex.results import (
    MAX_BIBTEX_BYTES,
    MAX_BIBTEX_ENTRIES,
    BibtexProblem,
    BibtexTooLarge,
    ParsedEntry,
    ParseResult,
)
from directory.formats.bibtex.split import split_plain
from directory.formats.bibtex.values import MAX_VALUE_CHARS, Evaluator, closing_brace
from directory.i18n import gettext

_FAILED_KEY_RE = re.compile(r"@\s*(\w+)\s*[{(]\s*([^,\s{}()=\"#%]+)\s*,")


_AT_COMMENT_RE = re.compile(r"@comment\s*\{", re.I)


def _hide_percent_comments(text: str) -> str:
    """Blank out ``%`` comments that bibtexparser would misread.

    Whole-line comments and comments after the comma ending a field are read by the splitter
    as part of the next field key (or, for a commented-out entry, as a live entry). They are
    replaced by spaces so that lengths and line numbers stay put. The inline form needs a
    space after the comma, so that percent-encoded URLs (``?q=a,%20b``) and escaped ``\\%``
    are left alone. A loop over ``str.find`` beats a multi-line regex here: most files have
    few ``%`` but many lines.
    """
    pieces: list[str] = []
    last = 0
    pos = text.find("%")
    while pos >= 0:
        line_start = text.rfind("\n", 0, pos) + 1
        prefix = text[line_start:pos]
        before = prefix.rstrip(" \t")
        if not before or (before[-1] == "," and len(before) < len(prefix)):
            end = text.find("\n", pos)
            if end < 0:
                end = len(text)
            pieces.append(text[last:pos])
            pieces.append(" " * (end - pos))
            last = end
            pos = text.find("%", end)
        else:
            pos = text.find("%", pos + 1)
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def _disarm_comment_blocks(text: str) -> str:
    """Hide ``@`` inside ``@comment{...}`` blocks from the splitter.

    bibtexparser aborts a comment block at any line starting with ``@``, so a commented-out
    entry would come back to life. The ``@`` are replaced by spaces (lengths stay put).
    """
    pieces = []
    last = 0
    for m in _AT_COMMENT_RE.finditer(text):
        if m.start() < last:
            continue  # inside a comment block already handled
        end = closing_brace(text, m.end() - 1)
        if end < 0:
            break
        pieces.append(text[last : m.end()])
        pieces.append(text[m.end() : end].replace("@", " "))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _too_long_message(what: str, consequence: str) -> str:
    return (
        f"{what} is longer than {MAX_VALUE_CHARS:,} characters once its @string macros are "
        f"expanded (macros that repeat each other?); {consequence}."
    )


_ENTRY_START_RE = re.compile(r"@\s*(?!(?:string|comment|preamble)\b)\w+\s*[{(]", re.I)


def _size_message(size: int, limit: int) -> str:
    def human(n: int) -> str:
        if n >= 1024 * 1024:
            return f"{n / (1024 * 1024):.1f} MiB".replace(".0 ", " ")
        if n >= 1024:
            return f"{n / 1024:.1f} KiB".replace(".0 ", " ")
        return f"{n} bytes"

    return f"BibTeX input is {human(size)}; the limit is {human(limit)} ({limit} bytes)"


def _failure_message(block: ParsingFailedBlock) -> tuple[str | None, str]:
    raw = block.raw or ""
    m = _FAILED_KEY_RE.match(raw)
    key = m.group(2) if m else None
    kind = raw[1 : raw.find("{")].strip().lower() if raw.startswith("@") and "{" in raw else ""
    what = f"@{kind} entry" if kind else "entry"
    if key:
        what += f" '{key}'"
    error = block.error
    reason = error.abort_reason if isinstance(error, BlockAbortedException) else str(error)
    if "Unexpected block start" in reason:
        if "field-value closing `}`" in reason or 'closing `"`' in reason:
            detail = 'a field value is not closed (missing } or ") before the next entry starts'
        else:
            detail = "missing closing brace: the next entry starts before this one ends"
    elif "after entry key, but found `@" in reason:
        # A last field ending in a comma, then the next entry: the brace was never closed.
        detail = "missing closing brace: the next entry starts before this one ends"
    elif "end of file" in reason:
        detail = "missing closing brace: the file ends before this entry does"
    elif "Expected comma after entry key" in reason:
        detail = "missing citation key (expected '@type{key, field = ...}')"
    elif "Expected equals sign" in reason:
        detail = "malformed @string definition (expected '@string{name = value}')"
    else:
        detail = reason.strip()
    if kind == "string":
        what = "@string definition"
    return key, f"Malformed {what}: {detail.rstrip('.')}."


#: Blocks written like entries that are not publications, and what the preview says of them.
_NOT_PUBLICATIONS = {
    "set": "@set groups other entries of the file (biblatex); those are imported, the set "
    "itself is not a publication; skipped.",
    "xdata": "@xdata holds fields other entries inherit (biblatex); it is not a publication; "
    "skipped.",
    "ieeetranbstctl": "@IEEEtranBSTCTL holds settings of the IEEEtran bibliography style, not "
    "a publication; skipped.",
}
# An entry opened without a key (``@article{ title = ...``): the splitter would refuse it, so
# a placeholder key is written in before splitting (and taken out of the entry's raw text).
_KEYLESS_RE = re.compile(
    r"^([ \t]*@[ \t]*(?!(?:string|comment|preamble)\b)\w+[ \t]*[{(])(?=\s*[A-Za-z][\w-]*\s*=)",
    re.M | re.I,
)
_PLACEHOLDER_KEY = "directory-keyless-entry,"


def parse_bibtex(
    text: str | bytes, *, max_bytes: int = MAX_BIBTEX_BYTES, max_entries: int = MAX_BIBTEX_ENTRIES
) -> ParseResult:
    """Parse a BibTeX file into publications plus a list of problems (see
    :func:`_parse_bibtex`), with the cyclic garbage collector paused meanwhile: a file's
    thousands of fields are small objects in no cycle (:mod:`directory.formats.batch`)."""
    with collection_paused():
        return _parse_bibtex(text, max_bytes=max_bytes, max_entries=max_entries)


def _parse_bibtex(
    text: str | bytes, *, max_bytes: int = MAX_BIBTEX_BYTES, max_entries: int = MAX_BIBTEX_ENTRIES
) -> ParseResult:
    """Parse a BibTeX file into publications plus a list of problems.

    Malformed entries (missing brace or key, duplicate key) become ``BibtexProblem`` s with
    their line number while every other entry is still returned; whether to import partially
    is the caller's decision. Free text, ``@comment``, ``@preamble`` and ``%`` comments are
    ignored; ``@string`` macros (also in ``#`` concatenations), month macros, ``crossref``
    inheritance and LaTeX markup are resolved.

    :param text: the file, as text or as UTF-8 bytes (a BOM is accepted).
    :param max_bytes: size limit in bytes.
    :param max_entries: how many entries one file may hold.
    :raises BibtexTooLarge: if the input is larger than ``max_bytes`` or holds more than
        ``max_entries`` entries (counted before any parsing work).
    """
    decoded = _decoded_input(text, max_bytes)
    if isinstance(decoded, ParseResult):
        return decoded
    count = len(_ENTRY_START_RE.findall(decoded))
    if count > max_entries:
        raise BibtexTooLarge(
            f"The file holds {count:,} entries; at most {max_entries:,} are imported at a "
            "time: split it into smaller files."
        )
    source = _Source(decoded)
    # Well-formed files by the quick way; anything else by bibtexparser's splitter, whose
    # recovery from errors the messages below are written for (:mod:`.split`).
    library = split_plain(source.text)
    if library is None:
        library = _bibtexparser_split(source.text, parse_stack=[])
    reading = _Reading()
    entries = reading.sort_blocks(library.blocks)
    # Every entry's fields are evaluated before any is built: crossref needs all of them.
    evaluated = reading.evaluate_entries(entries)
    referenced = resolve_crossrefs(reading.by_key)
    publications = reading.publications(evaluated, referenced, source)
    reading.problems.sort(key=lambda p: p.line or 0)
    return ParseResult(entries=publications, problems=reading.problems)


def _decoded_input(text: str | bytes, max_bytes: int) -> str | ParseResult:
    """The file as text without its BOM, or the problem that it is not UTF-8.

    :raises BibtexTooLarge: if it is larger than ``max_bytes``.
    """
    if isinstance(text, bytes | bytearray):
        if len(text) > max_bytes:
            raise BibtexTooLarge(_size_message(len(text), max_bytes))
        try:
            return bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = text.count(b"\n", 0, e.start) + 1
            message = (
                f"The file is not valid UTF-8 (byte 0x{text[e.start]:02x} on line {line}); "
                "save it with UTF-8 encoding and upload it again."
            )
            return ParseResult(entries=[], problems=[BibtexProblem(line, None, message)])
    # Only encode (a copy) when the character count alone cannot settle the question.
    if len(text) * 4 > max_bytes:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            raise BibtexTooLarge(_size_message(size, max_bytes))
    return text[1:] if text.startswith("\ufeff") else text


class _Source:
    """The file's text as the splitter reads it (keyless entries given a placeholder key,
    comments that would mislead it blanked out), and each entry's raw text as written."""

    def __init__(self, text: str) -> None:
        if "@" in text:
            text = _KEYLESS_RE.sub(r"\1" + _PLACEHOLDER_KEY, text)
        self.original = text
        text = _hide_percent_comments(text)
        if _AT_COMMENT_RE.search(text) is not None:
            text = _disarm_comment_blocks(text)
        self.text = text
        self.modified = text is not self.original and text != self.original
        # Entries are asked for their raw text in file order, so each search starts where
        # the previous entry ended. Hidden text cannot match: its "@" and "%" are gone.
        self.cursor = 0

    def original_raw(self, block_raw: str | None) -> str:
        """The text of a block as the file has it (the splitter saw comments blanked out)."""
        raw = block_raw or ""
        if not self.modified:
            return raw
        pos = self.text.find(raw, self.cursor)
        if pos < 0:
            return raw
        self.cursor = pos + len(raw)
        return self.original[pos : pos + len(raw)]


#: An entry with its citation key, type, evaluated fields and warnings.
_Evaluated = tuple[Entry, str, str, dict[str, str], list[str]]


class _Reading:
    """What reading one file gathers as it goes: the problems, the ``@string`` macros (in
    its evaluator), each entry's evaluated fields by folded key, and the keys in use."""

    def __init__(self) -> None:
        self.problems: list[BibtexProblem] = []
        self.evaluator = Evaluator()
        self.by_key: dict[str, tuple[str, dict[str, str], list[str]]] = {}
        self.used_keys: set[str] = set()
        #: Entries without a key, under a stand-in key until their fields give them one.
        self.keyless: set[str] = set()
        self._first_line: dict[str, int] = {}
        #: The raw text of the first entry of each key, compared (spacing aside) only when a
        #: later entry has the same key.
        self._first_raw: dict[str, str] = {}
        self._too_long_macros = 0

    # -- blocks ---------------------------------------------------------------------------

    def sort_blocks(self, blocks: list[Any]) -> list[tuple[Entry, set[str]]]:
        """The entries, each with its duplicate field keys, in file order. ``@string``
        definitions are evaluated as they come (a redefinition replaces the earlier value);
        every other block is said in a problem."""
        entries: list[tuple[Entry, set[str]]] = []
        free_text: list[int] = []
        for block in blocks:
            duplicates: set[str] = set()
            if isinstance(block, DuplicateBlockKeyBlock | DuplicateFieldKeyBlock):
                if isinstance(block, DuplicateFieldKeyBlock):
                    duplicates = set(block.duplicate_keys)
                block = block.ignore_error_block
            if isinstance(block, Entry):
                entries.append((block, duplicates))
            elif isinstance(block, String):
                self._define(block)
            elif isinstance(block, ParsingFailedBlock):
                key, message = _failure_message(block)
                start = block.start_line
                self.problems.append(
                    BibtexProblem(None if start is None else start + 1, key, message)
                )
            elif isinstance(block, Preamble | ExplicitComment):
                self.problems.append(_not_a_publication(block))
            elif isinstance(block, ImplicitComment) and block.comment.strip():
                free_text.append((block.start_line or 0) + 1)
        if free_text:
            self.problems.append(_free_text_problem(free_text))
        self.used_keys = {entry.key.strip().lower() for entry, _ in entries}
        return entries

    def _define(self, block: String) -> None:
        evaluator = self.evaluator
        evaluator.undefined = []
        evaluator.macros[block.key.strip().lower()] = evaluator.evaluate(block.value.strip())
        line = (block.start_line or 0) + 1
        # Only the first of a chain of growing macros is worth a message.
        if evaluator.too_long and not self._too_long_macros:
            message = _too_long_message(
                f"@string '{block.key}'", "entries using it are not imported"
            )
            self.problems.append(BibtexProblem(line, block.key, message))
        self._too_long_macros += evaluator.too_long
        for name in evaluator.undefined:
            self.problems.append(
                BibtexProblem(line, block.key, f"@string '{block.key}' uses undefined '{name}'.")
            )

    # -- entries --------------------------------------------------------------------------

    def evaluate_entries(self, entries: list[tuple[Entry, set[str]]]) -> list[_Evaluated]:
        """Every entry's key and evaluated fields, but for identical copies and entries with
        a value too long (said in problems)."""
        evaluated = []
        for entry, duplicate_fields in entries:
            item = self._evaluate(entry, duplicate_fields)
            if item is not None:
                evaluated.append(item)
        return evaluated

    def _evaluate(self, entry: Entry, duplicate_fields: set[str]) -> _Evaluated | None:
        line = (entry.start_line or 0) + 1
        warnings: list[str] = []
        key = self._entry_key(entry, line, warnings)
        if key is None:
            return None
        fields, too_long = self._fields(entry)
        if too_long is not None:
            message = _too_long_message(f"The field '{too_long}'", "the entry is not imported")
            self.problems.append(BibtexProblem(line, key, message))
            return None
        for name in self.evaluator.undefined:
            warnings.append(f"undefined @string macro '{name}' was kept as text")
        for name in sorted(duplicate_fields):
            warnings.append(f"field '{name.lower()}' appears more than once; the first is used")
        entry_type = entry.entry_type.strip().lower()
        self.by_key[key.lower()] = (entry_type, fields, warnings)
        return (entry, key, entry_type, fields, warnings)

    def _entry_key(self, entry: Entry, line: int, warnings: list[str]) -> str | None:
        """The entry's key: its own, a free variant of it when an earlier entry has it, a
        stand-in when it has none; None for an identical copy of an earlier entry."""
        key = entry.key.strip()
        if key == _PLACEHOLDER_KEY[:-1]:
            key = ""
        if not key:
            key = f"\x00{line}"
            self.keyless.add(key)
        folded = key.lower()
        if folded in self._first_line:
            earlier = self._first_line[folded]
            if (entry.raw or "").split() == self._first_raw[folded].split():
                self.problems.append(
                    BibtexProblem(
                        line, key,
                        f"An identical copy of the entry on line {earlier}; skipped.", "skipped",
                    )
                )  # fmt: skip
                return None
            new_key = free_key(key, self.used_keys)
            warnings.append(
                f"citation key '{key}' is already used on line {earlier}; this entry was "
                f"given the key '{new_key}'"
            )
            key, folded = new_key, new_key.lower()
        self._first_line[folded] = line
        self._first_raw[folded] = entry.raw or ""
        return key

    def _fields(self, entry: Entry) -> tuple[dict[str, str], str | None]:
        """The entry's fields evaluated (the first value of a repeated one), and the name of
        the first whose value is too long, if any."""
        fields: dict[str, str] = {}
        self.evaluator.undefined = []
        too_long = None
        for fld in entry.fields:
            # The splitter has stripped keys and values already.
            name = fld.key.lower()
            if "\n" in name or "%" in name:
                name = name.rsplit("\n", 1)[-1].strip()
                if name.startswith("%"):
                    continue
            if not name or name in fields:
                continue  # BibTeX keeps the first value; duplicates are reported below
            fields[name] = self.evaluator.evaluate(fld.value)
            if self.evaluator.too_long and too_long is None:
                too_long = name
        return fields, too_long

    # -- publications ---------------------------------------------------------------------

    def publications(
        self, evaluated: list[_Evaluated], referenced: set[str], source: _Source
    ) -> list[ParsedEntry]:
        """The entries that are publications, built; the others said in problems."""
        result: list[ParsedEntry] = []
        for entry, key, entry_type, fields, warnings in evaluated:
            line = (entry.start_line or 0) + 1
            if entry_type in CONTAINER_TYPES and key.lower() in referenced:
                # A proceedings volume is context for its papers, not a publication: said,
                # not dropped unseen (texbook3.bib has 27 such volumes).
                self.problems.append(
                    BibtexProblem(line, key, gettext(
                        "@%(type)s %(key)s is the volume other entries of the file "
                        "cross-reference: its details are theirs; it is not a publication of "
                        "its own; skipped.",
                        type=entry_type, key=key,
                    ), "skipped")
                )  # fmt: skip
                continue
            if entry_type in _NOT_PUBLICATIONS:
                shown_key = None if key in self.keyless else key
                message = _NOT_PUBLICATIONS[entry_type]
                self.problems.append(BibtexProblem(line, shown_key, message, "skipped"))
                continue
            data = _build_reporting_commands(key, entry_type, fields, warnings)
            raw = source.original_raw(entry.raw)
            if key in self.keyless:
                raw = raw.replace(_PLACEHOLDER_KEY, "", 1)
                key = data["key"] = free_key(make_citation_key(data), self.used_keys)
                warnings.append(f"the entry has no citation key; it was given the key '{key}'")
            result.append(ParsedEntry(key=key, line=line, raw=raw, data=data, warnings=warnings))
        return result


def _build_reporting_commands(
    key: str, entry_type: str, fields: dict[str, str], warnings: list[str]
) -> dict[str, Any]:
    """:func:`build_publication`, with a warning for each LaTeX command no table knows."""
    unknown: list[str] = []
    reset = UNKNOWN_COMMANDS.set(unknown)
    try:
        data = build_publication(key, entry_type, fields, warnings)
    finally:
        UNKNOWN_COMMANDS.reset(reset)
    for word in unknown:
        warnings.append(f"unknown LaTeX command \\{word} was kept as the text '{word}'")
    return data


def _not_a_publication(block: Preamble | ExplicitComment) -> BibtexProblem:
    what = "@preamble (LaTeX definitions for the bibliography style)"
    if isinstance(block, ExplicitComment):
        what = "@comment"
    line = (block.start_line or 0) + 1
    return BibtexProblem(line, None, f"{what} is not a publication; skipped.", "skipped")


def _free_text_problem(lines: list[int]) -> BibtexProblem:
    """Text between entries (on ``lines``) is said once, with its first ten lines."""
    shown = ", ".join(str(n) for n in lines[:10]) + (", ..." if len(lines) > 10 else "")
    return BibtexProblem(
        lines[0], None,
        f"Text outside any entry (line{'s' if len(lines) > 1 else ''} {shown}) is "
        "not a publication; skipped.", "skipped",
    )  # fmt: skip
