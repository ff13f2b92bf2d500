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
:mod:`.authors` and the fields mapped in :mod:`.entries`.
"""

from __future__ import annotations

import re

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
from directory.formats.bibtex.entries import LIST_SPLIT_RE, build_publication
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

# Containers referenced through crossref are not publications of their own.
_CONTAINER_TYPES = frozenset(["proceedings", "mvproceedings", "collection", "mvcollection"])

# Entries whose author a crossref child inherits (BibTeX inherits every field; biblatex maps a
# book's author to its parts').
_BOOK_TYPES = frozenset(["book", "mvbook", "booklet"])

# Inherited through crossref: everything except what identifies the child itself.
_NOT_INHERITED = frozenset(
    ["crossref", "xref", "ids", "key", "title", "doi", "url", "eprint", "archiveprefix"]
    + ["eprinttype", "arxiv", "pdf", "html", "abstract", "selected", "award", "award_name"]
    + ["badges", "labels", "pages", "note", "status", "pubstate", "co_first", "corresponding"]
    + ["equal_contribution", "code", "slides", "video", "poster", "blog", "website", "supp"]
    + ["author", "pubtype"]
)

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
    if isinstance(text, bytes | bytearray):
        if len(text) > max_bytes:
            raise BibtexTooLarge(_size_message(len(text), max_bytes))
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = text.count(b"\n", 0, e.start) + 1
            message = (
                f"The file is not valid UTF-8 (byte 0x{text[e.start]:02x} on line {line}); "
                "save it with UTF-8 encoding and upload it again."
            )
            return ParseResult(entries=[], problems=[BibtexProblem(line, None, message)])
    else:
        # Only encode (a copy) when the character count alone cannot settle the question.
        if len(text) * 4 > max_bytes:
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > max_bytes:
                raise BibtexTooLarge(_size_message(size, max_bytes))
        if text.startswith("\ufeff"):
            text = text[1:]

    count = len(_ENTRY_START_RE.findall(text))
    if count > max_entries:
        raise BibtexTooLarge(
            f"The file holds {count:,} entries; at most {max_entries:,} are imported at a "
            "time: split it into smaller files."
        )
    if "@" in text:
        text = _KEYLESS_RE.sub(r"\1" + _PLACEHOLDER_KEY, text)
    original = text
    text = _hide_percent_comments(text)
    if _AT_COMMENT_RE.search(text) is not None:
        text = _disarm_comment_blocks(text)
    modified = text is not original and text != original
    # Entries are asked for their raw text in file order, so each search starts where the
    # previous entry ended. Hidden text cannot match: its "@" and "%" are gone.
    cursor = [0]

    def original_raw(block_raw: str | None) -> str:
        raw = block_raw or ""
        if not modified:
            return raw
        pos = text.find(raw, cursor[0])
        if pos < 0:
            return raw
        cursor[0] = pos + len(raw)
        return original[pos : pos + len(raw)]

    # Well-formed files by the quick way; anything else by bibtexparser's splitter, whose
    # recovery from errors the messages below are written for (:mod:`.split`).
    library = split_plain(text)
    if library is None:
        library = _bibtexparser_split(text, parse_stack=[])

    problems: list[BibtexProblem] = []
    evaluator = Evaluator()
    # (entry, duplicate field keys) in file order.
    entries: list[tuple[Entry, set[str]]] = []
    free_text: list[int] = []
    too_long_macros = 0
    for block in library.blocks:
        if isinstance(block, DuplicateBlockKeyBlock | DuplicateFieldKeyBlock):
            inner = block.ignore_error_block
            duplicates = (
                block.duplicate_keys if isinstance(block, DuplicateFieldKeyBlock) else set()
            )
            block = inner
            if isinstance(inner, Entry):
                entries.append((inner, set(duplicates)))
                continue
        if isinstance(block, Entry):
            entries.append((block, set()))
        elif isinstance(block, String):
            # Strings are evaluated in file order; a redefinition replaces the earlier value.
            evaluator.undefined = []
            value = evaluator.evaluate(block.value.strip())
            evaluator.macros[block.key.strip().lower()] = value
            line = (block.start_line or 0) + 1
            # Only the first of a chain of growing macros is worth a message.
            if evaluator.too_long and not too_long_macros:
                problems.append(
                    BibtexProblem(
                        line,
                        block.key,
                        _too_long_message(
                            f"@string '{block.key}'", "entries using it are not imported"
                        ),
                    )
                )
            too_long_macros += evaluator.too_long
            for name in evaluator.undefined:
                problems.append(
                    BibtexProblem(
                        line, block.key, f"@string '{block.key}' uses undefined '{name}'."
                    )
                )
        elif isinstance(block, ParsingFailedBlock):
            key, message = _failure_message(block)
            start = block.start_line
            problems.append(BibtexProblem(None if start is None else start + 1, key, message))
        elif isinstance(block, Preamble | ExplicitComment):
            what = "@preamble (LaTeX definitions for the bibliography style)"
            if isinstance(block, ExplicitComment):
                what = "@comment"
            problems.append(
                BibtexProblem(
                    (block.start_line or 0) + 1, None,
                    f"{what} is not a publication; skipped.", "skipped",
                )
            )  # fmt: skip
        elif isinstance(block, ImplicitComment) and block.comment.strip():
            free_text.append((block.start_line or 0) + 1)
    if free_text:
        lines = ", ".join(str(n) for n in free_text[:10]) + (", ..." if len(free_text) > 10 else "")
        problems.append(
            BibtexProblem(
                free_text[0], None,
                f"Text outside any entry (line{'s' if len(free_text) > 1 else ''} {lines}) is "
                "not a publication; skipped.", "skipped",
            )
        )  # fmt: skip

    # Evaluate every entry's fields (crossref needs all of them before building any).
    parsed: list[tuple[Entry, str, str, dict[str, str], list[str]]] = []
    by_key: dict[str, tuple[str, dict[str, str], list[str]]] = {}
    first_line: dict[str, int] = {}
    #: The raw text of the first entry of each key, compared (spacing aside) only when a
    #: later entry has the same key.
    first_raw: dict[str, str] = {}
    used_keys = {entry.key.strip().lower() for entry, _ in entries}
    # Entries without a key get one once their fields are known (see below).
    keyless: set[str] = set()
    for entry, duplicate_fields in entries:
        line = (entry.start_line or 0) + 1
        key = entry.key.strip()
        warnings: list[str] = []
        if key == _PLACEHOLDER_KEY[:-1]:
            key = ""
        if not key:
            key = f"\x00{line}"
            keyless.add(key)
        folded = key.lower()
        if folded in first_line:
            earlier = first_line[folded]
            if (entry.raw or "").split() == first_raw[folded].split():
                problems.append(
                    BibtexProblem(
                        line, key,
                        f"An identical copy of the entry on line {earlier}; skipped.", "skipped",
                    )
                )  # fmt: skip
                continue
            new_key = free_key(key, used_keys)
            warnings.append(
                f"citation key '{key}' is already used on line {earlier}; this entry was "
                f"given the key '{new_key}'"
            )
            key, folded = new_key, new_key.lower()
        first_line[folded] = line
        first_raw[folded] = entry.raw or ""
        fields: dict[str, str] = {}
        evaluator.undefined = []
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
            fields[name] = evaluator.evaluate(fld.value)
            if evaluator.too_long and too_long is None:
                too_long = name
        if too_long is not None:
            problems.append(
                BibtexProblem(
                    line,
                    key,
                    _too_long_message(f"The field '{too_long}'", "the entry is not imported"),
                )
            )
            continue
        for name in evaluator.undefined:
            warnings.append(f"undefined @string macro '{name}' was kept as text")
        for name in sorted(duplicate_fields):
            warnings.append(f"field '{name.lower()}' appears more than once; the first is used")
        entry_type = entry.entry_type.strip().lower()
        by_key[folded] = (entry_type, fields, warnings)
        parsed.append((entry, key, entry_type, fields, warnings))

    # crossref: children inherit what they lack from their parent (itself possibly a child).
    referenced: set[str] = set()
    resolved: set[str] = set()

    def resolve(folded_key: str, chain: tuple[str, ...]) -> None:
        if folded_key in resolved:
            return
        resolved.add(folded_key)
        _, fields, warnings = by_key[folded_key]
        # biblatex @xdata: every field the entry lacks, from each named xdata entry.
        for xdata_key in LIST_SPLIT_RE.split(fields.get("xdata", "").strip()):
            xdata = by_key.get(xdata_key.lower()) if xdata_key else None
            if xdata_key and xdata is None:
                warnings.append(f"xdata '{xdata_key}' is not in the file")
            elif xdata is not None and xdata_key.lower() not in chain:
                resolve(xdata_key.lower(), (*chain, folded_key))
                for name, value in xdata[1].items():
                    fields.setdefault(name, value)
        parent_key = fields.get("crossref", "").strip()
        if not parent_key:
            return
        parent_folded = parent_key.lower()
        parent = by_key.get(parent_folded)
        if parent is None:
            warnings.append(f"crossref '{parent_key}' is not in the file")
            return
        if parent_folded in chain:
            warnings.append(f"crossref '{parent_key}' is circular")
            return
        referenced.add(parent_folded)
        resolve(parent_folded, (*chain, folded_key))
        parent_fields = parent[1]
        for name, value in parent_fields.items():
            if name not in fields and name not in _NOT_INHERITED:
                fields[name] = value
        # A part of a book (@inbook, @bookinbook...) is by the book's author, as in BibTeX.
        if "author" not in fields and parent[0] in _BOOK_TYPES and parent_fields.get("author"):
            fields["author"] = parent_fields["author"]
        # An entry of the parent's own kind without a title of its own (xampl.bib's
        # article-crossref) is, as BibTeX prints it, under the parent's title; a part of a
        # container (@inproceedings of @proceedings) takes it as its booktitle below.
        child_type = by_key[folded_key][0]
        if (
            "title" not in fields
            and parent_fields.get("title")
            and child_type == parent[0]
            and parent[0] not in _CONTAINER_TYPES
        ):
            fields["title"] = parent_fields["title"]
        # biblatex: a proceedings' title is its papers' booktitle.
        if "booktitle" not in fields and parent_fields.get("title"):
            fields["booktitle"] = parent_fields["title"]

    for folded_key, (_, fields, _) in by_key.items():
        if "crossref" in fields or "xdata" in fields:
            resolve(folded_key, ())

    result: list[ParsedEntry] = []
    for entry, key, entry_type, fields, warnings in parsed:
        line = (entry.start_line or 0) + 1
        if entry_type in _CONTAINER_TYPES and key.lower() in referenced:
            # A proceedings volume is context for its papers, not a publication: said, not
            # dropped unseen (texbook3.bib has 27 such volumes).
            problems.append(
                BibtexProblem(line, key, gettext(
                    "@%(type)s %(key)s is the volume other entries of the file cross-reference: "
                    "its details are theirs; it is not a publication of its own; skipped.",
                    type=entry_type, key=key,
                ), "skipped")
            )  # fmt: skip
            continue
        if entry_type in _NOT_PUBLICATIONS:
            problems.append(
                BibtexProblem(line, None if key in keyless else key, _NOT_PUBLICATIONS[entry_type],
                              "skipped")
            )  # fmt: skip
            continue
        unknown: list[str] = []
        reset = UNKNOWN_COMMANDS.set(unknown)
        try:
            data = build_publication(key, entry_type, fields, warnings)
        finally:
            UNKNOWN_COMMANDS.reset(reset)
        for word in unknown:
            warnings.append(f"unknown LaTeX command \\{word} was kept as the text '{word}'")
        raw = original_raw(entry.raw)
        if key in keyless:
            raw = raw.replace(_PLACEHOLDER_KEY, "", 1)
            key = data["key"] = free_key(make_citation_key(data), used_keys)
            warnings.append(f"the entry has no citation key; it was given the key '{key}'")
        result.append(
            ParsedEntry(
                key=key,
                line=line,
                raw=raw,
                data=data,
                warnings=warnings,
            )
        )
    problems.sort(key=lambda p: p.line or 0)
    return ParseResult(entries=result, problems=problems)
