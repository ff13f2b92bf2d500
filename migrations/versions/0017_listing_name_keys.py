"""people's names in the listing's order, stored: ``name_key`` and ``name_key_zh``

The people listing sorts by role, rank and then by name in the reader's language (in Chinese,
a name written in Han characters by its pinyin). That order was worked out in Python on the
names of everyone matching, on every request, so a page cost as much as the whole directory.
Stored, one key per language's order (``directory.formats.names.name_keys``: every language
but Chinese, and Chinese), the database sorts and pages the listing and counts its groups and
letters. The keys compare character by character: ``COLLATE "C"`` on PostgreSQL, whose default
collation is not binary; SQLite compares text so by default. An index of role, the listing
rule's columns, both keys, rank and id lets the listing's counts and page read it alone.

The columns are added in place (never a batch copy: dropping the old copy would delete every
row referring to a person, ON DELETE CASCADE) and filled from each person's names. On SQLite a
column added NOT NULL needs a default, which stays (the package fills the keys on every insert
and update, ``directory.db.fill_name_keys``); PostgreSQL drops it once the rows are filled.

The keys are computed by a copy, frozen here, of ``directory.formats.names.name_sort_key``
and ``stored_sort_key`` as they were when this migration was written (a migration must not
change when the package does).

Revision ID: listing_1
Revises: speed_3
"""

import unicodedata

import sqlalchemy as sa
from alembic import op
from pypinyin import Style, lazy_pinyin

revision = "listing_1"
down_revision = "speed_3"
branch_labels = None
depends_on = None

_COLUMNS = {"name_key": "en", "name_key_zh": "zh"}
_ESCAPES = str.maketrans({"\x00": "\x02\x02", "\x01": "\x02\x03", "\x02": "\x02\x04"})

people = sa.table(
    "directory_people",
    sa.column("id", sa.Integer),
    sa.column("full_name", sa.String),
    sa.column("sort_name", sa.String),
    sa.column("native_name", sa.String),
    sa.column("name_key", sa.Text),
    sa.column("name_key_zh", sa.Text),
)


def _fold(text):
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.replace(",", " ").casefold().split())


def _key(sort_name, native_name, locale):
    han = native_name and any(
        unicodedata.name(c, "").startswith("CJK UNIFIED IDEOGRAPH") for c in native_name
    )
    if locale == "zh" and han:
        written = native_name.strip()
        plain = _fold(" ".join(lazy_pinyin(written, style=Style.NORMAL)))
        toned = " ".join(lazy_pinyin(written, style=Style.TONE3, neutral_tone_with_five=True))
        parts = (plain, toned, native_name)
    else:
        parts = (_fold(sort_name), "", sort_name)
    return "\x01".join(part.translate(_ESCAPES) for part in parts)


def upgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    text = sa.Text(collation="C") if postgresql else sa.Text()
    for column in _COLUMNS:
        op.add_column(
            "directory_people", sa.Column(column, text, server_default="", nullable=False)
        )
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(people.c.id, people.c.sort_name, people.c.full_name, people.c.native_name)
    ).all()
    values = [
        {
            "person_id": person_id,
            **{
                column: _key(sort_name or full_name, native_name, locale)
                for column, locale in _COLUMNS.items()
            },
        }
        for person_id, sort_name, full_name, native_name in rows
    ]
    if values:
        bind.execute(
            people.update()
            .where(people.c.id == sa.bindparam("person_id"))
            .values(name_key=sa.bindparam("name_key"), name_key_zh=sa.bindparam("name_key_zh")),
            values,
        )
    if postgresql:
        for column in _COLUMNS:
            op.alter_column("directory_people", column, server_default=None)
    # The listing's counts and page read this index only, not the people's wide rows.
    op.create_index(
        "ix_directory_people_listing",
        "directory_people",
        ["role", "visibility", "active", "published", "name_key", "name_key_zh", "rank", "id"],
    )


def downgrade() -> None:
    op.drop_index("ix_directory_people_listing", table_name="directory_people")
    op.drop_column("directory_people", "name_key_zh")
    op.drop_column("directory_people", "name_key")
