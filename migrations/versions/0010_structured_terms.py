"""recruiting notices: the intake as season and year (or rolling), read from the old text

Before this, a notice's intake was free text ("Fall 2027", "2027 fall", empty for rolling),
so a visitor's term filter matched only the same spelling and hid every rolling notice. The
upgrade reads each text as a season and a year; empty or "rolling" becomes rolling (both
columns empty). Text naming no term is kept in ``term`` as it was written (flagged to its
owner), never dropped. The downgrade writes the terms back as text ("Fall 2027").

The columns are added and dropped in place (SQLite 3.35 or newer drops a column itself), not
by a batch copy of the table: dropping the old copy would delete every notice's areas through
directory_notice_areas' ON DELETE CASCADE.

The reader is a copy, frozen here, of ``directory.models.parse_term`` as it was when this
migration was written (a migration must not change when the package does).

Revision ID: terms_1
Revises: names_1
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "terms_1"
down_revision = "names_1"
branch_labels = None
depends_on = None

_ROLLING = {"", "rolling", "rolling intake", "any", "any time", "anytime", "open", "ongoing"}
_SEASONS = {"spring": "spring", "summer": "summer", "fall": "fall", "autumn": "fall",
            "winter": "winter"}  # fmt: skip
_SEASON = "(" + "|".join(_SEASONS) + ")"
_PATTERNS = (
    re.compile(rf"^{_SEASON}[\s,]*(?:of\s+)?(\d{{4}})$"),
    re.compile(rf"^(\d{{4}})[\s,]*{_SEASON}$"),
)
_LABELS = {"spring": "Spring", "summer": "Summer", "fall": "Fall", "winter": "Winter"}

notices = sa.table(
    "directory_recruiting_notices",
    sa.column("id", sa.Integer),
    sa.column("term", sa.String),
    sa.column("term_season", sa.String),
    sa.column("term_year", sa.Integer),
)


def _parse(text):
    """(season, year), (None, None) for rolling, or None for text naming no term."""
    words = " ".join((text or "").lower().replace("-", " ").split())
    if words in _ROLLING:
        return None, None
    for pattern in _PATTERNS:
        found = pattern.match(words)
        if found:
            first, second = found.groups()
            season, year = (first, second) if not first.isdigit() else (second, first)
            if 1900 <= int(year) <= 2200:
                return _SEASONS[season], int(year)
    return None


def upgrade() -> None:
    op.add_column("directory_recruiting_notices", sa.Column("term_season", sa.String(length=16)))
    op.add_column("directory_recruiting_notices", sa.Column("term_year", sa.Integer()))
    bind = op.get_bind()
    for notice_id, text in bind.execute(sa.select(notices.c.id, notices.c.term)).all():
        parsed = _parse(text)
        if parsed is None:
            continue  # kept as written, flagged on the owner's editor
        season, year = parsed
        bind.execute(
            notices.update()
            .where(notices.c.id == notice_id)
            .values(term_season=season, term_year=year, term=None)
        )


def downgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(notices.c.id, notices.c.term_season, notices.c.term_year).where(
            notices.c.term_season.isnot(None), notices.c.term_year.isnot(None)
        )
    ).all()
    for notice_id, season, year in rows:
        bind.execute(
            notices.update()
            .where(notices.c.id == notice_id)
            .values(term=f"{_LABELS.get(season, season.title())} {year}")
        )
    op.drop_column("directory_recruiting_notices", "term_year")
    op.drop_column("directory_recruiting_notices", "term_season")
