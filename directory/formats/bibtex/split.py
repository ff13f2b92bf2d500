"""A quicker way to split a well-formed BibTeX file into bibtexparser's blocks.

bibtexparser's splitter walks a file mark by mark (every brace, quote, comma, ``=`` and
newline is a step in Python); on an import of a few thousand entries that walk was a fourth of
the whole import's CPU time. :func:`split_plain` reads each field value with one regular
expression instead, and gives the very blocks bibtexparser's ``Splitter`` would (entries with
their fields, ``@string`` definitions, the text between entries, duplicate keys flagged by
bibtexparser's own ``Library``), with the same keys, values, raw texts and line numbers.

It only takes what it can read exactly as bibtexparser does: entries and ``@string`` blocks
in braces, their fields ``name = value`` with values of braces (nested at most
:data:`MAX_DEPTH` deep), quotes, words and ``#``. Anything else (``@comment``,
``@preamble``, a block in parentheses, an ``@`` starting a line inside a value, a syntax
error) makes it answer ``None``, and the caller splits the file with bibtexparser itself, whose
error recovery and messages stay the reference. ``tests/formats/test_bibsplit.py`` checks the two
against each other on every test bibliography and on thousands of generated and mutated ones.
"""

from __future__ import annotations

import re

from bibtexparser.library import Library
from bibtexparser.model import DuplicateFieldKeyBlock, Entry, Field, ImplicitComment, String

__all__ = ["MAX_DEPTH", "split_plain"]

#: The deepest nesting of braces in a value read here; a deeper one goes to bibtexparser.
MAX_DEPTH = 8

#: A block's start, as bibtexparser's splitter recognises one (``@type`` before ``{`` or ``(``).
_BLOCK_START_RE = re.compile(r"@[\w]*( |\t)*(?=[{(])")


def _braces(depth: int) -> str:
    """A balanced ``{...}`` (unescaped braces counted, quotes not) nested at most ``depth``."""
    inner = r"[^{}]++|(?<=\\)[{}]"
    group = rf"(?<!\\)\{{(?:{inner})*+(?<!\\)\}}"
    for _ in range(depth - 1):
        group = rf"(?<!\\)\{{(?:{inner}|{group})*+(?<!\\)\}}"
    return group


_BRACED = _braces(MAX_DEPTH)
# In quotes, braces are not counted; an escaped quote and a {"} (not at the very end) go on.
_QUOTED = r'(?<!\\)"(?:[^"]++|(?<=\\)"|(?<=\{)"(?=\}.))*+(?<!\\)"'
_OTHER = r'[^{}",]++|(?<=\\)[{}",]'
#: A field's value up to the unescaped comma or brace that ends it.
_VALUE = rf"(?:{_OTHER}|{_BRACED}|{_QUOTED})*+"
#: One field: its name (text holding no mark), "=", its value, and the "," or "}" after it.
_FIELD_RE = re.compile(rf'([^{{}}",=@\\]*+)=({_VALUE})([,}}])', re.DOTALL)
#: The end of an entry after its last comma.
_END_RE = re.compile(r"\s*\}")
#: An @string's value: up to the first unescaped ``}`` outside braces (quotes not tracked).
_STRING_VALUE_RE = re.compile(rf"(?:[^{{}}]++|(?<=\\)[{{}}]|{_BRACED})*+", re.DOTALL)
#: A name (entry key, field name, @string name) and what ends it: text holding no mark.
_NAME_RE = re.compile(r'([^{}",=@\\]*+)([,=}])')
#: An "@" at the start of a line inside a block makes bibtexparser abort the block.
_LINE_START_AT_RE = re.compile(r"\n\s*@")


