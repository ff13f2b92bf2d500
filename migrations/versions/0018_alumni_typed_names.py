"""typed student names stored folded and in order: ``student_fold`` and ``student_key``;
the advising relations indexed by status

The alumni outputs merge a student's graduations into one record per student and degree; a
student without a profile is their typed name case-folded ("DEE NAME" and "Dee Name" are one
alumnus), and the records are ordered by name in the reader's order. Both were worked out in
Python on every graduation of the directory, on every request, because SQL's ``lower`` is not
Python's ``casefold`` ("Straße" and "STRASSE") and the name order is not a collation. Stored
(``directory.formats.names.typed_name_keys``), the database merges, counts, orders and pages
the records. ``student_key`` compares character by character: ``COLLATE "C"`` on PostgreSQL.

The columns are added in place (no batch copy) and filled from each relation's typed name;
the package fills them on every insert and update (``directory.db.fill_typed_name_keys``).
The relations are indexed by status: every alumni statement reads the graduated ones only
(a fifth of them in a department).

The keys are computed by a copy, frozen here, of the package's functions as they were when this
migration was written.

Revision ID: alumni_2
Revises: listing_1
"""

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "alumni_2"
down_revision = "listing_1"
branch_labels = None
depends_on = None

_ESCAPES = str.maketrans({"\x00": "\x02\x02", "\x01": "\x02\x03", "\x02": "\x02\x04"})

advising = sa.table(
    "directory_advising",
    sa.column("id", sa.Integer),
    sa.column("student_name", sa.String),
    sa.column("student_fold", sa.Text),
    sa.column("student_key", sa.Text),
)


def _fold(text):
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.replace(",", " ").casefold().split())


def _key(name):
    return "\x01".join(part.translate(_ESCAPES) for part in (_fold(name), "", name))


def upgrade() -> None:
    bind = op.get_bind()
    text = sa.Text(collation="C") if bind.dialect.name == "postgresql" else sa.Text()
    op.add_column("directory_advising", sa.Column("student_fold", text, nullable=True))
    op.add_column("directory_advising", sa.Column("student_key", text, nullable=True))
    rows = bind.execute(
        sa.select(advising.c.id, advising.c.student_name).where(advising.c.student_name.isnot(None))
    ).all()
    values = [
        {"relation_id": rel_id, "student_fold": name.casefold(), "student_key": _key(name)}
        for rel_id, name in rows
    ]
    if values:
        bind.execute(
            advising.update()
            .where(advising.c.id == sa.bindparam("relation_id"))
            .values(
                student_fold=sa.bindparam("student_fold"), student_key=sa.bindparam("student_key")
            ),
            values,
        )
    op.create_index("ix_directory_advising_status", "directory_advising", ["status"])


def downgrade() -> None:
    op.drop_index("ix_directory_advising_status", table_name="directory_advising")
    op.drop_column("directory_advising", "student_key")
    op.drop_column("directory_advising", "student_fold")
