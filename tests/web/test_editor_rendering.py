"""What the editor's page costs to render per entry and per paper, in Jinja's own work.

A ``{% set %}`` inside a ``{% for %}`` makes Jinja pass the loop's variables to every call in
that loop, and a function that takes the context (``_()``, ``{% trans %}``'s gettext) is then
given a new copy of the whole context each time: on the editor of a large profile some five
hundred copies, a quarter of the page's rendering. The editor's loops name their per-item
values with ``{% with %}`` instead; this keeps it so."""

from __future__ import annotations

from jinja2.runtime import Context

from directory import models as m
from tests.conftest import login


def _derived_contexts(client, monkeypatch) -> int:
    """How many derived Jinja contexts one rendering of ``/directory/me`` makes."""
    made = []
    derived = Context.derived

    def counting(self, locals=None):  # noqa: A002 - Jinja's own name
        made.append(self.name)
        return derived(self, locals)

    monkeypatch.setattr(Context, "derived", counting)
    response = client.get("/directory/me")
    monkeypatch.setattr(Context, "derived", derived)
    assert response.status_code == 200
    return len(made)


def test_the_editor_makes_no_context_per_entry_or_paper(
    client, db, make_person, make_publication, monkeypatch
) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    counts = []
    for more in range(2):
        for i in range(3):
            db.add(m.NewsItem(owner_id=ada.id, body=f"News {more}{i}", year=2024, position=i))
            make_publication(f"Paper {more}{i}", authors=(ada,), year=2020 + i)
        db.commit()
        counts.append(_derived_contexts(client, monkeypatch))
    page = client.get("/directory/me").get_data(as_text=True)
    assert page.count('aria-label="Move up: [2024] News') == 6
    assert page.count('aria-label="Move up: Paper') == 6
    assert counts[0] == counts[1], counts
