"""a candidate answered "mine" and held for approval waits on its proposal

A student's "Mine" is held for approval (a PendingChange). The candidate now records that
proposal and the state "waiting": it is shown as waiting, not offered again, accepted when
the proposal is approved and asked again when it is rejected.

Revision ID: claims2_1
Revises: speed_5
"""

import sqlalchemy as sa
from alembic import op

revision = "claims2_1"
down_revision = "speed_5"
branch_labels = None
depends_on = None

TABLE = "directory_claim_candidates"
INDEX = "ix_directory_claim_candidates_pending_change_id"


def upgrade() -> None:
    op.add_column(TABLE, sa.Column("pending_change_id", sa.Integer(), nullable=True))
    op.create_index(INDEX, TABLE, ["pending_change_id"])


def downgrade() -> None:
    # A candidate that waited is asked again (its proposal stays in the approval queue).
    op.execute(f"UPDATE {TABLE} SET state = 'pending' WHERE state = 'waiting'")
    op.drop_index(INDEX, table_name=TABLE)
    op.drop_column(TABLE, "pending_change_id")
