"""The interchange format: one JSON document per profile (schema in
``directory/schema/profile.schema.json``, described in docs/interchange.md).

It is the import, export and backup format. :func:`import_documents` checks *everything*
first and writes nothing unless every document is valid; it only flushes, the caller commits.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
from dataclasses import dataclass, field
from datetime import date
from functools import cache, lru_cache, partial
from importlib import resources
from typing import Any

import jsonschema
from sqlalchemy import Boolean, Date, Integer, delete, func, or_, select
from sqlalchemy.orm import Session, selectinload

from directory import models as m
from directory.formats.identifiers import arxiv_problem
from directory.formats.names import make_slug, sort_name
from directory.formats.placements import structure_placement
from directory.services.claims import queue as claim_queue
from directory.services.person_identifiers import (
    identifier_problems,
    identifiers_of,
    read_identifiers,
    set_identifiers,
)
from directory.services.photos import photo_from_bytes
from directory.services.publication_rows import author_dicts, new_authorships, set_children

FORMAT = "faculty-directory-profile"
FORMAT_VERSION = 1

#: The entry kinds the document writes with code of their own (links to papers, people and
#: areas, nesting); every other declared kind's fields map one-to-one onto columns.
LINKED_KINDS = ("awards", "projects", "advising", "recruiting")
DATE_FIELDS = {"last_confirmed", "deadline", "expires_on"}
PERSON_FIELDS = (
    "slug", "full_name", "sort_name", "native_name", "name_variants", "role", "rank", "title",
    "unit", "institution", "email", "office", "address", "phone", "pronouns", "interests", "bio",
    "section_intros", "last_confirmed", "user_key", "active", "published", "visibility",
    "repeat_selected", "unpublished_in_year", "cv_sections",
)  # fmt: skip
PUBLICATION_FIELDS = (
    "uid", "title", "venue", "venue_short", "year", "month", "type", "status", "abstract", "doi",
    "arxiv_id", "volume", "number", "pages", "article", "publisher", "location", "note", "labels",
    "citation_key", "bibtex", "visibility", "authors_incomplete",
)  # fmt: skip


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an import, located by file and JSON path."""

    source: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.path}: {self.message}"


class ImportRefused(Exception):
    """Raised with every problem found; nothing has been written."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


@dataclass
class ImportResult:
    people: list[m.Person] = field(default_factory=list)
    created: int = 0
    updated: int = 0
    publications_created: int = 0
    publications_matched: int = 0
    notes: list[str] = field(default_factory=list)


@cache
def _shipped_schema() -> dict[str, Any]:
    text = resources.files("directory").joinpath("schema/profile.schema.json").read_text("utf-8")
    return json.loads(text)


def schema() -> dict[str, Any]:
    """The JSON Schema of one profile document: the shipped file, its entry definitions
    made from the declared kinds (a test checks that the file holds the same)."""
    return _schema_of(tuple(m.ENTRY_KINDS.values()))


@lru_cache(maxsize=4)  # the declared kinds change only in a test (its throwaway kind)
def _schema_of(kinds: tuple[m.EntryKind, ...]) -> dict[str, Any]:
    doc = copy.deepcopy(_shipped_schema())
    for kind in kinds:
        ref = {"$ref": f"#/$defs/{kind.document_name}"}
        doc["properties"][kind.name] = {"type": "array", "items": ref}
        doc["$defs"][kind.document_name] = entry_definition(kind)
    cv_sections = doc["$defs"]["person"]["properties"]["cv_sections"]
    cv_sections["items"]["enum"] = [name for name, _ in m.CV_SECTIONS]
    return doc


def schema_text() -> str:
    """:func:`schema` as ``directory/schema/profile.schema.json`` holds it
    (``scripts/write_profile_schema.py`` writes it there)."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def simple_kinds() -> list[m.EntryKind]:
    """The declared kinds whose document fields map one-to-one onto columns."""
    return [kind for kind in m.ENTRY_KINDS.values() if kind.name not in LINKED_KINDS]


