"""Editing forms made from an entry kind's declaration, for the kinds that have no form
written by hand in :mod:`directory.web.forms` (see :data:`directory.web.entry_kinds.FORMS`).

Each declared field becomes the field its column asks for; labels are the history's
(:func:`directory.services.snapshots.field_label`, which reads the declaration's own first)
and text limits the column's ``String(n)``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Boolean, Date, Integer
from wtforms import BooleanField, DateField, IntegerField, SelectField
from wtforms.validators import InputRequired, Optional

from directory import models as m
from directory.i18n import lazy_gettext as _l
from directory.services.snapshots import field_label
from directory.web.forms import MONTH, YEAR, EntryForm, markdown, text, url_field, vocab


def _declared_field(kind: m.EntryKind, name: str) -> Any:
    """The form field of one declared field, read from its column: a select of its
    vocabulary, a checkbox, a year or month, a date, a link, a line of text as long as the
    column allows, or Markdown for unlimited text."""
    column = kind.model.__table__.columns[name]
    label = _l(field_label(name, kind.name))
    required = not column.nullable and column.default is None
    if name in kind.vocabularies:
        default = column.default.arg if column.default is not None else None
        return SelectField(label, choices=vocab(kind.vocabularies[name]), default=default)
    if isinstance(column.type, Boolean):
        return BooleanField(label)
    if isinstance(column.type, Integer):
        checks = MONTH if name.endswith("month") else YEAR
        first = InputRequired(message=_l("This field is required.")) if required else checks[0]
        return IntegerField(label, [first, *checks[1:]])
    if isinstance(column.type, Date):
        return DateField(label, [Optional()])
    if name == "url" or name.endswith("_url"):
        return url_field(label)
    if getattr(column.type, "length", None):
        return text(label, column.type.length, required=required)
    return markdown(label, required=required)


def declared_entry_form(kind: m.EntryKind) -> type[EntryForm]:
    """The editing form of a kind that has none written by hand: one field per declared
    field, in the declaration's order."""
    fields = {name: _declared_field(kind, name) for name in kind.fields}
    return type(f"{kind.model.__name__}Form", (EntryForm,), fields)
