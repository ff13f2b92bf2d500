"""One declaration per entry kind (directory/models/entry_kinds.py), everything else derived.

A throwaway kind, "patents" (a model on the plugin's metadata, created in the test database,
declared the same way as the shipped kinds, with a template partial), shows on the profile
and the CV, in the API and its OpenAPI document, in the interchange document (exported,
validated by the schema, imported back), in the editor and in the history, with nothing
else written for it. Before the declaration this test could not be written without editing
some fifteen places (ENTRY_MODELS, CV_SECTIONS, a form, web/entry_kinds.py, the Profile and
its loader, the history's vocabularies, ENTRY_FIELDS, SIMPLE_ENTRIES, ENTRY_SCHEMA_NAMES,
four places of profile.schema.json, profile.html twice and _cv.html); with the declaration
gone it fails at its first line (``m.declare``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest
from flask import Flask
from jinja2 import ChoiceLoader, DictLoader
from sqlalchemy import Integer, String, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from wtforms.validators import Length

from directory import models as m
from directory.models.vocabularies import N_
from directory.services import interchange
from directory.web.entry_kinds import KINDS
from tests.conftest import login
from tests.support.editing import post

PARTIAL = """
{% import "directory/entries/_section.html" as entries %}
{% macro toc(p, person) %}{% if p.patents %}<li><a href="#patents">Patents</a></li>{% endif %}
{% endmacro %}
{% macro profile(p, person) %}{% if p.patents %}
{% call entries.section(person, 'patents', 'Patents') %}
<ul>{% for e in p.patents %}<li class="patent">{{ e.title }} ({{ e.number }})</li>{% endfor %}</ul>
{% endcall %}{% endif %}{% endmacro %}
{% macro cv(p, person) %}{% if p.patents %}{% call entries.cv_section('patents', 'Patents') %}
<ul>{% for e in p.patents %}<li class="cv-patent">{{ e.title }}, {{ e.year }}</li>{% endfor %}</ul>
{% endcall %}{% endif %}{% endmacro %}
"""


@pytest.fixture
def patents(app: Flask) -> Iterator[type]:
    """The throwaway kind: its model (on the plugin's metadata, in a registry of its own so
    that it can be taken away again), its declaration and its partial."""

    class ThrowawayBase(DeclarativeBase):
        metadata = m.Base.metadata

    class Patent(m.EntryMixin, ThrowawayBase):
        __tablename__ = "directory_test_patents"

        title: Mapped[str] = mapped_column(String(300), nullable=False)
        number: Mapped[str | None] = mapped_column(String(60))
        year: Mapped[int | None] = mapped_column(Integer)
        url: Mapped[str | None] = mapped_column(String(1000))

    m.declare(
        m.EntryKind(
            "patents", Patent, ("title", "number", "year", "url"), N_("Patents"), N_("patent"),
            "patent", labels={"number": N_("Patent number")},
            cv_section=m.CvSection("patents", N_("Patents")), api_name="Patent",
        )
    )  # fmt: skip
    loader = app.jinja_env.loader
    app.jinja_env.loader = ChoiceLoader(
        [DictLoader({"directory/entries/patents.html": PARTIAL}), loader]
    )
    try:
        yield Patent
    finally:
        app.jinja_env.loader = loader
        m.ENTRY_KINDS.withdraw("patents")
        m.Base.metadata.remove(Patent.__table__)
        ThrowawayBase.registry.dispose()


@pytest.fixture
def owner(patents, db, make_person) -> m.Person:
    """A profile with one patent, in a database that has the kind's table."""
    patents.__table__.create(db.connection())
    person = make_person(user_key="ada")
    db.add(patents(owner_id=person.id, title="A fast lock", number="US-123", year=2024))
    db.commit()
    return person


def test_the_profile_and_the_cv_show_a_new_kind(client, owner) -> None:
    page = client.get("/directory/people/ada-lovelace").get_data(as_text=True)
    assert '<li><a href="#patents">Patents</a></li>' in page
    assert (
        '<section id="patents"' in page and '<li class="patent">A fast lock (US-123)</li>' in page
    )
    cv = client.get("/directory/people/ada-lovelace/cv").get_data(as_text=True)
    assert '<li class="cv-patent">A fast lock, 2024</li>' in cv
    assert ("patents", "Patents") in list(m.CV_SECTIONS)


