"""sessions end on sign-out; failed sign-ins throttled per account and per source

Revision ID: harden_1
Revises: quality_1
"""

import sqlalchemy as sa
from alembic import op

revision = "harden_1"
down_revision = "quality_1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("directory_local_accounts") as batch:
        batch.add_column(
            sa.Column("session_generation", sa.Integer(), server_default="0", nullable=False)
        )
        # The lockout moves to directory_sign_in_throttle (per pair, source and name).
        batch.drop_column("failed_attempts")
        batch.drop_column("first_failed_at")
        batch.drop_column("locked_until")
    op.create_table(
        "directory_sign_in_throttle",
        sa.Column("key", sa.String(length=320), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("blocked_until", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_directory_sign_in_throttle")),
    )


def downgrade() -> None:
    op.drop_table("directory_sign_in_throttle")
    with op.batch_alter_table("directory_local_accounts") as batch:
        batch.add_column(sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("first_failed_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column("failed_attempts", sa.Integer(), server_default="0", nullable=False)
        )
        batch.drop_column("session_generation")
