"""index directory_areas.parent_id

The area filter (an area and every area under it) walks the taxonomy down from one area, a
lookup by parent for every area it reaches: without this index SQLite builds an automatic
index on every statement that filters by area.

Revision ID: speed_2
Revises: onboard_1
"""

from alembic import op

revision = "speed_2"
down_revision = "onboard_1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(op.f("ix_directory_areas_parent_id"), "directory_areas", ["parent_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_directory_areas_parent_id"), table_name="directory_areas")