def document_fields(kind: m.EntryKind) -> tuple[str, ...]:
    """The columns an entry of ``kind`` carries in the document, in its order."""
    return (*kind.fields, *kind.backup_fields, "visibility")


URL_PATTERN = "^(https?://|mailto:)"
DATE_PATTERN = "^\\d{4}-\\d{2}-\\d{2}$"
#: The values of whole-number fields, by how their names end.
NUMBER_RANGES = {"year": (1900, 2200), "month": (1, 12), "day": (1, 31)}

#: What the document's entries hold besides their columns (references by ref or slug,
#: nesting), by kind.
LINKED_PROPERTIES: dict[str, dict[str, Any]] = {
    "awards": {
        "publication": {
            "type": ["string", "null"],
            "description": "ref of a publication in this document",
        }
    },
    "projects": {
        "publications": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 200},
            "description": "refs of publications in this document",
        },
        "children": {"type": "array", "items": {"$ref": "#/$defs/project"}},
    },
    "advising": {
        side: {"anyOf": [{"$ref": "#/$defs/slug"}, {"type": "null"}]}
        for side in ("advisor", "student")
    },
    "recruiting": {
        "areas": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 120}}
    },
}

#: Descriptions of fields whose meaning their name does not tell, by (kind, field).
FIELD_DESCRIPTIONS = {
    **{
        ("advising", f"{side}_confirmed"): (
            f"Whether the {side} has confirmed the relation (default: true); it is shown once "
            "both sides have."
        )
        for side in ("advisor", "student")
    },
    ("recruiting", "term_season"): (
        "The intake's season, with term_year; both null (or absent) for a rolling notice, open "
        "to any intake."
    ),
    ("recruiting", "term"): (
        "The intake as text (documents before term_season and term_year): read as a season "
        'and year when it names one ("Fall 2027", "2027 fall"; empty or "rolling": rolling), '
        "else kept as written and flagged to the owner."
    ),
}


def _column_schema(kind: m.EntryKind, name: str) -> dict[str, Any]:
    """The JSON Schema of one column of an entry: its vocabulary, or its type, with the
    column's limits (a ``String(n)``'s length) and the ranges of years, months and days."""
    column = kind.model.__table__.columns[name]
    nullable = column.nullable
    out: dict[str, Any]
    if name in kind.vocabularies:
        out = {"enum": [*m.values(kind.vocabularies[name]), *([None] if nullable else [])]}
    elif isinstance(column.type, Boolean):
        out = {"type": "boolean"}
    elif isinstance(column.type, Integer):
        out = {"type": ["integer", "null"] if nullable else "integer"}
        low, high = next(r for end, r in NUMBER_RANGES.items() if name.endswith(end))
        out.update(minimum=low, maximum=high)
    elif isinstance(column.type, Date):
        out = {"type": ["string", "null"], "format": "date", "pattern": DATE_PATTERN}
    else:
        out = {"type": ["string", "null"] if nullable else "string"}
        if not nullable:
            out["minLength"] = 1
        if kind.max_length(name):
            out["maxLength"] = kind.max_length(name)
        if name == "url" or name.endswith("_url"):
            out["pattern"] = URL_PATTERN
    if (kind.name, name) in FIELD_DESCRIPTIONS:
        out["description"] = FIELD_DESCRIPTIONS[(kind.name, name)]
    return out


def entry_definition(kind: m.EntryKind) -> dict[str, Any]:
    """The JSON Schema of one entry of ``kind`` in the document, from its declaration: its
    fields (required: those the column needs and has no default for), its visibility, and
    what it links to."""
    columns = kind.model.__table__.columns
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [
            name
            for name in (*kind.fields, *kind.backup_fields)
            if not columns[name].nullable and columns[name].default is None
        ],
        "properties": {
            **{name: _column_schema(kind, name) for name in (*kind.fields, *kind.backup_fields)},
            "visibility": {"$ref": "#/$defs/visibility"},
            **LINKED_PROPERTIES.get(kind.name, {}),
        },
    }


def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(), format_checker=jsonschema.FormatChecker())


