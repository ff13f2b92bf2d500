"""The activity reports and the network, kept while the data they count is unchanged.

Counting a large department takes a few hundred milliseconds of CPU; a chair reads the
report, downloads its CSV and PDF, opens the network. Each computed report is kept, in this
process, under the data's generation (:func:`directory.services.cache.current_generation`,
which every committed write of the directory moves on) and everything that decides its
counts: the viewer's read rules (admin or not, signed in or not, their own profile), the
period and the options. A write anywhere makes every kept report stale at once; the least
recently used go first beyond :data:`KEEP`. Only plain results are kept (no ORM objects)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from sqlalchemy.orm import Session

from directory.services.cache import current_generation
from directory.services.identity import Viewer

#: Reports kept per process.
KEEP = 32
_KEPT: OrderedDict[tuple, Any] = OrderedDict()
_LOCK = threading.Lock()


def viewer_key(viewer: Viewer) -> tuple:
    """What of the viewer decides what the read rules let them count."""
    return (viewer.is_admin, viewer.is_authenticated, viewer.person_id)


def remembered[T](session: Session, key: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
    """``compute()``, or what it gave for ``key`` while the data's generation is the same."""
    generation = current_generation(session)
    if generation is None:  # no generation to tell a change by: nothing is kept
        return compute()
    bind = session.get_bind()
    full = (id(getattr(bind, "engine", bind)), generation, *key)
    return _kept_or_computed(_KEPT, full, compute, KEEP)


def _kept_or_computed[T](
    store: OrderedDict[tuple, Any], key: tuple, compute: Callable[[], T], keep: int
) -> T:
    """``store[key]``, or ``compute()`` kept there (the least recently used beyond ``keep``
    dropped)."""
    with _LOCK:
        if key in store:
            store.move_to_end(key)
            return store[key]
    value = compute()
    with _LOCK:
        store[key] = value
        while len(store) > keep:
            store.popitem(last=False)
    return value


#: Statements kept per process, each built for one viewer's read rules (and options).
KEEP_STATEMENTS = 64
_BUILT: OrderedDict[tuple, Any] = OrderedDict()


def statements[T](key: tuple[Hashable, ...], build: Callable[[], T]) -> T:
    """``build()``, the first time ``key`` is asked for: statements whose period is bound at
    execution (:class:`.counting.BoundPeriod`) are built once and kept, whatever the data's
    generation (they hold no data); ``key`` names what they were built for."""
    return _kept_or_computed(_BUILT, key, build, KEEP_STATEMENTS)


def kept() -> int:
    """How many reports are kept."""
    with _LOCK:
        return len(_KEPT)


def forget() -> None:
    """Drop every kept report (a test that rolls its writes back, and with them the
    generation, calls this)."""
    with _LOCK:
        _KEPT.clear()