def test_the_api_lists_a_new_kind_as_its_openapi_document_says(client, owner) -> None:
    data = client.get("/directory/api/v1/people/ada-lovelace").get_json()
    (patent,) = data["patents"]
    assert patent == {"id": patent["id"], "title": "A fast lock", "number": "US-123",
                      "year": 2024, "url": None}  # fmt: skip
    schemas = client.get("/directory/api/v1/openapi.json").get_json()["components"]["schemas"]
    assert set(schemas["Patent"]["properties"]) == set(patent)
    assert schemas["PersonDetail"]["properties"]["patents"]["items"]["$ref"].endswith("/Patent")


def test_a_new_kind_goes_through_the_interchange_document_and_back(db, owner, patents) -> None:
    doc = interchange.export_person(db, owner)
    assert doc["patents"] == [{"title": "A fast lock", "number": "US-123", "year": 2024,
                               "url": None, "visibility": "public"}]  # fmt: skip
    assert interchange.validate_document(doc, "ada.json") == []
    doc["patents"].append({"title": "A second lock", "visibility": "members"})
    interchange.import_documents(db, [("ada.json", doc)])
    rows = db.scalars(
        select(patents).where(patents.owner_id == owner.id).order_by(patents.position)
    )
    assert [(p.title, p.number, p.visibility) for p in rows] == [
        ("A fast lock", "US-123", "public"),
        ("A second lock", None, "members"),
    ]


def test_the_schema_checks_a_new_kind_with_the_models_limits(db, owner) -> None:
    doc = interchange.export_person(db, owner)
    doc["patents"] = [{"title": "x" * 301}, {"number": "US-9"}]
    problems = {(p.path, p.message.split(" ")[-1]) for p in interchange.validate_document(doc, "a")}
    assert ("$.patents[0].title", "long") in problems  # String(300) is its maxLength
    assert any(path == "$.patents[1]" for path, _ in problems)  # the title is required


def test_the_editor_and_the_history_name_a_new_kinds_fields(client, owner, db, patents) -> None:
    login(client, "ada")
    editor = client.get("/directory/me").get_data(as_text=True)
    assert "A fast lock" in editor and "/edit/patents/new" in editor
    form = client.get("/directory/people/ada-lovelace/edit/patents/new").get_data(as_text=True)
    assert "Patent number" in form and 'name="number"' in form
    entry = {"title": "A third lock", "number": "EP-7", "visibility": "public"}
    response = post(client, "/directory/people/ada-lovelace/edit/patents/new", entry)
    assert response.status_code == 302
    assert db.scalar(select(patents.number).where(patents.title == "A third lock")) == "EP-7"
    history = client.get("/directory/people/ada-lovelace/history").get_data(as_text=True)
    assert "Patent number" in history and "EP-7" in history


# ----------------------------------------------------------------------------- the shipped kinds


def test_the_shipped_schema_is_what_the_declarations_make() -> None:
    """profile.schema.json is published as it is; its entry definitions (field lists,
    types, vocabularies, required fields and maxLength from the columns) are exactly those
    the declarations make, so neither can drift from the other."""
    text = resources.files("directory").joinpath("schema/profile.schema.json").read_text("utf-8")
    shipped = json.loads(text)
    assert interchange.schema() == shipped
    assert text == interchange.schema_text(), "run scripts/write_profile_schema.py"
    for kind in m.ENTRY_KINDS.values():
        assert interchange.entry_definition(kind) == shipped["$defs"][kind.document_name]


def _length_limits(form: type) -> dict[str, int]:
    limits = {}
    for name in dir(form):
        unbound = getattr(form, name)
        validators: Any = unbound.kwargs.get("validators") if hasattr(unbound, "kwargs") else None
        if validators is None and hasattr(unbound, "args") and len(unbound.args) > 1:
            validators = unbound.args[1]
        for validator in validators or ():
            if isinstance(validator, Length):
                limits[name] = validator.max
    return limits


@pytest.mark.parametrize("name", list(m.ENTRY_KINDS))
def test_every_form_allows_what_its_model_holds(name: str) -> None:
    """Each editing form's text fields are as long as the model's columns (written once, in
    the model's String(n))."""
    kind, form = m.ENTRY_KINDS[name], KINDS[name].form
    limits = _length_limits(form)
    for column in kind.model.__table__.columns:
        if column.key in limits and getattr(column.type, "length", None):
            assert limits[column.key] == column.type.length, (name, column.key)
    assert limits
