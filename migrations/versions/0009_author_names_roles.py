"""author name parts, roles, "et al." and co-author link suggestions

An authorship keeps the parts BibTeX (or ORCID) gave its name — given, particle ("von"),
family, suffix ("Jr") — so exports need not guess them back from the printed name; its role
(author or editor); and ``suggested_person_id``: a department member the printed name may be
(initials, a first name and surname), shown to that member to confirm and not on their profile
until they do (or, having said it is not them, are not asked again). An import draft keeps
the site address its relative links are resolved against. A paper whose author list was cut short ("and others") says so.

Revision ID: names_1
Revises: speed_1
"""

import sqlalchemy as sa
from alembic import op

revision = "names_1"
down_revision = "speed_1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD/DROP COLUMN for the tables other rows point at: SQLite's batch mode would
    # recreate them, and dropping the old table cascades into its children (papers' profile
    # rows, links, awards) with foreign keys on. Nothing points at authorships.
    op.add_column(
        "directory_import_drafts", sa.Column("base_url", sa.String(length=1000), nullable=True)
    )
    op.add_column(
        "directory_publications",
        sa.Column("authors_incomplete", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    with op.batch_alter_table("directory_authorships", schema=None) as batch_op:
        batch_op.add_column(sa.Column("given", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("particle", sa.String(length=60), nullable=True))
        batch_op.add_column(sa.Column("family", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("suffix", sa.String(length=40), nullable=True))
        batch_op.add_column(
            sa.Column("role", sa.String(length=16), server_default="author", nullable=False)
        )
        batch_op.add_column(sa.Column("suggested_person_id", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "suggestion_declined", sa.Boolean(), server_default=sa.false(), nullable=False
            )
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_directory_authorships_suggested_person_id_directory_people"),
            "directory_people",
            ["suggested_person_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch_op.create_index(
            batch_op.f("ix_directory_authorships_suggested_person_id"),
            ["suggested_person_id"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("directory_authorships", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_directory_authorships_suggested_person_id"))
        batch_op.drop_constraint(
            batch_op.f("fk_directory_authorships_suggested_person_id_directory_people"),
            type_="foreignkey",
        )
        for name in ("suggestion_declined", "suggested_person_id", "role", "suffix", "family",
                     "particle", "given"):  # fmt: skip
            batch_op.drop_column(name)
    op.drop_column("directory_publications", "authors_incomplete")
    op.drop_column("directory_import_drafts", "base_url")