def _walk_projects(projects: list[dict], path: str):
    for i, project in enumerate(projects):
        here = f"{path}[{i}]"
        yield here, project
        yield from _walk_projects(project.get("children", []), f"{here}.children")


def document_slug(doc: dict[str, Any]) -> str:
    person = doc["person"]
    return person.get("slug") or make_slug(person["full_name"])


def validate_document(doc: Any, source: str) -> list[Problem]:
    """Every problem in one document: schema violations, then references that don't resolve."""
    problems = [
        Problem(source, error.json_path, error.message)
        for error in sorted(_validator().iter_errors(doc), key=lambda e: e.json_path)
    ]
    if problems or not isinstance(doc, dict):
        return problems
    refs: dict[str, str] = {}
    for i, pub in enumerate(doc.get("publications", [])):
        if pub["ref"] in refs:
            problems.append(
                Problem(source, f"$.publications[{i}].ref", f"ref {pub['ref']!r} is used twice")
            )
        refs[pub["ref"]] = f"$.publications[{i}]"
    problems += _identifier_problems(doc.get("publications", []), source)

    def check_ref(ref: str | None, path: str) -> None:
        if ref is not None and ref not in refs:
            problems.append(Problem(source, path, f"no publication with ref {ref!r} in this file"))

    for path, project in _walk_projects(doc.get("projects", []), "$.projects"):
        listed: set[str] = set()
        for j, ref in enumerate(project.get("publications", [])):
            check_ref(ref, f"{path}.publications[{j}]")
            if ref in listed:
                problems.append(
                    Problem(source, f"{path}.publications[{j}]", f"ref {ref!r} is listed twice")
                )
            listed.add(ref)
    for i, award in enumerate(doc.get("awards", [])):
        check_ref(award.get("publication"), f"$.awards[{i}].publication")
    for i, pub in enumerate(doc.get("publications", [])):
        for j, rel in enumerate(pub.get("relations", [])):
            check_ref(rel["target"], f"$.publications[{i}].relations[{j}].target")
    slug = document_slug(doc)
    for i, rel in enumerate(doc.get("advising", [])):
        path = f"$.advising[{i}]"
        if not (rel.get("advisor") or rel.get("advisor_name")):
            problems.append(Problem(source, path, "needs an advisor (slug) or an advisor_name"))
        if not (rel.get("student") or rel.get("student_name")):
            problems.append(Problem(source, path, "needs a student (slug) or a student_name"))
        if slug not in (rel.get("advisor"), rel.get("student")):
            problems.append(
                Problem(
                    source, path, f"the profile's own person ({slug}) must be advisor or student"
                )
            )
    for i, notice in enumerate(doc.get("recruiting", [])):
        if (notice.get("term_season") is None) != (notice.get("term_year") is None):
            problems.append(
                Problem(
                    source,
                    f"$.recruiting[{i}]",
                    "term_season and term_year go together (both null for a rolling notice)",
                )
            )
    for key, message in identifier_problems(doc["person"].get("identifiers") or {}).items():
        problems.append(Problem(source, f"$.person.identifiers.{key}", message))
    photo = doc["person"].get("photo")
    if photo:
        try:
            base64.b64decode(photo["data_base64"], validate=True)
        except (binascii.Error, ValueError):
            problems.append(Problem(source, "$.person.photo.data_base64", "is not valid base64"))
    return problems


#: The unique identifiers of a paper in a document: (field, its name in messages).
UNIQUE_IDENTIFIERS = (("uid", "record id"), ("doi", "DOI"), ("arxiv_id", "arXiv id"))


def _identifier_key(name: str, value: str) -> str:
    return value.lower() if name == "doi" else value


