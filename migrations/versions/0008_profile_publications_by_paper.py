"""index directory_profile_publications by publication_id

The primary key (person_id, publication_id) cannot serve a lookup by paper, which is what the
"listed on a visible profile" rule does for every paper of a department page: without this
index SQLite scans the table once per paper (quadratic pages).

Revision ID: speed_1
Revises: harden_1
"""

from alembic import op

revision = "speed_1"
down_revision = "harden_1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        op.f("ix_directory_profile_publications_publication_id"),
        "directory_profile_publications",
        ["publication_id"],
    )


def downgrade() -> None:
    op.drop_index(
        op.f("ix_directory_profile_publications_publication_id"),
        table_name="directory_profile_publications",
    )
