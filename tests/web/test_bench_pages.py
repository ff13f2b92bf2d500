"""The pages ``make bench`` measures (benchmarks/pages.py) exist, and cost the same number of SQL
statements for a generated department of ~15 people as for one of ~100 (with their entries,
students, papers and notices). tests/invariants/test_query_counts.py checks every department page
the same
way on a hand-built department; this one keeps the benchmark's URLs honest, the signed-in ones
(the editor of the largest profile, an admin page) included. A page whose route
does not exist yet is skipped with its URL named."""

from __future__ import annotations

import pytest

from directory.services.reports import memo
from tests.conftest import login
from tests.support.measured_pages import PAGES, VIEWER_KEYS, Page
from tests.support.statements import count_statements
from tests.support.synthetic import Sizes, bind_viewers, department_facts, generate

SMALLER = Sizes(faculty=3, members=10, alumni=2, publications=30, notices=3)
LARGER = Sizes(faculty=10, members=60, alumni=15, publications=300, notices=12)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_statements_per_page_do_not_grow_with_the_department(app, client, db, page: Page) -> None:
    engine = app.extensions["directory"].db.engine
    prefix = app.config["DIRECTORY_URL_PREFIX"].rstrip("/")
    logs = []
    for name, sizes in (("a", SMALLER), ("b", LARGER)):
        generate(db, sizes, prefix=name)  # the second call adds to the first
        facts = department_facts(db)
        if page.viewer:
            bind_viewers(db, facts, VIEWER_KEYS)
            login(client, VIEWER_KEYS[page.viewer])
        db.commit()
        url = prefix + page.path(facts)
        client.get(url)
        memo.forget()  # a kept report would cost 3 statements whatever the department
        with count_statements(engine) as log:
            response = client.get(url)
        if response.status_code == 404:
            pytest.skip(f"{page.name}: {url} answers 404 (page not built yet)")
        assert response.status_code == 200, url
        logs.append(log)
    small, large = logs
    assert len(small) == len(large), f"small department:\n{small}\n\nlarger one:\n{large}"