def _identifier_problems(publications: list[dict[str, Any]], source: str) -> list[Problem]:
    """An arXiv id that is none, and two publications of one document with one unique
    identifier (one paper is one entry of a profile)."""
    problems = []
    holders: dict[tuple[str, str], int] = {}
    for i, pub in enumerate(publications):
        if pub.get("arxiv_id") and (problem := arxiv_problem(pub["arxiv_id"])):
            problems.append(Problem(source, f"$.publications[{i}].arxiv_id", problem))
        for name, words in UNIQUE_IDENTIFIERS:
            if not pub.get(name):
                continue
            key = (name, _identifier_key(name, pub[name]))
            if key in holders:
                first = holders[key]
                problems.append(
                    Problem(
                        source, f"$.publications[{i}].{name}",
                        f"the {words} {pub[name]} is also publications[{first}]'s "
                        f"(ref {publications[first]['ref']!r}): one paper is one entry",
                    )
                )  # fmt: skip
            holders.setdefault(key, i)
    return problems


def _as_date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def _copy_fields(obj: Any, data: dict[str, Any], names: list[str] | tuple[str, ...]) -> None:
    for name in names:
        if name in data:
            value = data[name]
            setattr(obj, name, _as_date(value) if name in DATE_FIELDS else value)


class _Importer:
    """Writes validated documents. People first (so that every slug resolves), then entries."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.result = ImportResult()
        #: People whose own document is in this import: it says what they list.
        self.own_documents: set[int] = set()
        self.people: dict[str, m.Person] = {}
        self.areas: dict[str, m.ResearchArea] = {
            area.name.casefold(): area for area in session.scalars(select(m.ResearchArea))
        }

    def area(self, name: str) -> m.ResearchArea:
        key = name.casefold()
        if key not in self.areas:
            slug = make_slug(name)
            existing = self.session.scalar(
                select(m.ResearchArea).where(m.ResearchArea.slug == slug)
            )
            self.areas[key] = existing or m.ResearchArea(slug=slug, name=name)
            self.session.add(self.areas[key])
        return self.areas[key]

    def person_id_by_slug(self, slug: str | None) -> int | None:
        person = self.person_by_slug(slug)
        return person.id if person is not None else None

    def person_by_slug(self, slug: str | None) -> m.Person | None:
        if not slug:
            return None
        if slug not in self.people:
            found = self.session.scalar(select(m.Person).where(m.Person.slug == slug))
            if found is None:
                return None
            self.people[slug] = found
        return self.people[slug]

    def upsert_person(self, doc: dict[str, Any]) -> m.Person:
        data = dict(doc["person"])
        data["slug"] = document_slug(doc)
        data.setdefault("sort_name", None)
        if not data["sort_name"]:
            data["sort_name"] = sort_name(data["full_name"])
        person = self.person_by_slug(data["slug"])
        if person is None:
            person = m.Person(slug=data["slug"], full_name=data["full_name"], role=data["role"])
            self.session.add(person)
            self.result.created += 1
        else:
            self.result.updated += 1
        _copy_fields(person, data, PERSON_FIELDS)
        if "identifiers" in data:
            set_identifiers(person, read_identifiers(data["identifiers"]))
        person.links = [
            m.PersonLink(kind=link["kind"], url=link["url"], label=link.get("label"), position=i)
            for i, link in enumerate(data.get("links", []))
        ]
        person.areas = [self.area(name) for name in data.get("areas", [])]
        photo = data.get("photo")
        if photo:
            person.photo = photo_from_bytes(
                base64.b64decode(photo["data_base64"]), alt_text=photo.get("alt_text")
            )
            if photo.get("focus"):
                person.photo.focus_x, person.photo.focus_y = photo["focus"]
        elif "photo" in data:
            person.photo = None
        self.people[person.slug] = person
        self.result.people.append(person)
        return person

    def clear_entries(self, person: m.Person) -> None:
        """A document is the whole profile: the person's own entries are replaced."""
        for model in m.ENTRY_MODELS.values():
            if model is m.ResearchProject:
                continue
            self.session.execute(delete(model).where(model.owner_id == person.id))
        # Children before parents (self-referencing rows).
        projects = self.session.scalars(
            select(m.ResearchProject).where(m.ResearchProject.owner_id == person.id)
        ).all()
        for project in sorted(projects, key=lambda p: p.parent_id is None):
            self.session.delete(project)
        self.session.execute(
            delete(m.ProfilePublication).where(m.ProfilePublication.person_id == person.id)
        )
        self.session.flush()

    def match_publication(self, owner: m.Person, data: dict[str, Any]) -> m.Publication | None:
        """The same paper already in the directory: by uid, DOI or arXiv id; failing those, a
        paper of the owner's with the same title and year (so re-importing adds nothing)."""
        conditions = []
        if data.get("uid"):
            conditions.append(m.Publication.uid == data["uid"])
        if data.get("doi"):
            conditions.append(m.Publication.doi == data["doi"].lower())
        if data.get("arxiv_id"):
            conditions.append(m.Publication.arxiv_id == data["arxiv_id"])
        if conditions:
            found = self.session.scalars(
                select(m.Publication).where(or_(*conditions)).order_by(m.Publication.id)
            ).first()
            if found is not None:
                return found
        if data.get("doi") or data.get("uid"):
            return None
        candidates = self.session.scalars(
            select(m.Publication)
            .join(m.Authorship)
            .where(
                m.Authorship.person_id == owner.id,
                func.lower(m.Publication.title) == data["title"].lower(),
                m.Publication.year.is_(None)
                if data.get("year") is None
                else m.Publication.year == data["year"],
            )
            .order_by(m.Publication.id)
        )
        return candidates.first()

    def identifier_conflict(self, pub: m.Publication | None, data: dict[str, Any]) -> str | None:
        """What is wrong when ``data``'s unique identifiers belong to another paper than the
        one it is written to (``pub``; None: a new one)."""
        paper = m.Publication
        for name, words in UNIQUE_IDENTIFIERS:
            value = data.get(name)
            if not value:
                continue
            column = func.lower(paper.doi) if name == "doi" else getattr(paper, name)
            other = self.session.scalars(
                select(paper).where(column == _identifier_key(name, value)).order_by(paper.id)
            ).first()
            if other is not None and other is not pub:
                this = f"matches “{pub.title}”" if pub is not None else "is a new paper"
                return (
                    f"the {words} {value} is the stored paper “{other.title}”'s, and this "
                    f"entry {this} by its other identifiers or title: correct the document"
                )
        return None

    def write_publication(
        self, owner: m.Person, data: dict[str, Any], where: tuple[str, str] = ("", "")
    ) -> m.Publication:
        pub = self.match_publication(owner, data)
        conflict = self.identifier_conflict(pub, data)
        if conflict:  # raised before anything of it is written; the unit rolls back the rest
            raise ImportRefused([Problem(where[0], where[1], conflict)])
        if pub is None:
            pub = m.Publication(title=data["title"], created_by_id=owner.id)
            self.session.add(pub)
            self.result.publications_created += 1
        else:
            self.result.publications_matched += 1
            # Old rows go first: the new ones reuse their (publication, position) keys.
            for collection in (pub.authorships, pub.links, pub.awards, pub.badges):
                collection.clear()
            self.session.flush()
        _copy_fields(pub, data, PUBLICATION_FIELDS)
        if pub.doi:
            pub.doi = pub.doi.lower()
        pub.authorships = new_authorships(data["authors"], self.person_id_by_slug)
        set_children(pub, {key: data.get(key, []) for key in ("links", "awards", "badges")})
        self.session.flush()
        return pub

    def import_document(self, doc: dict[str, Any], person: m.Person, source: str = "") -> None:
        self.clear_entries(person)
        session = self.session
        for kind in simple_kinds():
            for i, data in enumerate(doc.get(kind.name, [])):
                entry = kind.model(owner_id=person.id, position=i)
                _copy_fields(entry, data, document_fields(kind))
                session.add(entry)

        pubs: dict[str, m.Publication] = {}
        for position, data in enumerate(doc.get("publications", [])):
            pub = self.write_publication(person, data, (source, f"$.publications[{position}]"))
            pubs[data["ref"]] = pub
            session.add(
                m.ProfilePublication(
                    person_id=person.id,
                    publication_id=pub.id,
                    selected=data.get("selected", False),
                    hidden=data.get("hidden", False),
                    section=data.get("section"),
                    position=position,
                )
            )
        for data in doc.get("publications", []):
            pub = pubs[data["ref"]]
            pub.relations = [
                m.PublicationRelation(kind=rel["kind"], target=pubs[rel["target"]])
                for rel in data.get("relations", [])
            ]
        session.flush()
        # Authors named by slug are the document's statement, by the directory's identifier.
        claim_queue.list_for_named_members(session, [pub.id for pub in pubs.values()],
                                           except_people=self.own_documents)  # fmt: skip

        award_fields = document_fields(m.ENTRY_KINDS["awards"])
        for i, data in enumerate(doc.get("awards", [])):
            award = m.Award(owner_id=person.id, position=i)
            _copy_fields(award, data, award_fields)
            if data.get("publication"):
                award.publication = pubs[data["publication"]]
            session.add(award)

        project_fields = document_fields(m.ENTRY_KINDS["projects"])

        def add_projects(items: list[dict], parent: m.ResearchProject | None) -> None:
            for i, data in enumerate(items):
                project = m.ResearchProject(owner_id=person.id, position=i, parent=parent)
                _copy_fields(project, data, project_fields)
                project.publications = [pubs[ref] for ref in data.get("publications", [])]
                session.add(project)
                add_projects(data.get("children", []), project)

        add_projects(doc.get("projects", []), None)

        advising_fields = document_fields(m.ENTRY_KINDS["advising"])
        for i, data in enumerate(doc.get("advising", [])):
            rel = m.AdvisingRelation(owner_id=person.id, position=i)
            _copy_fields(rel, data, advising_fields)
            # A document without the placement's structure (older ones): read from its text.
            structure_placement(rel)
            for side in ("advisor", "student"):
                other = self.person_by_slug(data.get(side))
                setattr(rel, side, other)
                if data.get(side) and other is None:
                    self.result.notes.append(
                        f"{person.slug}: advising {side} {data[side]!r} is not in the directory; "
                        "kept as a name"
                    )
                    if not data.get(f"{side}_name"):
                        setattr(rel, f"{side}_name", data[side])
            session.add(rel)

        notice_fields = document_fields(m.ENTRY_KINDS["recruiting"])
        for i, data in enumerate(doc.get("recruiting", [])):
            notice = m.RecruitingNotice(owner_id=person.id, position=i)
            _copy_fields(notice, data, notice_fields)
            self.read_term(person, notice, data)
            notice.areas = [self.area(name) for name in data.get("areas", [])]
            session.add(notice)
        session.flush()

    def read_term(self, person: m.Person, notice: m.RecruitingNotice, data: dict) -> None:
        """The notice's intake: term_season and term_year when the document gives them;
        else its text ``term`` (documents before them) read as a season and year, or kept
        as written, with a note, when it names none."""
        season, year = data.get("term_season"), data.get("term_year")
        if season and year:
            notice.set_intake(m.Term(season, year))
            return
        text = data.get("term")
        intake = m.parse_term(text)
        notice.set_intake(intake, text)
        if intake is None:
            self.result.notes.append(
                f"{person.slug}: recruiting intake {text!r} names no season and year; kept as "
                "written (the owner's editor asks for a term)"
            )


