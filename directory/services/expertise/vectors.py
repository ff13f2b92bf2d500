"""The stored vectors, kept current by the write path, and the matrix each worker holds.

Vectors are derived data, like the search index's documents
(:mod:`directory.services.search_index`) and kept current the same way: session events note
which papers and profiles each flush touched (a profile's text also holds its projects and
recruiting notices), :func:`note_written` what a bulk INSERT below the ORM wrote, and
:func:`update_vectors` — the unit of work's component beside the search index's, also run
before any other commit (:func:`install`) — embeds the texts that changed and writes their
rows in the committing transaction. Unchanged text (same digest) is not embedded again.
``flask directory reindex`` rebuilds every vector (:func:`rebuild`); :func:`out_of_step`
counts those that differ from what would be written now (``flask directory check``).

Each worker compares questions against an in-process matrix of every vector
(:func:`matrices`): a 25,000-paper department is 26 MB of float32. Every write of vectors
gives the state row (kind ``state``) a new random stamp, in the same transaction; a question
reads that one row, and only when its stamp moved on does the worker read the table's count,
highest id and sum of stamps by kind, and then the rows written since (all of them when a row
was deleted). Random, not a counter, so that a rolled-back write and the next one never look
alike.
"""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, event, func, insert, select
from sqlalchemy.orm import Session, sessionmaker

from directory import models as m
from directory.models import ExpertiseVector
from directory.services.expertise import model
from directory.services.expertise.model import np
from directory.services.expertise.texts import digest, paper_text, profile_text

#: The kinds of vectors: a paper's, and a profile's own text.
KINDS = ("publication", "person")
_TABLE = ExpertiseVector.__table__
_PENDING = "directory_expertise_pending"


# ----------------------------------------------------------------------------- texts


def _chunks(ids: Iterable[int], size: int = 500) -> Iterator[list[int]]:
    items = sorted(set(ids))
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _paper_texts(session: Session, ids: list[int] | None) -> dict[int, str]:
    stmt = select(m.Publication.id, m.Publication.title, m.Publication.abstract)
    if ids is not None:
        stmt = stmt.where(m.Publication.id.in_(ids))
    return {
        pub_id: paper_text(m.Publication(title=title, abstract=abstract))
        for pub_id, title, abstract in session.execute(stmt)
    }


def _profile_texts(session: Session, ids: list[int] | None) -> dict[int, str]:
    people = select(m.Person)
    if ids is not None:
        people = people.where(m.Person.id.in_(ids))
    found = list(session.scalars(people))
    owners = [p.id for p in found]
    projects: dict[int, list[m.ResearchProject]] = {}
    notices: dict[int, list[m.RecruitingNotice]] = {}
    for batch in _chunks(owners):
        for project in session.scalars(
            select(m.ResearchProject)
            .where(m.ResearchProject.owner_id.in_(batch))
            .order_by(m.ResearchProject.position, m.ResearchProject.id)
        ):
            projects.setdefault(project.owner_id, []).append(project)
        for notice in session.scalars(
            select(m.RecruitingNotice)
            .where(m.RecruitingNotice.owner_id.in_(batch))
            .order_by(m.RecruitingNotice.position, m.RecruitingNotice.id)
        ):
            notices.setdefault(notice.owner_id, []).append(notice)
    return {p.id: profile_text(p, projects.get(p.id, []), notices.get(p.id, [])) for p in found}


_SOURCES = {"publication": _paper_texts, "person": _profile_texts}


def _texts(session: Session, kind: str, ids: list[int] | None) -> dict[int, str]:
    """The texts of the objects ``ids`` of ``kind`` that have any (a profile with no
    interests, biography, project or notice has no vector: it says nothing of its work)."""
    return {i: text for i, text in _SOURCES[kind](session, ids).items() if text.strip()}


# ----------------------------------------------------------------------------- writing


