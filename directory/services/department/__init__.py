"""What the department-wide pages show: the people listing, research areas, recruiting notices,
publications and news, each filtered by what the viewer may see (the alumni outputs have
:mod:`directory.services.alumni`).

Who and what is listed is not decided here: every query applies the read rules of
:mod:`directory.services.access` (listed people, listed notices, people in an area, listed
publications), which the JSON API, search, feeds and fragments apply too.

Every function here runs a fixed number of statements whatever the department's size (related
rows come through ``selectinload``, never one query per row), so a page costs the same for ten
people as for a thousand. Filters arrive as small dataclasses read from the query string by one
parser for the pages and the API (:mod:`directory.services.parameters`): the pages drop a bad
value, so any bookmarked URL still opens; the API (``strict``) answers it with a 400 naming the
parameter.

One module per page family:

* :mod:`.people` — the people listing, and the person cards every page shows;
* :mod:`.areas` — the research areas index and an area's page;
* :mod:`.recruiting` — the recruiting page, its feed and fragments;
* :mod:`.publications` — the department's publications page, its exports and the API's list;
* :mod:`.news` — the news page;
* :mod:`.filters` — the filters shared beyond one family.

:func:`today` is here, and the views call it as ``department.today()``, so that a test can move
the date for every page at once.
"""

from __future__ import annotations

from datetime import date


def today() -> date:
    """Today's date, asked afresh on every request (notices expire without anyone acting)."""
    return date.today()