def profile_publication_order() -> tuple:
    """Newest first; within a year, the owner's order."""
    return (
        m.Publication.year.desc().nulls_last(),
        m.ProfilePublication.position,
        m.Publication.id,
    )


def owner_publication_order() -> tuple:
    """The owner's order, the order of a profile's papers in its interchange document: by
    position, ties (papers that came with a co-author's import share a position) as the pages
    break them, newest first. Read back, the list's order becomes the positions, and every
    page (years by position; selected and status sections by position alone) lists the
    papers as before."""
    return (
        m.ProfilePublication.position,
        m.Publication.year.desc().nulls_last(),
        m.Publication.id,
    )


def import_documents(
    session: Session, documents: list[tuple[str, Any]], *, list_named: bool = False
) -> ImportResult:
    """Validate every document, then write them all. Raises :class:`ImportRefused` listing
    every problem (and writes nothing) if any document is invalid.

    A member a document names as an author (by slug) lists the paper too, unless their own
    document is among these: then it says what their profile lists (a restore gives back
    exactly what each profile listed, a co-author's open question included), except with
    ``list_named`` (the demo department, whose small profiles list their advisors' papers
    through them)."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for source, doc in documents:
        found = validate_document(doc, source)
        problems.extend(found)
        if not found:
            slug = document_slug(doc)
            if slug in seen:
                problems.append(
                    Problem(
                        source, "$.person.slug", f"{slug!r} is also the profile in {seen[slug]}"
                    )
                )
            seen[slug] = source
    if not problems:
        batch = set(seen)
        known = batch | set(session.scalars(select(m.Person.slug)))
        for source, doc in documents:
            for i, pub in enumerate(doc.get("publications", [])):
                for j, author in enumerate(pub["authors"]):
                    if author.get("person") and author["person"] not in known:
                        problems.append(
                            Problem(
                                source,
                                f"$.publications[{i}].authors[{j}].person",
                                f"no person {author['person']!r} in the directory or this import",
                            )
                        )
    if problems:
        raise ImportRefused(problems)

    importer = _Importer(session)
    people = [(importer.upsert_person(doc), doc, source) for source, doc in documents]
    if not list_named:
        importer.own_documents = {person.id for person, _doc, _source in people}
    session.flush()
    for person, doc, _source in people:  # before the papers, which must not ask them again
        claim_queue.restore_rejections(session, person.id, doc["person"].get("rejected_works"))
    for person, doc, source in people:
        importer.import_document(doc, person, source)
    return importer.result


def read_document(raw: bytes, source: str, max_bytes: int) -> tuple[Any, list[Problem]]:
    """Decode one uploaded or on-disk file into a document, or say why it can't be."""
    if len(raw) > max_bytes:
        return None, [Problem(source, "$", f"file is larger than the limit of {max_bytes} bytes")]
    try:
        return json.loads(raw.decode("utf-8")), []
    except UnicodeDecodeError as exc:
        return None, [Problem(source, "$", f"not UTF-8 text (byte {exc.start})")]
    except json.JSONDecodeError as exc:
        return None, [Problem(source, "$", f"not JSON: {exc.msg} at line {exc.lineno}")]
    except RecursionError:
        return None, [Problem(source, "$", "nested too deeply")]


