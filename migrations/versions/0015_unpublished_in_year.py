"""the owner's choice to list unpublished papers in their year

``directory_people.unpublished_in_year``: whether preprints and papers under review (or in
preparation) that have a year are listed among that year's papers instead of under their
status ahead of the years (default no: under their status, as before).

Revision ID: papers_3
Revises: speed_2
"""

import sqlalchemy as sa
from alembic import op

revision = "papers_3"
down_revision = "speed_2"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ALTER TABLE ... ADD/DROP COLUMN, never a batch: on SQLite a batch copies the table
    # and drops the old one, and the drop deletes every row referring to a person (cascade).
    op.add_column(
        "directory_people",
        sa.Column("unpublished_in_year", sa.Boolean(), server_default=sa.false(), nullable=False),
    )


def downgrade() -> None:
    op.drop_column("directory_people", "unpublished_in_year")
