"""profiles start unpublished (people.published); reminder e-mails (directory_reminders)

Existing people stay published (the column's server default is true).

Revision ID: onboard_1
Revises: papers_2
"""

import sqlalchemy as sa
from alembic import op

revision = "onboard_1"
down_revision = "papers_2"
branch_labels = None
depends_on = None


# Plain ALTER TABLE, never batch mode: on SQLite a batch operation copies and drops
# directory_people, and with foreign keys on, dropping it deletes every row that refers to it
# (entries, papers' listings...) by their ON DELETE CASCADE. SQLite adds a column with a
# default, and drops one (3.35+), in place.


def upgrade() -> None:
    op.add_column(
        "directory_people",
        sa.Column("published", sa.Boolean(), server_default=sa.true(), nullable=False),
    )
    op.create_table(
        "directory_reminders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_to", sa.String(length=254), nullable=False),
        sa.Column("sent_by_key", sa.String(length=254), nullable=True),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["person_id"],
            ["directory_people.id"],
            name=op.f("fk_directory_reminders_person_id_directory_people"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_directory_reminders")),
    )
    op.create_index(
        op.f("ix_directory_reminders_person_id"), "directory_reminders", ["person_id"]
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_directory_reminders_person_id"), table_name="directory_reminders")
    op.drop_table("directory_reminders")
    op.drop_column("directory_people", "published")
