"""The department listing ``<prefix>/``: people grouped by role."""

from __future__ import annotations

from flask import render_template
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from .. import models as m
from ..access import visibility_clause
from ..cache import cached_page
from ..db import get_session
from ..identity import current_viewer
from ..structured import listing_jsonld
from . import blueprint


@blueprint.route("/")
@cached_page
def index() -> str:
    viewer = current_viewer()
    people = list(
        get_session().scalars(
            select(m.Person)
            .where(
                m.Person.active.is_(True),
                m.Person.role != "alumni",
                visibility_clause(viewer, m.Person, m.Person.id),
            )
            .options(
                selectinload(m.Person.areas),
                selectinload(m.Person.links),
                selectinload(m.Person.photo),
            )
            .order_by(m.Person.sort_name)
        )
    )
    groups = [
        (label, [p for p in people if p.role == role])
        for role, label in m.ROLES
        if any(p.role == role for p in people)
    ]
    return render_template(
        "directory/index.html",
        groups=groups,
        jsonld=listing_jsonld(people, "People"),
    )
