"""Work on many small objects at once (an import of thousands of entries).

An import builds hundreds of thousands of short-lived dicts, lists and strings (parsed
fields, index postings, rows to insert) that form no reference cycles: reference counting
frees them. Python's cyclic garbage collector still runs every few hundred allocations and,
as the heap grows, goes over every object the import holds again and again; on a file of a
few thousand entries that was a third of the import's CPU time. :func:`collection_paused`
switches the automatic collection off for the duration and back on afterwards (a collection
then frees any cycles made meanwhile, as it would have).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collection_paused"]


@contextmanager
def collection_paused() -> Iterator[None]:
    """No automatic cyclic garbage collection inside the block (usable as a decorator).

    Only the block that switched it off switches it on again, so nested blocks, and a host
    that keeps it off, are left as they were.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
