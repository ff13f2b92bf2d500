"""Adding and editing one publication by hand.

Kept in its own module so that the publication import (BibTeX, ORCID, fuzzy author matching)
can extend it: :func:`directory.services.publication_reads.member_printed_as` is the one
place that decides which department member a printed author name is, and matches exactly on
full names and listed name variants only.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy.orm import Session
from wtforms import BooleanField, IntegerField, SelectField, StringField, TextAreaField
from wtforms.validators import Length, Optional, ValidationError

from directory import models as m
from directory.i18n import gettext as _
from directory.i18n import lazy_gettext as _l
from directory.services.publication_reads import member_printed_as
from directory.services.publication_rows import NAME_PARTS
from directory.web.forms import MONTH, YEAR, VersionedForm, http_url, labelled_lines, text, vocab

CORRESPONDING = re.compile(r"\s*(†|\(corresponding\))\s*", re.IGNORECASE)
EDITOR = re.compile(r"\s*\((?:editor|ed\.?)\)\s*$", re.IGNORECASE)
ET_AL = re.compile(r"^(?:et\s+al\.?|and\s+others|others)$", re.IGNORECASE)


def parse_authors(value: str) -> list[dict[str, Any]]:
    """One author per line; ``*`` after a name marks a co-first author, ``†`` or
    ``(corresponding)`` a corresponding author, ``(editor)`` an editor. A line "et al." is
    not an author (see :func:`authors_incomplete`)."""
    authors = []
    for raw in (value or "").splitlines():
        name = raw.strip()
        if not name or ET_AL.match(name):
            continue
        role = "editor" if EDITOR.search(name) else "author"
        name = EDITOR.sub("", name)
        corresponding = bool(CORRESPONDING.search(name))
        name = CORRESPONDING.sub(" ", name).strip()
        co_first = name.endswith("*")
        name = name.rstrip("*").strip()
        if name:
            authors.append(
                {"name": name, "co_first": co_first, "corresponding": corresponding, "role": role}
            )
    return authors


def authors_incomplete(value: str) -> bool:
    """Whether the author lines end in "et al." (the list is cut short)."""
    lines = [line.strip() for line in (value or "").splitlines() if line.strip()]
    return bool(lines) and ET_AL.match(lines[-1]) is not None


def format_authors(authorships: list[m.Authorship], incomplete: bool = False) -> str:
    lines = [
        a.name + ("*" if a.co_first else "") + (" †" if a.corresponding else "")
        + (" (editor)" if a.role == "editor" else "")
        for a in authorships
    ]  # fmt: skip
    if incomplete:
        lines.append("et al.")
    return "\n".join(lines)


_LINK_KIND_BY_WORD = {
    **{value: value for value, _ in m.PUBLICATION_LINK_KINDS},
    **{label.lower(): value for value, label in m.PUBLICATION_LINK_KINDS},
    "pdf": "paper",
}


def parse_links(value: str) -> list[dict[str, Any]]:
    """``URL`` (the paper itself) or ``Label | URL``; a label naming a known kind ("Code",
    "Slides") sets the kind, any other label is shown as written."""
    links = []
    for label, url in labelled_lines(value):
        kind = _LINK_KIND_BY_WORD.get(label.lower(), "other") if label else "paper"
        links.append({"kind": kind, "url": url, "label": label if kind == "other" else None})
    return links


def format_links(links: list[Any]) -> str:
    return "\n".join(
        f"{k.label or m.label(m.PUBLICATION_LINK_KINDS, k.kind)} | {k.url}" for k in links
    )


def parse_badges(value: str) -> list[dict[str, Any]]:
    """``Name`` or ``Issuer | Name`` per line."""
    return [{"name": name, "issuer": issuer or None} for issuer, name in labelled_lines(value)]


class PublicationForm(VersionedForm):
    title = text(_l("Title"), 1000, required=True)
    authors = TextAreaField(
        _l("Authors"),
        [Optional(), Length(max=20000)],
        description=_l(
            "One per line, in print order. Mark co-first authors with * and "
            "corresponding authors with † or (corresponding), editors with (editor); end with "
            "“et al.” when the list is incomplete. Leave empty when no author is known."
        ),
        render_kw={"rows": 5},
    )
    venue = text(_l("Venue"), 500, description=_l("e.g. USENIX OSDI 2025"))
    venue_short = text(_l("Short venue"), 60, description=_l("e.g. OSDI'25"))
    year = IntegerField(_l("Year"), YEAR)
    month = IntegerField(_l("Month"), MONTH)
    type = SelectField(_l("Type"), choices=vocab(m.PUBLICATION_TYPES), default="conference")
    status = SelectField(_l("Status"), choices=vocab(m.PUBLICATION_STATUSES), default="published")
    doi = StringField(
        _l("DOI"), [Optional(), Length(max=255)], description=_l("e.g. 10.1145/1234.5678")
    )
    arxiv_id = text(_l("arXiv id"), 40)
    pages = text(_l("Pages"), 40)
    note = TextAreaField(_l("Note"), [Optional(), Length(max=2000)], render_kw={"rows": 2})
    labels = text(_l("Labels"), 500, description=_l("Comma separated, e.g. CCF A, Oral"))
    links = TextAreaField(
        _l("Links"),
        [Optional(), Length(max=10000)],
        description=_l("One per line: a URL (the paper), or “Code | URL”, “Slides | URL”…"),
        render_kw={"rows": 3},
    )
    awards = TextAreaField(
        _l("Awards"),
        [Optional(), Length(max=4000)],
        description=_l("One per line, e.g. Best Paper Award"),
        render_kw={"rows": 2},
    )
    badges = TextAreaField(
        _l("Artifact badges"),
        [Optional(), Length(max=4000)],
        description=_l("One per line: “Artifacts Available” or “USENIX | Results Reproduced”."),
        render_kw={"rows": 2},
    )
    abstract = TextAreaField(_l("Abstract"), [Optional(), Length(max=20000)], render_kw={"rows": 4})
    visibility = SelectField(_l("Who sees this"), choices=vocab(m.VISIBILITIES), default="public")
    selected = BooleanField(_l("Show among my selected papers"))
    hidden = BooleanField(_l("Hide from my profile"))

    PLAIN = (
        "title", "venue", "venue_short", "year", "month", "type", "status", "doi", "arxiv_id",
        "pages", "note", "abstract", "visibility",
    )  # fmt: skip

    def validate_links(self, field: Any) -> None:
        for number, link in enumerate(parse_links(field.data), start=1):
            try:
                http_url(self, type("F", (), {"data": link["url"]})())
            except ValidationError:
                raise ValidationError(
                    _("Line %(number)s: enter a web address starting with https://.", number=number)
                ) from None

    def load(self, pub: m.Publication, row: m.ProfilePublication | None) -> None:
        for name in self.PLAIN:
            getattr(self, name).data = getattr(pub, name)
        self.authors.data = format_authors(pub.authorships, pub.authors_incomplete)
        self.labels.data = ", ".join(pub.labels or [])
        self.links.data = format_links(pub.links)
        self.awards.data = "\n".join(a.name for a in pub.awards)
        self.badges.data = "\n".join(
            f"{b.issuer} | {b.name}" if b.issuer else b.name for b in pub.badges
        )
        self.version.data = pub.version
        if row is not None:
            self.selected.data, self.hidden.data = row.selected, row.hidden

    def state(self, session: Session, previous: m.Publication | None) -> dict[str, Any]:
        """The publication as the form describes it, in the snapshot format (see
        :mod:`directory.services.snapshots`), so that saving, approvals and reverts share one
        path."""
        data: dict[str, Any] = {}
        for name in self.PLAIN:
            value = getattr(self, name).data
            data[name] = (value.strip() or None) if isinstance(value, str) else value
        data["title"] = data["title"] or ""
        data["labels"] = [x.strip() for x in (self.labels.data or "").split(",") if x.strip()]
        # A link made earlier (by hand or by the import), a suggestion and the name's parts
        # are kept for the same name.
        kept = {a.name: a for a in (previous.authorships if previous else [])}
        data["authors"] = []
        for a in parse_authors(self.authors.data):
            before = kept.get(a["name"])
            person_id = before.person_id if before else None
            author = {**a, "person_id": person_id or member_printed_as(session, a["name"])}
            if before is not None:
                author.update({part: getattr(before, part) for part in NAME_PARTS})
                if author["person_id"] is None:
                    author["suggested_person_id"] = before.suggested_person_id
                    author["suggestion_declined"] = before.suggestion_declined
            data["authors"].append(author)
        data["authors_incomplete"] = authors_incomplete(self.authors.data)
        data["links"] = parse_links(self.links.data)
        data["awards"] = [x.strip() for x in (self.awards.data or "").splitlines() if x.strip()]
        data["badges"] = parse_badges(self.badges.data)
        return data