def write(session: Session, kind: str, ids: Iterable[int] | None = None) -> int:
    """Bring the vectors of ``kind`` for the objects ``ids`` (all when ``None``) up to date:
    embed the texts that changed, drop the vectors of objects gone. Returns how many vectors
    it embedded. Does nothing without the model."""
    if not model.available():
        return 0
    batches: Iterable[list[int] | None] = [None] if ids is None else _chunks(ids)
    embedded = 0
    for batch in batches:
        texts = _texts(session, kind, batch)
        stored = select(_TABLE.c.object_id, _TABLE.c.digest).where(_TABLE.c.kind == kind)
        if batch is not None:
            stored = stored.where(_TABLE.c.object_id.in_(batch))
        digests = dict(session.execute(stored).all())
        wanted = {object_id: digest(text) for object_id, text in texts.items()}
        stale = [i for i in digests if wanted.get(i) != digests[i]]
        fresh = [i for i in texts if wanted[i] != digests.get(i)]
        for part in _chunks(stale):
            session.execute(
                delete(_TABLE).where(_TABLE.c.kind == kind, _TABLE.c.object_id.in_(part))
            )
        if fresh:
            vectors = model.embed([texts[i] for i in fresh])
            session.execute(
                insert(_TABLE),
                [
                    {
                        "kind": kind,
                        "object_id": object_id,
                        "model": model.MODEL_NAME,
                        "digest": wanted[object_id],
                        "stamp": random.getrandbits(31),
                        "vector": vector.astype("<f4").tobytes(),
                    }
                    for object_id, vector in zip(fresh, vectors, strict=True)
                ],
            )
        embedded += len(fresh)
        if stale or fresh:
            _moved_on(session)
    return embedded


#: The row whose random ``stamp`` changes with every write of vectors (:func:`matrices`).
STATE = "state"


def _moved_on(session: Session) -> None:
    """A new random stamp on the state row: every worker reloads what changed."""
    session.execute(delete(_TABLE).where(_TABLE.c.kind == STATE))
    session.execute(
        insert(_TABLE).values(
            kind=STATE,
            object_id=0,
            model=model.MODEL_NAME,
            digest="",
            stamp=random.getrandbits(62),
            vector=b"",
        )
    )


def rebuild(session: Session) -> int:
    """Every vector made again (``flask directory reindex``). Flushes; the caller commits."""
    if not model.available():
        return 0
    session.execute(delete(_TABLE))
    return sum(write(session, kind) for kind in KINDS)


def catch_up(session: Session) -> int:
    """After an upgrade: the vectors of every kind brought up to date with the content the
    migrations (or an older release's writes) left (only changed texts are embedded again).
    Returns how many it embedded."""
    return sum(write(session, kind) for kind in KINDS)


def out_of_step(session: Session) -> dict[str, int]:
    """How many vectors of each kind differ from what :func:`write` would write now
    (missing, left over, or made from other text); only kinds with a difference are named."""
    drift: dict[str, int] = {}
    for kind in KINDS:
        wanted = {i: digest(text) for i, text in _texts(session, kind, None).items()}
        stored = dict(
            session.execute(
                select(_TABLE.c.object_id, _TABLE.c.digest).where(_TABLE.c.kind == kind)
            ).all()
        )
        wrong = sum(1 for i, d in wanted.items() if stored.pop(i, None) != d) + len(stored)
        if wrong:
            drift[kind] = wrong
    return drift


def count(session: Session) -> int:
    """How many vectors are stored."""
    return session.scalar(select(func.count(_TABLE.c.id)).where(_TABLE.c.kind.in_(KINDS))) or 0


# ----------------------------------------------------------------------------- the write path


@dataclass
class _Pending:
    ids: dict[str, set[int]] = field(default_factory=lambda: {kind: set() for kind in KINDS})


def _pending(session: Session) -> _Pending:
    return session.info.setdefault(_PENDING, _Pending())


#: The models whose rows make a vector's text, and the object whose vector they are part of.
_NOTED: dict[type, tuple[str, str]] = {
    m.Publication: ("publication", "id"),
    m.Person: ("person", "id"),
    m.ResearchProject: ("person", "owner_id"),
    m.RecruitingNotice: ("person", "owner_id"),
}


def _note_flush(session: Session, _context: Any) -> None:
    for obj in itertools.chain(session.new, session.dirty, session.deleted):
        noted = _NOTED.get(type(obj))
        if noted is not None and getattr(obj, noted[1]) is not None:
            _pending(session).ids[noted[0]].add(getattr(obj, noted[1]))


def note_written(session: Session, kind: str, ids: Iterable[int]) -> None:
    """Note objects written by statements the ORM events don't see (a bulk import's
    driver-level INSERTs), so that their vectors are made at commit."""
    _pending(session).ids[kind].update(ids)


def update_vectors(session: Session) -> None:
    """The unit of work's expertise component: make, in the committing transaction, the
    vectors of every paper and profile this transaction changed."""
    session.flush()
    pending = session.info.pop(_PENDING, None)
    if pending is None or not model.available():
        return
    for kind in KINDS:
        if pending.ids[kind]:
            write(session, kind, pending.ids[kind])


