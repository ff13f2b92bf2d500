"""What an entry inherits from the entries it names: ``crossref`` (a paper from its
proceedings volume, a chapter from its book) and biblatex's ``@xdata``.

Entries are given as their evaluated fields by folded key; the fields are filled in place.
"""

from __future__ import annotations

from directory.formats.bibtex.entries import LIST_SPLIT_RE

#: An entry as the inheritance sees it: (entry type, evaluated fields, warnings).
Evaluated = tuple[str, dict[str, str], list[str]]

#: Containers: referenced through crossref, they are not publications of their own.
CONTAINER_TYPES = frozenset(["proceedings", "mvproceedings", "collection", "mvcollection"])

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


def resolve_crossrefs(by_key: dict[str, Evaluated]) -> set[str]:
    """Children inherit what they lack from their parent (itself possibly a child) and from
    their ``xdata`` entries; a missing or circular reference is a warning of the child.
    Returns the folded keys of the entries some other entry cross-references."""
    inheritance = _Inheritance(by_key)
    for folded_key, (_, fields, _) in by_key.items():
        if "crossref" in fields or "xdata" in fields:
            inheritance.resolve(folded_key, ())
    return inheritance.referenced


class _Inheritance:
    """Resolves each entry once, parents before their children."""

    def __init__(self, by_key: dict[str, Evaluated]) -> None:
        self.by_key = by_key
        self.referenced: set[str] = set()
        self.resolved: set[str] = set()

    def resolve(self, folded_key: str, chain: tuple[str, ...]) -> None:
        """Fill in the entry ``folded_key``; ``chain`` holds the entries that asked for it."""
        if folded_key in self.resolved:
            return
        self.resolved.add(folded_key)
        entry_type, fields, warnings = self.by_key[folded_key]
        self._inherit_xdata(folded_key, fields, warnings, chain)
        parent_key = fields.get("crossref", "").strip()
        if not parent_key:
            return
        parent_folded = parent_key.lower()
        parent = self.by_key.get(parent_folded)
        if parent is None:
            warnings.append(f"crossref '{parent_key}' is not in the file")
            return
        if parent_folded in chain:
            warnings.append(f"crossref '{parent_key}' is circular")
            return
        self.referenced.add(parent_folded)
        self.resolve(parent_folded, (*chain, folded_key))
        _inherit_from_parent(entry_type, fields, parent)

    def _inherit_xdata(
        self, folded_key: str, fields: dict[str, str], warnings: list[str], chain: tuple[str, ...]
    ) -> None:
        """biblatex @xdata: every field the entry lacks, from each named xdata entry."""
        for xdata_key in LIST_SPLIT_RE.split(fields.get("xdata", "").strip()):
            xdata = self.by_key.get(xdata_key.lower()) if xdata_key else None
            if xdata_key and xdata is None:
                warnings.append(f"xdata '{xdata_key}' is not in the file")
            elif xdata is not None and xdata_key.lower() not in chain:
                self.resolve(xdata_key.lower(), (*chain, folded_key))
                for name, value in xdata[1].items():
                    fields.setdefault(name, value)


def _inherit_from_parent(child_type: str, fields: dict[str, str], parent: Evaluated) -> None:
    parent_type, parent_fields, _ = parent
    for name, value in parent_fields.items():
        if name not in fields and name not in _NOT_INHERITED:
            fields[name] = value
    # A part of a book (@inbook, @bookinbook...) is by the book's author, as in BibTeX.
    if "author" not in fields and parent_type in _BOOK_TYPES and parent_fields.get("author"):
        fields["author"] = parent_fields["author"]
    # An entry of the parent's own kind without a title of its own (xampl.bib's
    # article-crossref) is, as BibTeX prints it, under the parent's title; a part of a
    # container (@inproceedings of @proceedings) takes it as its booktitle below.
    if (
        "title" not in fields
        and parent_fields.get("title")
        and child_type == parent_type
        and parent_type not in CONTAINER_TYPES
    ):
        fields["title"] = parent_fields["title"]
    # biblatex: a proceedings' title is its papers' booktitle.
    if "booktitle" not in fields and parent_fields.get("title"):
        fields["booktitle"] = parent_fields["title"]
