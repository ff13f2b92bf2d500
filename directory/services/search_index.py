"""The search index's documents, and keeping them current.

What each kind of object (person, publication, recruiting notice) is as a search document —
its title, summary and body as shown, and their tokens (:func:`directory.services.search.tokenize`)
— is written once here (``_SOURCES``). :func:`reindex` rewrites the documents of some objects
and :func:`rebuild` all of them; :func:`out_of_step` counts the documents that differ from what
would be written now (``flask directory check``).

Documents are rewritten in the transaction that changed their objects: session events note
what each flush (and each bulk UPDATE or DELETE) touched, :func:`note_written` what a bulk
INSERT below the ORM wrote, and :func:`update_index` — the unit of work's search component,
also run before any other commit (:func:`install`) — rewrites them. Searching them is
:mod:`directory.services.search`.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import nh3
from sqlalchemy import and_, delete, event, insert, inspect, select
from sqlalchemy.orm import Session, selectinload, sessionmaker

from directory import models as m
from directory.formats.markdown import render_markdown
from directory.models import SearchDocument
from directory.services.access import strictest_visibility
from directory.services.search import (
    DEADLINE_PREFIX,
    FUNDED,
    KINDS,
    RECRUITING_PREFIX,
    tokenize,
)
from directory.services.search_engines import engine_for

_DOCS = SearchDocument.__table__

# ----------------------------------------------------------------------------- documents


def plain_text(markdown: str | None) -> str:
    """Owner-written Markdown as the plain text a reader sees."""
    if not markdown:
        return ""
    text = html.unescape(nh3.clean(str(render_markdown(markdown)), tags=set()))
    return " ".join(text.split())


def _join(*parts: str | None, sep: str = " · ") -> str:
    return sep.join(p for p in parts if p)


def _person_document(person: m.Person) -> dict[str, Any]:
    role = m.label(m.ROLES, person.role)
    bio = plain_text(person.bio)
    return {
        "kind": "person",
        "object_id": person.id,
        "owner_id": person.id,
        "visibility": person.visibility,
        "listed": person.active,
        "expires_on": None,
        "ref": person.slug,
        "title": _join(person.full_name, person.native_name, sep=" "),
        "summary": _join(person.title or role, person.unit),
        "body": _join(person.interests, bio, sep="\n"),
        "title_tokens": tokenize(person.full_name, person.native_name, *person.name_variants),
        "body_tokens": tokenize(
            person.title,
            role,
            person.unit,
            person.interests,
            bio,
            *(area.name for area in person.areas),
        ),
    }


def _author_line(pub: m.Publication, limit: int = 8) -> str:
    names = [a.name for a in pub.authorships]
    shown = ", ".join(names[:limit])
    return f"{shown}, et al." if len(names) > limit else shown


def _publication_document(pub: m.Publication) -> dict[str, Any]:
    return {
        "kind": "publication",
        "object_id": pub.id,
        "owner_id": pub.created_by_id,
        "visibility": pub.visibility,
        "listed": True,
        "expires_on": None,
        "ref": pub.uid,
        "title": pub.title,
        "summary": _join(
            _join(pub.venue_short or pub.venue, str(pub.year) if pub.year else None, sep=" "),
            _author_line(pub),
        ),
        # The full venue first, so that a match on it shows in the snippet.
        "body": _join(pub.venue, pub.abstract, sep="\n"),
        "title_tokens": tokenize(pub.title),
        "body_tokens": tokenize(
            pub.venue,
            pub.venue_short,
            str(pub.year or ""),
            m.label(m.PUBLICATION_TYPES, pub.type),
            *(a.name for a in pub.authorships),
            *pub.labels,
            *(award.name for award in pub.awards),
            pub.abstract,
        ),
    }


def notice_title(notice: m.RecruitingNotice) -> str:
    """'Recruiting PhD students · Fall 2027' unless the owner gave a title (a rolling notice
    names no term; stored in English, which search matches:
    :func:`~directory.services.search.localised` shows it in the reader's language)."""
    level = m.label(m.RECRUITING_LEVELS, notice.level)
    return _join(
        notice.title or f"{RECRUITING_PREFIX}{level}",
        None if notice.is_rolling else notice.term_label,
    )


def _notice_document(notice: m.RecruitingNotice) -> dict[str, Any]:
    owner = notice.owner
    description = plain_text(notice.description)
    return {
        "kind": "notice",
        "object_id": notice.id,
        "owner_id": owner.id,
        "visibility": strictest_visibility(notice.visibility, owner.visibility),
        "listed": owner.active,
        "expires_on": notice.expires_on,
        "ref": owner.slug,
        "title": notice_title(notice),
        "summary": _join(
            owner.full_name,
            f"{DEADLINE_PREFIX}{notice.deadline.isoformat()}" if notice.deadline else None,
            FUNDED if notice.funded else None,
        ),
        "body": description,
        "title_tokens": tokenize(notice_title(notice)),
        "body_tokens": tokenize(
            owner.full_name,
            owner.native_name,
            notice.term_label,
            description,
            plain_text(notice.how_to_apply),
            notice.funding_note,
            *(area.name for area in notice.areas),
        ),
    }


@dataclass(frozen=True)
class _Source:
    model: type[m.Base]
    options: tuple[Any, ...]
    document: Any


_SOURCES = {
    "person": _Source(m.Person, (selectinload(m.Person.areas),), _person_document),
    "publication": _Source(
        m.Publication,
        (selectinload(m.Publication.authorships), selectinload(m.Publication.awards)),
        _publication_document,
    ),
    "notice": _Source(
        m.RecruitingNotice,
        (selectinload(m.RecruitingNotice.areas), selectinload(m.RecruitingNotice.owner)),
        _notice_document,
    ),
}


# ----------------------------------------------------------------------------- keeping it current


def _chunks(ids: Iterable[int], size: int = 500) -> Iterator[list[int]]:
    items = sorted(set(ids))
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _row(source: _Source, obj: Any) -> dict[str, Any]:
    """The documents table's row for ``obj``: its document, tokens joined by spaces."""
    doc = source.document(obj)
    doc["title_tokens"] = " ".join(doc["title_tokens"])
    doc["body_tokens"] = " ".join(doc["body_tokens"])
    return doc


def reindex(session: Session, kind: str, ids: Iterable[int] | None = None) -> int:
    """Rewrite the documents of ``kind`` for the objects ``ids`` (all of them when ``None``);
    objects that no longer exist lose their document. Returns how many documents it wrote."""
    source = _SOURCES[kind]
    engine = engine_for(session)
    written = 0
    batches: Iterable[list[int] | None] = [None] if ids is None else _chunks(ids)
    for batch in batches:
        which = _DOCS.c.kind == kind
        objects = select(source.model).options(*source.options).order_by(source.model.id)
        if batch is not None:
            which = and_(which, _DOCS.c.object_id.in_(batch))
            objects = objects.where(source.model.id.in_(batch))
        engine.remove(session, select(_DOCS.c.id).where(which))
        session.execute(delete(_DOCS).where(which))
        rows = [_row(source, obj) for obj in session.scalars(objects)]
        if rows:
            session.execute(insert(_DOCS), rows)
            engine.add(session, select(_DOCS.c.id).where(which))
        written += len(rows)
    return written


def rebuild(session: Session) -> int:
    """Rebuild the whole index (``flask directory reindex``). Flushes; the caller commits."""
    engine_for(session).clear(session)
    return sum(reindex(session, kind) for kind in KINDS)


def rebuild_if_empty(session: Session) -> bool:
    """Build the index of a directory that has people but no index yet (a database upgraded
    to the search migration). Returns whether it did."""
    if not inspect(session.connection()).has_table(SearchDocument.__tablename__):
        return False
    if session.scalar(select(SearchDocument.id).limit(1)) is not None:
        return False
    if session.scalar(select(m.Person.id).limit(1)) is None:
        return False
    rebuild(session)
    return True


def catch_up(session: Session) -> list[str]:
    """Rewrite the kinds of documents that are out of step with the content (after an
    upgrade: a migration changes what a document holds, or rows written under the old code):
    the kinds rewritten. Reads every object once. Flushes; the caller commits."""
    drift = out_of_step(session)
    for kind in drift:
        reindex(session, kind)
    return list(drift)


def out_of_step(session: Session) -> dict[str, int]:
    """How many documents of each kind differ from what :func:`reindex` would write now
    (missing, left over, or with other content); only kinds with a difference are named.
    Reads every object once: for ``flask directory check``, not for requests."""
    drift: dict[str, int] = {}
    for kind, source in _SOURCES.items():
        stored = {
            doc.object_id: doc
            for doc in session.scalars(select(SearchDocument).where(SearchDocument.kind == kind))
        }
        wrong = 0
        for obj in session.scalars(select(source.model).options(*source.options)):
            doc = _row(source, obj)
            row = stored.pop(obj.id, None)
            if row is None or any(getattr(row, name) != value for name, value in doc.items()):
                wrong += 1
        wrong += len(stored)
        if wrong:
            drift[kind] = wrong
    return drift


#: Which documents depend on a model's rows (people's documents hold area names; notices'
#: documents hold their owner's name, visibility and activity).
_DEPENDENTS: dict[type, tuple[str, ...]] = {
    m.Person: ("person", "notice", "publication"),
    m.ResearchArea: ("person", "notice"),
    m.Publication: ("publication",),
    m.Authorship: ("publication",),
    m.PublicationAward: ("publication",),
    m.RecruitingNotice: ("notice",),
}
_PENDING = "directory_search_pending"


@dataclass
class _Pending:
    ids: dict[str, set[int]] = field(default_factory=lambda: {kind: set() for kind in KINDS})
    owners: set[int] = field(default_factory=set)
    areas: set[int] = field(default_factory=set)
    #: Kinds touched by bulk UPDATE/DELETE statements: rebuilt whole.
    everything: set[str] = field(default_factory=set)


def _pending(session: Session) -> _Pending:
    return session.info.setdefault(_PENDING, _Pending())


def _note_flush(session: Session, _context: Any) -> None:
    pending = None
    for obj in itertools.chain(session.new, session.dirty, session.deleted):
        if type(obj) not in _DEPENDENTS:
            continue
        pending = pending or _pending(session)
        if isinstance(obj, m.Person):
            pending.ids["person"].add(obj.id)
            pending.owners.add(obj.id)
        elif isinstance(obj, m.Publication):
            pending.ids["publication"].add(obj.id)
        elif isinstance(obj, m.Authorship | m.PublicationAward):
            if obj.publication_id is not None:
                pending.ids["publication"].add(obj.publication_id)
        elif isinstance(obj, m.RecruitingNotice):
            pending.ids["notice"].add(obj.id)
        elif isinstance(obj, m.ResearchArea):
            if obj in session.deleted:
                pending.everything.update(("person", "notice"))
            else:
                pending.areas.add(obj.id)


def _note_bulk(state: Any) -> None:
    if not (state.is_update or state.is_delete):
        return
    for mapper in state.all_mappers:
        kinds = _DEPENDENTS.get(mapper.class_)
        if kinds:
            _pending(state.session).everything.update(kinds)


def _apply(session: Session, pending: _Pending) -> None:
    ids = pending.ids
    if pending.areas:
        ids["person"].update(
            session.scalars(
                select(m.person_areas.c.person_id).where(
                    m.person_areas.c.area_id.in_(pending.areas)
                )
            )
        )
        ids["notice"].update(
            session.scalars(
                select(m.notice_areas.c.notice_id).where(
                    m.notice_areas.c.area_id.in_(pending.areas)
                )
            )
        )
    for batch in _chunks(pending.owners):
        ids["notice"].update(
            session.scalars(
                select(m.RecruitingNotice.id).where(m.RecruitingNotice.owner_id.in_(batch))
            )
        )
        # Documents of a deleted owner: their notices are gone, their papers' owner changed.
        for kind, object_id in session.execute(
            select(_DOCS.c.kind, _DOCS.c.object_id).where(_DOCS.c.owner_id.in_(batch))
        ):
            ids[kind].add(object_id)
    for kind in KINDS:
        if kind in pending.everything:
            reindex(session, kind)
        elif ids[kind]:
            reindex(session, kind, ids[kind])


def note_written(session: Session, kind: str, ids: Iterable[int]) -> None:
    """Note objects written by statements the ORM events don't see (a bulk import's
    driver-level INSERTs), so that their documents are rewritten at commit."""
    _pending(session).ids[kind].update(ids)


def update_index(session: Session) -> None:
    """The unit of work's search component: rewrite, in the committing transaction, the
    documents of everything this transaction changed."""
    session.flush()
    pending = session.info.pop(_PENDING, None)
    if pending is not None:
        _apply(session, pending)


def _before_commit(session: Session) -> None:
    # A commit made outside the unit of work (a host's own code on our session) updates the
    # index too; after the unit of work's own call there is nothing left to do. Also called
    # when a savepoint is released, which is not the end of the transaction.
    if not session.in_nested_transaction():
        update_index(session)


def _transaction_end(session: Session, transaction: Any) -> None:
    if transaction.parent is None:
        session.info.pop(_PENDING, None)


def install(factory: sessionmaker) -> None:
    """Keep the index current for every session ``factory`` makes: changes are noted at each
    flush and the affected documents rewritten just before the commit, in its transaction."""
    if event.contains(factory, "after_flush", _note_flush):
        return
    event.listen(factory, "after_flush", _note_flush)
    event.listen(factory, "do_orm_execute", _note_bulk)
    event.listen(factory, "before_commit", _before_commit)
    event.listen(factory, "after_transaction_end", _transaction_end)
