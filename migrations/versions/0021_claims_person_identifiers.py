"""a person's identifiers at the bibliographic sources: ORCID iD, DBLP pid, OpenAlex and
Semantic Scholar author ids (one person each)

Revision ID: claims_1
Revises: speed_4
"""

import sqlalchemy as sa
from alembic import op

revision = "claims_1"
down_revision = "speed_4"
branch_labels = None
depends_on = None

TABLE = "directory_people"
COLUMNS = (("orcid", 19), ("dblp_pid", 80), ("openalex_id", 20), ("semantic_scholar_id", 20))


def upgrade() -> None:
    # In place, never a batch copy: on SQLite a batch copy drops the old table, and ON DELETE
    # CASCADE would take every row referring to a person with it (their entries, authorships).
    # Unique indexes, not constraints, for the same reason: SQLite adds an index in place.
    for name, length in COLUMNS:
        op.add_column(TABLE, sa.Column(name, sa.String(length), nullable=True))
        op.create_index(f"ix_{TABLE}_{name}", TABLE, [name], unique=True)


def downgrade() -> None:
    for name, _length in COLUMNS:
        op.drop_index(f"ix_{TABLE}_{name}", table_name=TABLE)
    # SQLite drops a column in place since 3.35 (no batch copy, for the reason above).
    for name, _length in COLUMNS:
        op.drop_column(TABLE, name)
