"""The profile calls each entry kind's partial through ``directory_entry_partial`` (the
partial's macros fetched once, not imported in each call): the very macros ``{% import %}``
gives, for every declared kind, a host's file at the partial's path included."""

from __future__ import annotations

from flask import render_template_string

from directory import models as m


def test_each_kinds_partial_is_the_module_an_import_gives(app) -> None:
    assert m.ENTRY_KINDS
    with app.test_request_context("/directory/"):
        for name, kind in m.ENTRY_KINDS.items():
            same = render_template_string(
                "{% import partial as entry %}{{ entry is sameas directory_entry_partial(name) }}",
                partial=kind.partial,
                name=name,
            )
            assert same == "True", name