def _before_commit(session: Session) -> None:
    if not session.in_nested_transaction():
        update_vectors(session)


def _transaction_end(session: Session, transaction: Any) -> None:
    if transaction.parent is None:
        session.info.pop(_PENDING, None)


def install(factory: sessionmaker) -> None:
    """Keep the vectors current for every session ``factory`` makes (as the search index)."""
    if event.contains(factory, "after_flush", _note_flush):
        return
    event.listen(factory, "after_flush", _note_flush)
    event.listen(factory, "before_commit", _before_commit)
    event.listen(factory, "after_transaction_end", _transaction_end)


# ----------------------------------------------------------------------------- the matrix


@dataclass
class Matrix:
    """Every vector of one kind, as the rows of a float32 matrix."""

    key: tuple[int, int, int]
    ids: Any
    vectors: Any
    stamps: dict[int, int]
    max_id: int

    @property
    def row_of(self) -> dict[int, int]:
        return {int(object_id): row for row, object_id in enumerate(self.ids)}


_MATRICES: dict[tuple[str, str], Matrix] = {}
#: The state row's stamp each database's matrices were read at.
_STAMPS: dict[str, int | None] = {}
_MATRIX_LOCK = threading.Lock()


def _key(session: Session) -> dict[str, tuple[int, int, int]]:
    t = _TABLE.c
    rows = session.execute(
        select(t.kind, func.count(t.id), func.max(t.id), func.sum(t.stamp))
        .where(t.kind.in_(KINDS))
        .group_by(t.kind)
    ).all()
    keys = {kind: (0, 0, 0) for kind in KINDS}
    keys.update({kind: (int(n), int(top or 0), int(total or 0)) for kind, n, top, total in rows})
    return keys


def _load(session: Session, kind: str, after: int = 0) -> list[tuple[int, int, int, bytes]]:
    t = _TABLE.c
    return session.execute(
        select(t.id, t.object_id, t.stamp, t.vector)
        .where(t.kind == kind, t.id > after, t.model == model.MODEL_NAME)
        .order_by(t.id)
    ).all()


def _matrix(key: tuple[int, int, int], rows: list, base: Matrix | None = None) -> Matrix:
    """``base`` with ``rows`` (written after it) in place of the object's older row."""
    ids = [] if base is None else [int(i) for i in base.ids]
    stamps = {} if base is None else dict(base.stamps)
    vectors = [] if base is None else list(base.vectors)
    at = {object_id: row for row, object_id in enumerate(ids)}
    max_id = 0 if base is None else base.max_id
    for row_id, object_id, stamp, blob in rows:
        vector = np.frombuffer(blob, dtype="<f4")
        if object_id in at:
            vectors[at[object_id]] = vector
        else:
            at[object_id] = len(ids)
            ids.append(object_id)
            vectors.append(vector)
        stamps[object_id] = int(stamp)
        max_id = max(max_id, int(row_id))
    stacked = (
        np.vstack(vectors).astype(np.float32)
        if vectors
        else np.zeros((0, model.DIMENSIONS), dtype=np.float32)
    )
    return Matrix(key, np.asarray(ids, dtype=np.int64), stacked, stamps, max_id)


def matrices(session: Session) -> dict[str, Matrix]:
    """The vectors of each kind as this worker holds them, brought up to date first: one
    look-up of the state row's stamp while nothing was written; after a write, the table's
    count, highest id and sum of stamps by kind, and the rows written since."""
    t = _TABLE.c
    stamp = session.scalar(select(t.stamp).where(t.kind == STATE, t.object_id == 0))
    where = session.get_bind().engine.url.render_as_string(hide_password=True)
    found: dict[str, Matrix] = {}
    with _MATRIX_LOCK:
        seen = _STAMPS.get(where)
        if seen is not None and seen == stamp:
            return {kind: _MATRICES[(where, kind)] for kind in KINDS}
        keys = _key(session)
        _STAMPS[where] = stamp
        for kind in KINDS:
            cached = _MATRICES.get((where, kind))
            key = keys[kind]
            if cached is None or cached.key != key:
                cached = _refreshed(session, kind, key, cached)
                _MATRICES[(where, kind)] = cached
            found[kind] = cached
    return found


def _refreshed(session: Session, kind: str, key: tuple, cached: Matrix | None) -> Matrix:
    if cached is not None and key[1] > cached.max_id:
        merged = _matrix(key, _load(session, kind, cached.max_id), cached)
        if (len(merged.ids), merged.max_id, sum(merged.stamps.values())) == key:
            return merged
    return _matrix(key, _load(session, kind))
