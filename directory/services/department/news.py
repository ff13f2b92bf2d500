"""The department news page: news items gathered from the profiles a viewer may see."""

from __future__ import annotations

import math
from datetime import date
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from directory import models as m
from directory.services.access import owned_entry_clause
from directory.services.identity import Viewer
from directory.services.paging import Page

# Built once (building an alias costs milliseconds).
_OWNER = aliased(m.Person, name="owner")


def news_page(session: Session, viewer: Viewer, number: int, page_size: int) -> Page[Any]:
    """Department news gathered from profiles, newest first: rows of (NewsItem, Person)."""
    owner = _OWNER
    conditions = owned_entry_clause(viewer, m.NewsItem, owner)
    total = (
        session.scalar(
            select(func.count(m.NewsItem.id))
            .join(owner, owner.id == m.NewsItem.owner_id)
            .where(conditions)
        )
        or 0
    )
    number = min(max(1, number), max(1, math.ceil(total / page_size)))
    rows = session.execute(
        select(m.NewsItem, owner)
        .join(owner, owner.id == m.NewsItem.owner_id)
        .where(conditions)
        .order_by(
            m.NewsItem.year.desc(),
            m.NewsItem.month.desc().nulls_last(),
            m.NewsItem.day.desc().nulls_last(),
            m.NewsItem.id.desc(),
        )
        .limit(page_size)
        .offset((number - 1) * page_size)
    ).all()
    return Page([tuple(row) for row in rows], number, page_size, total)


def news_date(item: m.NewsItem) -> date:
    """The date a news item is about (the first of the month or year when vaguer)."""
    month = item.month if item.month and 1 <= item.month <= 12 else 1
    try:
        return date(item.year, month, item.day or 1)
    except ValueError:
        return date(item.year, month, 1)
