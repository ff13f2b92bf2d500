"""Plain-JSON states of editable records, for the history, approvals and reverts.

A *snapshot* holds every user-editable value of a record (its columns and the small lists that
belong to it, such as a person's links or a notice's areas), but no id, version or timestamp.
Applying a snapshot to a record makes it look as it did; a deleted record is re-created from
its last snapshot. Every editable kind goes through the same two functions.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import Date, DateTime, inspect, select
from sqlalchemy.orm import Session, object_session

from directory import models as m
from directory.i18n import translate
from directory.models.vocabularies import N_
from directory.services.kinds import DELEGATION, PERSON, PROJECTS, PUBLICATION, RECRUITING
from directory.services.publication_rows import (
    author_dicts,
    child_dicts,
    link_dicts,
    new_authorships,
    set_children,
)

#: Columns that belong to the database, not to the user (a person's stored name orders are
#: computed from the names on every write: write_gates.fill_name_keys).
_NOT_USER_DATA = {"id", "owner_id", "version", "created_at", "updated_at", "person_id",
                  "name_key", "name_key_zh"}  # fmt: skip


def _columns(model: type[m.Base]) -> list[Any]:
    return [c for c in inspect(model).columns if c.key not in _NOT_USER_DATA]


def edited_columns(obj: Any) -> list[str]:
    """The user-editable columns of ``obj`` changed in its session since the last flush (not
    its version, timestamps or stored name orders: those are the database's bookkeeping)."""
    attrs = inspect(obj).attrs
    return [c.key for c in _columns(type(obj)) if attrs[c.key].history.has_changes()]


def _to_json(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


def _from_json(column: Any, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(column.type, DateTime):
        return datetime.fromisoformat(value)
    if isinstance(column.type, Date):
        return date.fromisoformat(value)
    return value


def _listing_row(obj: m.Publication, person_id: int) -> m.ProfilePublication | None:
    session = object_session(obj)
    if obj.id is None or session is None:
        return None
    return session.get(m.ProfilePublication, (person_id, obj.id))


def _listing(obj: m.Publication, person_id: int) -> dict[str, Any] | None:
    """How ``person_id``'s profile lists the paper (None: not on the profile)."""
    row = _listing_row(obj, person_id)
    if row is None:
        return None
    return {"selected": row.selected, "hidden": row.hidden, "section": row.section,
            "position": row.position}  # fmt: skip


class KindState:
    """How the state of one kind of record is read and written beyond its columns: the small
    lists that belong to it. Each kind's behaviour lives in its own subclass."""

    def lists(self, obj: Any, person_id: int | None) -> dict[str, Any]:
        return {}

    def apply_lists(
        self, session: Session, obj: Any, state: dict[str, Any], person_id: int | None
    ) -> None:
        return None


class _PersonState(KindState):
    def lists(self, obj: Any, person_id: int | None) -> dict[str, Any]:
        photo = obj.photo
        return {
            "links": link_dicts(obj.links),
            "areas": sorted(a.id for a in obj.areas),
            # The image itself is not kept in the history (it can be large); its fingerprint
            # shows that it changed.
            "photo": None if photo is None else {"fingerprint": photo.etag,
                                                 "alt_text": photo.alt_text,
                                                 "focus": [photo.focus_x, photo.focus_y]},
        }  # fmt: skip

    def apply_lists(self, session, obj, state, person_id) -> None:
        if "links" in state:
            obj.links = [
                m.PersonLink(kind=k["kind"], url=k["url"], label=k.get("label"), position=i)
                for i, k in enumerate(state["links"])
            ]
        if "areas" in state:
            obj.areas = _existing_ids(session, m.ResearchArea, state["areas"])
        photo, wanted = obj.photo, state.get("photo")
        # The image is not in the history: what a state says about it (its description, its
        # focal point) applies only to the same image, never to another one uploaded since.
        if photo is not None and wanted and wanted.get("fingerprint") == photo.etag:
            photo.alt_text = wanted.get("alt_text")
            if wanted.get("focus"):
                photo.focus_x, photo.focus_y = wanted["focus"]


class _NoticeState(KindState):
    def lists(self, obj: Any, person_id: int | None) -> dict[str, Any]:
        return {"areas": sorted(a.id for a in obj.areas)}

    def apply_lists(self, session, obj, state, person_id) -> None:
        if "areas" in state:
            obj.areas = _existing_ids(session, m.ResearchArea, state["areas"])


class _ProjectState(KindState):
    def lists(self, obj: Any, person_id: int | None) -> dict[str, Any]:
        return {"publications": sorted(p.id for p in obj.publications)}

    def apply_lists(self, session, obj, state, person_id) -> None:
        if "publications" in state:
            obj.publications = _existing_ids(session, m.Publication, state["publications"])


class _PublicationState(KindState):
    """A paper's authors, links, awards and badges and, when it is changed on a profile, how
    that profile lists it ("listing": selected, hidden, section, position; None when the
    paper is not on the profile)."""

    def lists(self, obj: Any, person_id: int | None) -> dict[str, Any]:
        data = {"authors": author_dicts(obj, lambda a: a.person_id, "person_id",
                                        lambda a: a.suggested_person_id, "suggested_person_id"),
                **child_dicts(obj)}  # fmt: skip
        if person_id is not None:
            data["listing"] = _listing(obj, person_id)
        return data

    def apply_lists(self, session, obj, state, person_id) -> None:
        if "authors" in state:
            people = {p.id for p in _existing_ids(
                session, m.Person, [pid for a in state["authors"]
                                    for pid in (a["person_id"], a.get("suggested_person_id"))
                                    if pid]
            )}  # fmt: skip
            obj.authorships = []
            session.flush()  # positions are unique per paper: clear the old rows first
            obj.authorships = new_authorships(
                state["authors"],
                lambda pid: pid if pid in people else None,
                "person_id",
                "suggested_person_id",
            )
        set_children(obj, state)
        if "listing" in state and person_id is not None:
            _apply_listing(session, obj, person_id, state["listing"])


class _DelegationState(KindState):
    def lists(self, obj: Any, person_id: int | None) -> dict[str, Any]:
        # For the history's description only; applying a snapshot sets the delegate's id.
        return {"delegate": obj.delegate.full_name if obj.delegate is not None else None}


_PLAIN = KindState()
_STATES: dict[str, KindState] = {
    PERSON: _PersonState(),
    PUBLICATION: _PublicationState(),
    DELEGATION: _DelegationState(),
    RECRUITING: _NoticeState(),
    PROJECTS: _ProjectState(),
}


def snapshot(kind: str, obj: Any, person_id: int | None = None) -> dict[str, Any]:
    """Every user-editable value of ``obj`` as JSON-ready data: its columns and the lists
    that belong to it (see :class:`KindState`)."""
    data = {c.key: _to_json(getattr(obj, c.key)) for c in _columns(type(obj))}
    data.update(_STATES.get(kind, _PLAIN).lists(obj, person_id))
    return data


def _existing_ids(session: Session, model: type[m.Base], ids: list[int]) -> list[Any]:
    if not ids:
        return []
    return list(session.scalars(select(model).where(model.id.in_(ids)).order_by(model.id)))


def apply_snapshot(
    session: Session, kind: str, obj: Any, state: dict[str, Any], person_id: int | None = None
) -> None:
    """Make ``obj`` hold the values of ``state`` (keys it lacks are left alone). References to
    records that no longer exist (a deleted area or person) are dropped, not invented. A
    publication's "listing" puts it on, changes it on, or takes it off ``person_id``'s
    profile."""
    for column in _columns(type(obj)):
        if column.key in state:
            setattr(obj, column.key, _from_json(column, state[column.key]))
    _STATES.get(kind, _PLAIN).apply_lists(session, obj, state, person_id)


def _apply_listing(
    session: Session, pub: m.Publication, person_id: int, listing: dict[str, Any] | None
) -> None:
    if pub.id is None:
        session.add(pub)
        session.flush()
    row = _listing_row(pub, person_id)
    if listing is None:
        if row is not None:
            session.delete(row)
        return
    if row is None:
        row = m.ProfilePublication(person_id=person_id, publication_id=pub.id)
        session.add(row)
    for key in ("selected", "hidden", "section", "position"):
        if key in listing:
            setattr(row, key, listing[key])


#: How the history and the approval queue name each field of a snapshot: one table, every
#: label marked for translation (the pages translate it where shown); a field not listed is
#: named after its key, humanised.
FIELD_LABELS = {
    "abstract": N_("Abstract"),
    "active": N_("Active"),
    "address": N_("Address"),
    "advisor_confirmed": N_("Advisor confirmed"),
    "advisor_id": N_("Advisor"),
    "advisor_name": N_("Advisor (outside the department)"),
    "advisors": N_("Advisors"),
    "alt_text": N_("Photo description"),
    "archived": N_("Under “older news”"),
    "areas": N_("Research areas"),
    "article": N_("Article number"),
    "arxiv_id": N_("arXiv id"),
    "authors": N_("Authors"),
    "bibtex": N_("BibTeX"),
    "bio": N_("Biography"),
    "body": N_("Text"),
    "citation_key": N_("Citation key"),
    "course_code": N_("Course code"),
    "created_by_id": N_("Created by"),
    "day": N_("Day"),
    "deadline": N_("Apply by"),
    "degree": N_("Degree"),
    "delegate": N_("Delegate"),
    "delegate_id": N_("Delegate"),
    "description": N_("Description"),
    "doi": N_("DOI"),
    "email": N_("Email"),
    "end_month": N_("End month"),
    "end_year": N_("End year"),
    "expires_on": N_("Take down on"),
    "field": N_("Field"),
    "full_name": N_("Name"),
    "funded": N_("Funded positions"),
    "funder": N_("Funder"),
    "funding_note": N_("Funding"),
    "giver": N_("Given by"),
    "grant_number": N_("Grant number"),
    "hidden": N_("Hidden"),
    "hosts": N_("Hosts"),
    "hosts_label": N_("Introduce hosts as"),
    "how_to_apply": N_("How to apply"),
    "institution": N_("Institution"),
    "interests": N_("Research interests"),
    "is_current": N_("Ongoing"),
    "kind": N_("Kind"),
    "label": N_("Label"),
    "labels": N_("Labels"),
    "last_confirmed": N_("Last confirmed"),
    "level": N_("Recruiting"),
    "links": N_("Links"),
    "listing": N_("On this profile"),
    "location": N_("Location"),
    "month": N_("Month"),
    "name": N_("Name"),
    "name_variants": N_("Other spellings as an author"),
    "orcid": N_("ORCID iD"),
    "dblp_pid": N_("DBLP pid"),
    "openalex_id": N_("OpenAlex author id"),
    "semantic_scholar_id": N_("Semantic Scholar author id"),
    "native_name": N_("Name in its own script"),
    "note": N_("Note"),
    "number": N_("Issue"),
    "office": N_("Office"),
    "organisation": N_("Organisation"),
    "pages": N_("Pages"),
    "parent_id": N_("Part of"),
    "phone": N_("Phone"),
    "photo": N_("Photo"),
    "place": N_("Place"),
    "placement": N_("Placement"),
    "position": N_("Place in the list"),
    "projects": N_("Research projects"),
    "pronouns": N_("Pronouns"),
    "publication_id": N_("Paper"),
    "publications": N_("Papers"),
    "publisher": N_("Publisher"),
    "rank": N_("Faculty rank"),
    "recruiting": N_("Recruiting"),
    "role": N_("Role"),
    "section": N_("Section"),
    "section_intros": N_("Section introductions"),
    "selected": N_("Selected"),
    "slug": N_("Address (slug)"),
    "sort_name": N_("Sorted as"),
    "start_month": N_("Start month"),
    "start_year": N_("Start year"),
    "status": N_("Status"),
    "student_confirmed": N_("Student confirmed"),
    "student_id": N_("Student"),
    "student_name": N_("Student (outside the department)"),
    "summary": N_("Summary"),
    "term": N_("Start (as written)"),
    "term_season": N_("Start (season)"),
    "term_year": N_("Start (year)"),
    "thesis": N_("Thesis"),
    "thesis_url": N_("Thesis link"),
    "title": N_("Title"),
    "title_translation": N_("Translation"),
    "type": N_("Kind"),
    "uid": N_("Record id"),
    "unit": N_("Unit"),
    "url": N_("Link"),
    "user_key": N_("Sign-in account"),
    "venue": N_("Venue"),
    "venue_short": N_("Venue (short)"),
    "visibility": N_("Who sees this"),
    "volume": N_("Volume"),
    "year": N_("Year"),
}


def _humanise(name: str) -> str:
    return FIELD_LABELS.get(name) or name.replace("_", " ").capitalize()


def diff(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The fields that differ between two states, in a stable order, for display."""
    before, after = before or {}, after or {}
    rows = []
    for key in list(dict.fromkeys([*before, *after])):
        old, new = before.get(key), after.get(key)
        if old != new and not (old in (None, "", []) and new in (None, "", [])):
            rows.append({"field": key, "label": _humanise(key), "before": old, "after": new})
    return rows


# ----------------------------------------------------------------------------- in people's words

#: Values of a state that belong to the database, not to what a person reads: never shown in
#: the history or the approval queue (a paper's uid, who created a record).
HIDDEN_FIELDS = {"uid", "created_by_id"}

#: Fields holding a month's number (1 to 12), shown by its name.
_MONTH_FIELDS = {"month", "start_month", "end_month"}

#: Fields holding a vocabulary's value, by kind (None: any kind), shown by their labels; an
#: entry kind's own are in its declaration (``EntryKind.vocabularies``).
_VOCABULARIES: dict[tuple[str | None, str], tuple[tuple[str, str], ...]] = {
    (None, "visibility"): m.VISIBILITIES,
    ("person", "role"): m.ROLES,
    ("person", "rank"): m.FACULTY_RANKS,
    ("publication", "type"): m.PUBLICATION_TYPES,
    ("publication", "status"): m.PUBLICATION_STATUSES,
}

#: Fields naming other records by id, and the model and column that name them for a person.
_REFERENCES: dict[tuple[str | None, str], tuple[type[m.Base], str]] = {
    (None, "advisor_id"): (m.Person, "full_name"),
    (None, "student_id"): (m.Person, "full_name"),
    (None, "delegate_id"): (m.Person, "full_name"),
    (None, "publication_id"): (m.Publication, "title"),
    (None, "publications"): (m.Publication, "title"),
    (None, "areas"): (m.ResearchArea, "name"),
    ("projects", "parent_id"): (m.ResearchProject, "title"),
    ("area", "parent_id"): (m.ResearchArea, "name"),
}


def field_label(name: str, kind: str | None = None) -> str:
    """How a field of a state is named to people ("Research interests", "Advisor"); a field
    of an entry kind that declares a label for it (``EntryKind.labels``) by that label."""
    declared = m.ENTRY_KINDS.get(kind or "")
    if declared is not None and name in declared.labels:
        return declared.labels[name]
    return FIELD_LABELS.get(name) or _humanise(name)


def _lookup(table: dict, kind: str, name: str) -> Any:
    return table.get((kind, name)) or table.get((None, name))


def _vocabulary(kind: str, name: str) -> tuple[tuple[str, str], ...] | None:
    """The vocabulary of a field: the entry kind's declared one, else :data:`_VOCABULARIES`."""
    declared = m.ENTRY_KINDS.get(kind)
    if declared is not None and name in declared.vocabularies:
        return declared.vocabularies[name]
    return _lookup(_VOCABULARIES, kind, name)


def readable_rows(session: Session, kind: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """:func:`diff` rows as a person reads them: internal fields left out, fields named by
    their labels, ids by the names of what they point at (one query per kind of record),
    vocabulary values by their labels, a paper's authors and links as text. The raw values
    stay under ``raw_before`` and ``raw_after``."""
    rows = [row for row in rows if row["field"] not in HIDDEN_FIELDS]
    wanted: dict[tuple[type[m.Base], str], set[int]] = {}
    for row in rows:
        reference = _lookup(_REFERENCES, kind, row["field"])
        if reference is None:
            continue
        for value in (row["before"], row["after"]):
            ids = value if isinstance(value, list) else [value]
            wanted.setdefault(reference, set()).update(i for i in ids if isinstance(i, int))
    names: dict[tuple[type[m.Base], str], dict[int, str]] = {}
    for (model, column), ids in wanted.items():
        found = session.execute(select(model.id, getattr(model, column)).where(model.id.in_(ids)))
        names[(model, column)] = dict(found.all())

    def show(name: str, value: Any) -> Any:
        if value in (None, "", []):
            return value
        reference = _lookup(_REFERENCES, kind, name)
        if reference is not None:
            known = names.get(reference, {})
            if isinstance(value, list):
                return [known.get(i, "(deleted)") for i in value]
            return known.get(value, "(deleted)")
        vocabulary = _vocabulary(kind, name)
        if vocabulary is not None:
            return translate(m.label(vocabulary, value))
        if name in _MONTH_FIELDS and isinstance(value, int) and 1 <= value <= 12:
            return translate(m.MONTHS[value - 1])
        if name == "authors":
            return [_author_text(a) for a in value]
        if name == "links":
            return [f"{k.get('label') or m.label(m.PERSON_LINK_KINDS, k.get('kind'))}: {k['url']}"
                    if isinstance(k, dict) else k for k in value]  # fmt: skip
        if name == "badges":
            return [f"{b['name']} ({b['issuer']})" if b.get("issuer") else b["name"] for b in value]
        if name == "listing":
            return _listing_text(value)
        if name == "section_intros" and isinstance(value, dict):
            return {field_label(k): v for k, v in value.items()}
        return value

    return [
        {
            **row,
            "label": field_label(row["field"], kind),
            "before": show(row["field"], row["before"]),
            "after": show(row["field"], row["after"]),
            "raw_before": row["before"],
            "raw_after": row["after"],
        }
        for row in rows
    ]


def _author_text(author: Any) -> str:
    if not isinstance(author, dict):
        return str(author)
    notes = [word for key, word in (("co_first", "co-first"), ("corresponding", "corresponding"))
             if author.get(key)]  # fmt: skip
    return author.get("name", "") + (f" ({', '.join(notes)})" if notes else "")


def _listing_text(listing: Any) -> str:
    if not isinstance(listing, dict):
        return str(listing)
    parts = ["hidden" if listing.get("hidden") else "shown"]
    if listing.get("selected"):
        parts.append("selected")
    if listing.get("section"):
        parts.append(f"under “{listing['section']}”")
    return ", ".join(parts)


_TITLE_FIELDS = (
    "full_name", "title", "degree", "venue", "funder", "body", "student_name", "advisor_name",
    "level",
)  # fmt: skip


def describe(kind: str, state: dict[str, Any] | None) -> str:
    """A short description of a record from its state ("Paper accepted at OSDI")."""
    state = state or {}
    for key in _TITLE_FIELDS:
        value = state.get(key)
        if value:
            text = " ".join(str(value).split())
            return text if len(text) <= 80 else text[:79] + "…"
    return ""