def split_plain(text: str) -> Library | None:
    """bibtexparser's blocks of ``text`` (as ``bibtexparser.parse_string(text,
    parse_stack=[])`` gives them), or None if the file holds anything this reader leaves to
    bibtexparser."""
    bibstr = f"\n{text}"  # as bibtexparser's splitter: block starts follow a newline
    line = _Lines(bibstr)

    library = Library()
    comment_start, comment_line = 0, -1
    pos = 0
    while (mark := _BLOCK_START_RE.search(bibstr, pos)) is not None:
        comment = _implicit_comment(bibstr, comment_start, mark.start(), comment_line)
        if comment is not None:
            library.add(comment, fail_on_duplicate_key=False)
        kind = mark.group(0).lower()
        opening = mark.end()
        if bibstr[opening] != "{" or kind.startswith(("@comment", "@preamble")):
            return None
        if kind.startswith("@string"):
            block, close = _string(bibstr, mark.start(), opening, line)
        else:
            block, close = _entry(bibstr, mark.start(), kind[1:].strip(), opening, line)
        if block is None:
            return None
        library.add(block, fail_on_duplicate_key=False)
        pos = comment_start = close + 1
        comment_line = line(close)
    comment = _implicit_comment(bibstr, comment_start, len(bibstr), comment_line)
    if comment is not None:
        library.add(comment, fail_on_duplicate_key=False)
    return library


class _Lines:
    """bibtexparser's line of a position: the newlines before it that no backslash escapes
    (bibtexparser counts only unescaped ones), less the one the splitter adds in front.
    Asked in file order, each answer counts only the text since the last one."""

    def __init__(self, bibstr: str):
        self.bibstr = bibstr
        self.pos = 0
        self.count = -1

    def __call__(self, pos: int) -> int:
        if pos < self.pos:  # not in file order: count again from the start
            self.pos, self.count = 0, -1
        text, last = self.bibstr, self.pos
        # A "\\\n" whose newline is in [last, pos) starts at last - 1 at the earliest.
        escaped = text.count("\\\n", max(last - 1, 0), pos)
        self.count += text.count("\n", last, pos) - escaped
        self.pos = pos
        return self.count


def _implicit_comment(bibstr: str, start: int, end: int, start_line: int) -> ImplicitComment | None:
    """The text between two blocks, as bibtexparser keeps it (None if only white space)."""
    comment = bibstr[start:end]
    if not comment or comment.isspace():
        return None
    text = comment.lstrip()
    # Its line: the first line with text on it.
    leading_empty_lines = comment.count("\n", 0, len(comment) - len(text))
    comment = text.rstrip()
    return ImplicitComment(
        start_line=start_line + leading_empty_lines, raw=comment, comment=comment
    )


def _string(bibstr: str, start: int, opening: int, line) -> tuple[String | None, int]:
    name = _NAME_RE.match(bibstr, opening + 1)
    if name is None or name.group(2) != "=":
        return None, 0
    value = _STRING_VALUE_RE.match(bibstr, name.end())
    close = value.end()
    if bibstr[close : close + 1] != "}" or _LINE_START_AT_RE.search(value.group(0)):
        return None, 0
    block = String(
        start_line=line(start),
        key=name.group(1).strip(),
        value=value.group(0).strip(),
        raw=bibstr[start : close + 1],
    )
    return block, close


def _entry(
    bibstr: str, start: int, entry_type: str, opening: int, line
) -> tuple[Entry | DuplicateFieldKeyBlock | None, int]:
    start_line = line(start)
    head = _NAME_RE.match(bibstr, opening + 1)
    if head is None or head.group(2) == "=":
        return None, 0
    key = head.group(1).strip()
    fields: list[Field] = []
    names: set[str] = set()
    duplicates: set[str] = set()
    pos = head.end()
    ends = head.group(2)
    while ends == ",":
        field = _FIELD_RE.match(bibstr, pos)
        if field is None:
            # The entry's end after a last comma; anything else (a name without "=", ",,",
            # an unclosed quote or brace, braces nested too deep) is bibtexparser's to report.
            end = _END_RE.match(bibstr, pos)
            if end is None:
                return None, 0
            pos = end.end()
            break
        name, value, ends = field.groups()
        if "@" in value and _LINE_START_AT_RE.search(value):
            return None, 0
        name = name.strip()
        if name in names:
            duplicates.add(name)
        names.add(name)
        equals = field.start(2) - 1
        fields.append(Field(start_line=line(equals), key=name, value=value.strip()))
        pos = field.end()
    close = pos - 1  # the entry's closing brace
    entry = Entry(
        start_line=start_line,
        entry_type=entry_type,
        key=key,
        fields=fields,
        raw=bibstr[start:pos],
    )
    if duplicates:
        return DuplicateFieldKeyBlock(duplicate_keys=duplicates, entry=entry), close
    return entry, close