# ----------------------------------------------------------------------------- export


def _entry_dict(obj: Any, names: list[str] | tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        value = getattr(obj, name)
        if isinstance(value, date):
            value = value.isoformat()
        out[name] = value
    return out


def _person_dict(person: m.Person) -> dict[str, Any]:
    data = _entry_dict(person, PERSON_FIELDS)
    data["identifiers"] = identifiers_of(person)
    data["links"] = [{"kind": k.kind, "url": k.url, "label": k.label} for k in person.links]
    data["areas"] = sorted(area.name for area in person.areas)
    if person.photo is not None:
        data["photo"] = {
            "mime_type": person.photo.mime_type,
            "data_base64": base64.b64encode(person.photo.data).decode("ascii"),
            "alt_text": person.photo.alt_text,
            "focus": [person.photo.focus_x, person.photo.focus_y],
        }
    return data


def _owned(session: Session, person: m.Person, model: type[m.Base]) -> list[Any]:
    """The person's entries of ``model``, in their order."""
    stmt = select(model).where(model.owner_id == person.id).order_by(model.position, model.id)
    return list(session.scalars(stmt))


def _listing_rows(session: Session, person: m.Person) -> list[m.ProfilePublication]:
    """Every paper on the person's profile (hidden ones too), with what its document holds."""
    pub = m.Publication
    stmt = (
        select(m.ProfilePublication)
        .join(pub)
        .where(m.ProfilePublication.person_id == person.id)
        .options(
            selectinload(m.ProfilePublication.publication).options(
                selectinload(pub.authorships).options(
                    selectinload(m.Authorship.person), selectinload(m.Authorship.suggested_person)
                ),
                selectinload(pub.links),
                selectinload(pub.awards),
                selectinload(pub.badges),
                selectinload(pub.relations).selectinload(m.PublicationRelation.target),
            )
        )
        .order_by(*owner_publication_order())
    )
    return list(session.scalars(stmt))


def _publication_dict(row: m.ProfilePublication, ref_of: dict[int, str]) -> dict[str, Any]:
    pub = row.publication
    data = {"ref": pub.uid, **_entry_dict(pub, PUBLICATION_FIELDS)}
    data["authors"] = author_dicts(
        pub,
        lambda a: a.person.slug if a.person else None,
        suggested_key=lambda a: a.suggested_person.slug if a.suggested_person else None,
    )
    data["links"] = [{"kind": k.kind, "url": k.url, "label": k.label} for k in pub.links]
    data["awards"] = [a.name for a in pub.awards]
    data["badges"] = [{"name": b.name, "issuer": b.issuer} for b in pub.badges]
    # Relations to papers outside this profile can't be expressed by ref; they are kept
    # on the shared record when it is re-imported next to the other profile.
    data["relations"] = [
        {"kind": r.kind, "target": ref_of[r.target_id]}
        for r in pub.relations
        if r.target_id in ref_of
    ]
    data.update(selected=row.selected, hidden=row.hidden, section=row.section)
    return data


def _project_tree(projects: list[m.ResearchProject], ref_of: dict[int, str]) -> list[dict]:
    """The person's projects nested as the document holds them (children under parents)."""
    children: dict[int | None, list[m.ResearchProject]] = {}
    for project in projects:
        children.setdefault(project.parent_id, []).append(project)
    fields = document_fields(m.ENTRY_KINDS["projects"])

    def project_dict(project: m.ResearchProject) -> dict[str, Any]:
        return {
            **_entry_dict(project, fields),
            "publications": [ref_of[p.id] for p in project.publications if p.id in ref_of],
            "children": [project_dict(c) for c in children.get(project.id, [])],
        }

    return [project_dict(p) for p in children.get(None, [])]


def _linked_entries(session: Session, person: m.Person, ref_of: dict[int, str]) -> dict:
    """The entries of :data:`LINKED_KINDS`: their fields and what they point at, by ref
    (papers of this document), slug (people) or name (research areas)."""
    owned, fields = (
        partial(_owned, session, person),
        lambda name: document_fields(m.ENTRY_KINDS[name]),
    )
    return {
        "awards": [
            {**_entry_dict(a, fields("awards")), "publication": ref_of.get(a.publication_id)}
            for a in owned(m.Award)
        ],
        "projects": _project_tree(owned(m.ResearchProject), ref_of),
        "advising": [
            {
                **_entry_dict(rel, fields("advising")),
                "advisor": rel.advisor.slug if rel.advisor else None,
                "student": rel.student.slug if rel.student else None,
            }
            for rel in owned(m.AdvisingRelation)
        ],
        "recruiting": [
            {**_entry_dict(n, fields("recruiting")), "areas": sorted(a.name for a in n.areas)}
            for n in owned(m.RecruitingNotice)
        ],
    }


def export_person(session: Session, person: m.Person) -> dict[str, Any]:
    """The complete profile document of ``person`` (every entry, whatever its visibility):
    this is the backup format, so only admins and the owner may be given it."""
    doc: dict[str, Any] = {"format": FORMAT, "format_version": FORMAT_VERSION}
    doc["person"] = _person_dict(person)
    if rejected := claim_queue.rejections_of(session, person.id):
        doc["person"]["rejected_works"] = rejected
    for kind in simple_kinds():
        doc[kind.name] = [
            _entry_dict(e, document_fields(kind)) for e in _owned(session, person, kind.model)
        ]
    rows = _listing_rows(session, person)
    ref_of = {row.publication.id: row.publication.uid for row in rows}
    doc["publications"] = [_publication_dict(row, ref_of) for row in rows]
    # The linked kinds come after the papers, whose refs they use.
    doc.update(_linked_entries(session, person, ref_of))
    return doc
