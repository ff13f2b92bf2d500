"""The search page ``<prefix>/search?q=...&kind=...``: results grouped by kind, or one kind
page by page. Plain HTML (a GET form), no JavaScript needed."""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import current_app, render_template, request

from directory.db import get_session
from directory.services import search as index
from directory.services.expertise.ranking import HYBRID, has_cjk, mode, people_hits
from directory.services.identity import current_viewer
from directory.services.parameters import PAGE, Filters, read_choice, read_text
from directory.web.blueprint import blueprint

#: Results of each kind shown when all kinds are searched at once.
PER_KIND_PREVIEW = 5


@dataclass(frozen=True)
class SearchFilters(Filters):
    q: str = field(default="", metadata=read_text(index.MAX_QUERY_LENGTH))
    kind: str = field(default="", metadata=read_choice(index.KINDS))
    page: int = field(default=1, metadata=PAGE)


@blueprint.route("/search")
def search() -> str:
    filters = SearchFilters.from_args(request.args)
    query, kind, page = filters.q, filters.kind or None, filters.page
    per_page = current_app.config["DIRECTORY_PAGE_SIZE"]
    session, viewer = get_session(), current_viewer()
    searched = bool(index.parse_query(query))
    # People are ranked by what they work on (their papers too), not by the index alone.
    people, people_total = (
        people_hits(
            session,
            query,
            viewer,
            per_page if kind else PER_KIND_PREVIEW,
            (page - 1) * per_page if kind == "person" else 0,
        )
        if searched
        else ([], 0)
    )
    if kind:
        results = index.search(
            session, query, viewer, kinds=(kind,), limit=per_page, offset=(page - 1) * per_page
        )
        hits = people if kind == "person" else results.hits
        groups = [(kind, hits)] if hits else []
        counts = results.counts
    else:
        # People are ranked above (the index's own best people are not shown); every other
        # kind's best few and its count come from one statement.
        others = tuple(each for each in index.KINDS if each != "person")
        results = index.best_of_each(session, query, viewer, others, PER_KIND_PREVIEW)
        counts = results.counts if searched else None
        groups = []
        for each in index.KINDS:
            hits = people if each == "person" else [h for h in results.hits if h.kind == each]
            if hits:
                groups.append((each, hits))
    if counts is not None and searched:
        counts = counts | {"person": people_total}
    counts = counts or {}
    total = sum(counts.values())
    pages = -(-counts.get(kind, 0) // per_page) if kind else 1
    return render_template(
        "directory/search.html",
        query=query,
        searched=searched,
        # docs/search.md, "Languages": the model finds about half the people for a Chinese
        # question that it finds for the English one.
        partial_language=searched and has_cjk(query) and mode() == HYBRID,
        kind=kind,
        kinds=index.KINDS,
        labels=index.KIND_LABELS,
        nouns=index.KIND_NOUNS,
        groups=groups,
        counts=counts,
        total=total,
        page=page,
        pages=pages,
        preview=PER_KIND_PREVIEW,
    )
