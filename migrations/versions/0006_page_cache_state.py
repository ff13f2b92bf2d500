"""page cache state: the generation counter every directory write moves on

Revision ID: quality_1
Revises: pubs_1
"""

import sqlalchemy as sa
from alembic import op

revision = "quality_1"
down_revision = "pubs_1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "directory_cache_state",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_directory_cache_state")),
    )
    # The one row the page cache reads and every write transaction updates.
    op.bulk_insert(table, [{"id": 1, "generation": 0}])


def downgrade() -> None:
    op.drop_table("directory_cache_state")
