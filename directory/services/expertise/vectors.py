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
from functools import cached_property
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
    """Every vector of one kind: row ``i`` of ``vectors`` (float32) is the object ``ids[i]``'s,
    written with the random ``stamps[i]``. The three are the first rows of ``room``, arrays with
    room for the rows later writes add (a write's rows go in place, so that a worker never
    copies its whole matrix for one paper)."""

    key: tuple[int, int, int]
    ids: Any
    vectors: Any
    stamps: Any
    max_id: int
    room: tuple[Any, Any, Any] = field(repr=False, default=())

    @cached_property
    def row_of(self) -> dict[int, int]:
        return {int(object_id): row for row, object_id in enumerate(self.ids)}


_MATRICES: dict[tuple[str, str], Matrix] = {}
#: The state row's stamp each database's matrices were read at.
_STAMPS: dict[str, int | None] = {}
_MATRIX_LOCK = threading.Lock()
#: Rows read a statement: a worker never holds more than this many rows of the driver's at once
#: (reading 250,000 vectors in one list cost a worker a gigabyte while it loaded them).
READ_BATCH = 4000
#: Rows of room a matrix keeps at least for later writes (and a sixteenth of its rows).
ROOM = 256


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


def _batches(session: Session, kind: str, after: int) -> Iterator[tuple[Any, Any, Any, Any]]:
    """The rows of ``kind`` written after the row ``after``, in order, ``READ_BATCH`` at a time:
    (row ids, object ids, stamps, vectors) as arrays."""
    t = _TABLE.c
    while True:
        rows = session.execute(
            select(t.id, t.object_id, t.stamp, t.vector)
            .where(t.kind == kind, t.id > after, t.model == model.MODEL_NAME)
            .order_by(t.id)
            .limit(READ_BATCH)
        ).all()
        if not rows:
            return
        row_ids, object_ids, stamps, blobs = zip(*rows, strict=True)
        del rows
        block = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(row_ids), -1)
        yield (
            np.asarray(row_ids, dtype=np.int64),
            np.asarray(object_ids, dtype=np.int64),
            np.asarray(stamps, dtype=np.int64),
            block,
        )
        after = int(row_ids[-1])


def _room(rows: int, keep: tuple[Any, Any, Any] = (), used: int = 0) -> tuple[Any, Any, Any]:
    """Arrays for ``rows`` rows and a sixteenth more, holding the first ``used`` of ``keep``."""
    size = rows + max(ROOM, rows // 16)
    room = (
        np.zeros(size, dtype=np.int64),
        np.zeros((size, model.DIMENSIONS), dtype=np.float32),
        np.zeros(size, dtype=np.int64),
    )
    for new, old in zip(room, keep, strict=False):
        new[:used] = old[:used]
    return room


def _matrix(session: Session, kind: str, key: tuple[int, int, int], base: Matrix | None) -> Matrix:
    """The rows of ``kind`` read into ``base`` (those written after it, each in place of the
    object's older row), or into new arrays."""
    room = base.room if base is not None else _room(key[0])
    used = 0 if base is None else len(base.ids)
    max_id = 0 if base is None else base.max_id
    for row_ids, object_ids, stamps, block in _batches(session, kind, max_id):
        fresh = np.ones(len(object_ids), dtype=bool)
        if used:
            order = np.argsort(room[0][:used], kind="stable")
            known = room[0][:used][order]
            at = np.minimum(np.searchsorted(known, object_ids), used - 1)
            fresh = known[at] != object_ids
            rows = order[at[~fresh]]
            room[1][rows], room[2][rows] = block[~fresh], stamps[~fresh]
        added = int(fresh.sum())
        if used + added > len(room[0]):
            room = _room(used + added, room, used)
        for array, values in zip(room, (object_ids, block, stamps), strict=True):
            array[used : used + added] = values[fresh]
        used += added
        max_id = max(max_id, int(row_ids[-1]))
    ids, vectors, stamps_ = (array[:used] for array in room)
    return Matrix(key, ids, vectors, stamps_, max_id, room)


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
    """The matrix of ``kind`` at ``key``: ``cached`` with the rows written since, when that
    gives the table's count, highest id and sum of stamps (nothing was deleted), else read anew.
    A question running meanwhile on ``cached`` may see a written row early: it is the
    object's newer vector either way."""
    if cached is not None and key[1] > cached.max_id:
        merged = _matrix(session, kind, key, cached)
        if (len(merged.ids), merged.max_id, int(merged.stamps.sum())) == key:
            return merged
    return _matrix(session, kind, key, None)
