"""The person cards of the department's pages (the people listing, a research area's people,
a host's fragments), read as plain values: the columns a card and its JSON-LD read, in three
statements per list of cards (the people with their photo's facts, their links, their areas),
without an ORM object for each of the thousand or so rows of a full page.

The card macro, :func:`~directory.web.structured.person_data` and the access helpers read
these exactly as they read the mapped objects: the attribute names are the models'. The
values are read-only: a page that changes a person loads it as an object. Which people a list
shows is the caller's statement (:func:`card_select` with its filters and order), built from
the rules of :mod:`directory.services.access`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.services.shown_papers import ShownLink

#: A person's own columns that a card, its JSON-LD, the listing's groups (role and rank) and
#: the access checks (``person_visible``) read; not the biography, address or other columns
#: of the profile page.
CARD_COLUMNS = (
    "id", "slug", "full_name", "native_name", "title", "role", "rank", "unit", "institution",
    "visibility", "published",
)  # fmt: skip
#: A photo as a card shows it: that there is one, its cache key and how to crop it (its bytes
#: stay in the database, served by the photo's own address).
PHOTO_COLUMNS = ("etag", "alt_text", "width", "height", "focus_x", "focus_y")
AREA_COLUMNS = ("id", "slug", "name")
#: A link as a paper's or a person's shows it (:class:`ShownLink`, the papers' own).
LINK_COLUMNS = ("kind", "url", "label")


@dataclass(slots=True, eq=False)
class CardPhoto:
    etag: str
    alt_text: str | None
    width: int
    height: int
    focus_x: int
    focus_y: int


@dataclass(slots=True, eq=False)
class CardArea:
    id: int
    slug: str
    name: str


@dataclass(slots=True, eq=False)
class PersonCard:
    """A person as their card reads them (the attributes of :class:`~directory.models.Person`
    that the card macro, ``person_data`` and ``person_visible`` use)."""

    id: int
    slug: str
    full_name: str
    native_name: str | None
    title: str | None
    role: str
    rank: str | None
    unit: str | None
    institution: str | None
    visibility: str
    published: bool
    photo: CardPhoto | None = None
    areas: list[CardArea] = field(default_factory=list)
    links: list[ShownLink] = field(default_factory=list)


def _columns(model: Any, names: Iterable[str]) -> list[Any]:
    return [getattr(model, name) for name in names]


def card_select() -> Select:
    """A statement of people as cards (:data:`CARD_COLUMNS` and the photo's
    :data:`PHOTO_COLUMNS`, none for no photo): the caller adds who (its ``where``), in what
    order and how many, and :func:`shown_cards_of` reads it."""
    photo = m.PersonPhoto
    return select(*_columns(m.Person, CARD_COLUMNS), *_columns(photo, PHOTO_COLUMNS)).outerjoin(
        photo, photo.person_id == m.Person.id
    )


@cache
def _statements() -> dict[str, Any]:
    """The links' and areas' statements, built once: the people's ids are one expanding
    parameter (``ids``). Each in the order of the models' relationships (links by position,
    areas by name), then by id."""
    ids = bindparam("ids", expanding=True)
    link, area, person_areas = m.PersonLink, m.ResearchArea, m.person_areas
    return {
        "links": select(link.person_id, *_columns(link, LINK_COLUMNS))
        .where(link.person_id.in_(ids))
        .order_by(link.person_id, link.position, link.id),
        "areas": select(person_areas.c.person_id, *_columns(area, AREA_COLUMNS))
        .join(area, area.id == person_areas.c.area_id)
        .where(person_areas.c.person_id.in_(ids))
        .order_by(person_areas.c.person_id, area.name, area.id),
    }


def shown_cards_of(session: Session, stmt: Select) -> list[PersonCard]:
    """The people ``stmt`` (:func:`card_select`, with its filters, order and limit) selects,
    in its order, each with their photo's facts, links and areas: three statements, whatever
    their number (one for no one). No visibility filter: the caller's statement chose who is
    shown. Read on the session's connection (plain columns need none of the ORM's work on
    their rows): the pages that show cards have written nothing that is not flushed."""
    execute = session.connection().execute
    own = len(CARD_COLUMNS)
    cards = []
    for row in execute(stmt):
        card = PersonCard(*row[:own])
        if row[own] is not None:  # the etag: there is a photo
            card.photo = CardPhoto(*row[own:])
        cards.append(card)
    if not cards:
        return cards
    by_id = {card.id: card for card in cards}
    statements, given = _statements(), {"ids": sorted(by_id)}
    for person_id, *values in execute(statements["links"], given):
        by_id[person_id].links.append(ShownLink(*values))
    for person_id, *values in execute(statements["areas"], given):
        by_id[person_id].areas.append(CardArea(*values))
    return cards


def card_by_slug(session: Session, slug: str) -> PersonCard | None:
    """The card of the person at ``slug`` (whoever may see them: the caller checks)."""
    cards = shown_cards_of(session, card_select().where(m.Person.slug == slug))
    return cards[0] if cards else None
