"""the built-in login's sessions, one row per sign-in: signing out ends only that one

Until now signing out moved the account's session generation on, which ended every session
of the account (a second browser was signed out too). Each sign-in now gets a row here, named
by the hash of a random token its cookie carries; signing out deletes that row. "Sign out of
all sessions" and a new password delete all of the account's rows. Cookies issued before this
migration carry no token: their owners sign in again once.

Revision ID: hosts_1
Revises: claims_2
"""

import sqlalchemy as sa
from alembic import op

revision = "hosts_1"
down_revision = "claims_2"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "directory_sign_in_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["directory_local_accounts.id"], ondelete="CASCADE",
            name="fk_directory_sign_in_sessions_account_id",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_directory_sign_in_sessions"),
        sa.UniqueConstraint("token_hash", name="uq_directory_sign_in_sessions_token_hash"),
    )
    op.create_index(
        "ix_directory_sign_in_sessions_account_id", "directory_sign_in_sessions", ["account_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_directory_sign_in_sessions_account_id", "directory_sign_in_sessions")
    op.drop_table("directory_sign_in_sessions")
