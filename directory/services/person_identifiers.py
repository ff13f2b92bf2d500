"""Who holds an identifier at a bibliographic source (ORCID iD, DBLP pid, OpenAlex and
Semantic Scholar author ids): each belongs to one person, and a form or an onboarding file
that gives one already held says whose it is."""

from __future__ import annotations

from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.person_ids import (
    IDENTIFIER_SCHEMES,
    PERSON_IDENTIFIERS,
    IdentifierError,
    normalise_identifier,
)


def identifiers_of(person: Any) -> dict[str, str | None]:
    """The person's identifiers by document key ("orcid", "dblp", "openalex",
    "semantic_scholar")."""
    return {s.key: getattr(person, s.column) for s in PERSON_IDENTIFIERS}


def set_identifiers(person: m.Person, values: dict[str, str | None]) -> None:
    """Set the identifiers ``values`` names (already in their stored form)."""
    for key, value in values.items():
        setattr(person, IDENTIFIER_SCHEMES[key].column, value or None)


def holders(
    session: Session, values: dict[str, str | None], except_id: int | None = None
) -> dict[str, m.Person]:
    """Of ``values`` (document key -> stored form), those another person than ``except_id``
    already holds, with that person."""
    wanted = {k: v for k, v in values.items() if v}
    if not wanted:
        return {}
    columns = {k: getattr(m.Person, IDENTIFIER_SCHEMES[k].column) for k in wanted}
    stmt = select(m.Person).where(or_(*(columns[k] == v for k, v in wanted.items())))
    if except_id is not None:
        stmt = stmt.where(m.Person.id != except_id)
    found: dict[str, m.Person] = {}
    for person in session.scalars(stmt):
        for key, value in wanted.items():
            if getattr(person, IDENTIFIER_SCHEMES[key].column) == value:
                found[key] = person
    return found


def identifier_problems(values: dict[str, Any]) -> dict[str, str]:
    """Of a document's ``"identifiers"``, each that is not an identifier of its kind, with
    why (an ORCID iD's check digit, a DBLP pid's shape...)."""
    problems = {}
    for key, value in values.items():
        try:
            normalise_identifier(key, value)
        except IdentifierError as error:
            problems[key] = str(error)
    return problems


def read_identifiers(values: dict[str, Any]) -> dict[str, str | None]:
    """A document's ``"identifiers"`` in their stored forms (checked by
    :func:`identifier_problems` first)."""
    return {key: normalise_identifier(key, value) for key, value in values.items()}
