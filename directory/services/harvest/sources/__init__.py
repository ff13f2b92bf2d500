"""The harvest's sources: one small adapter per source (:data:`SOURCES`), each
``fetch(person_ids, client, settings) -> SourceOutcome`` over ``httpx``, speaking the
source's public API as its documentation describes and never raising
(:mod:`.http` holds the politeness and the bounds). :func:`harvest_person` asks every
configured source for one person.

``person_ids`` holds the person's identifiers by kind: ``"orcid"``, ``"dblp"``,
``"openalex"``, ``"semantic_scholar"`` and ``"arxiv"`` (an arXiv author identifier); a source
for which the person has none is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import httpx

from directory.formats.harvest.works import SourceOutcome
from directory.services.harvest.sources import (
    arxiv,
    crossref,
    dblp,
    openalex,
    orcid,
    semantic_scholar,
)
from directory.services.harvest.sources.http import Fetch, HarvestSettings, Pacer, make_client

#: Every source by its name in DIRECTORY_HARVEST_SOURCES, in the order a run asks them.
SOURCES: dict[str, Fetch] = {
    "orcid": orcid.fetch,
    "openalex": openalex.fetch,
    "crossref": crossref.fetch,
    "dblp": dblp.fetch,
    "arxiv": arxiv.fetch,
    "semantic_scholar": semantic_scholar.fetch,
}

__all__ = ["SOURCES", "HarvestSettings", "Pacer", "harvest_person", "make_client"]


def configured_sources(settings: HarvestSettings, only: Iterable[str] = ()) -> list[str]:
    """The sources a run asks: those with a base URL, narrowed to ``only`` when given."""
    wanted = set(only)
    return [
        name for name in SOURCES
        if settings.sources.get(name) and (not wanted or name in wanted)
    ]  # fmt: skip


def harvest_person(
    person_ids: Mapping[str, str],
    settings: HarvestSettings,
    client: httpx.Client | None = None,
    only: Iterable[str] = (),
) -> list[SourceOutcome]:
    """Every configured source's outcome for one person; one source failing never stops the
    others (each records its faults in its outcome). ``client``: the run's, shared by every
    person (one is made and closed here without it)."""
    own = client is None
    client = client or make_client(settings)
    try:
        names = configured_sources(settings, only)
        return [SOURCES[name](person_ids, client, settings) for name in names]
    finally:
        if own:
            client.close()
