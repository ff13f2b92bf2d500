"""What the editor's page costs to render per entry and per paper, in Jinja's own work.

A ``{% set %}`` inside a ``{% for %}`` makes Jinja pass the loop's variables to every call in
that loop, and a function that takes the context (``_()``, ``{% trans %}``'s gettext) is then
given a new copy of the whole context each time: on the editor of a large profile some five
hundred copies, a quarter of the page's rendering. The editor's loops name their per-item
values with ``{% with %}`` instead; this keeps it so. (``{% trans x=call() %}`` sets a
variable too, Jinja's ``_trans``: the editor gives such a call's value a name with
``{% with %}`` first.)"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

from jinja2.runtime import Context

from directory import models as m
from tests.conftest import login

EDITOR = str(Path("directory", "edit", "editor.html"))


def _derived_contexts(client, monkeypatch) -> int:
    """How many derived Jinja contexts one rendering of ``/directory/me`` makes from the
    editor's own template (the page layout's blocks make a few of their own)."""
    made = []
    derived = Context.derived

    def counting(self, locals=None):  # noqa: A002 - Jinja's own name
        frame = sys._getframe(1)
        while frame is not None and not frame.f_code.co_filename.endswith(".html"):
            frame = frame.f_back
        made.append(frame.f_code.co_filename if frame is not None else None)
        return derived(self, locals)

    monkeypatch.setattr(Context, "derived", counting)
    response = client.get("/directory/me")
    monkeypatch.setattr(Context, "derived", derived)
    assert response.status_code == 200
    return sum(1 for name in made if name and name.endswith(EDITOR))


def test_the_editors_template_makes_no_copy_of_its_context(
    client, db, make_person, make_publication, monkeypatch
) -> None:
    ada = make_person(user_key="ada", last_confirmed=date(2026, 3, 7))
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
    assert "Last confirmed current on March 7, 2026." in page
    assert counts == [0, 0]
