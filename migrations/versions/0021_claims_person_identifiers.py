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
    with op.batch_alter_table(TABLE) as batch:
        for name, length in COLUMNS:
            batch.add_column(sa.Column(name, sa.String(length), nullable=True))
            batch.create_unique_constraint(f"uq_{TABLE}_{name}", [name])


def downgrade() -> None:
    with op.batch_alter_table(TABLE) as batch:
        for name, _length in COLUMNS:
            batch.drop_constraint(f"uq_{TABLE}_{name}", type_="unique")
            batch.drop_column(name)
