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
    with op.batch_alter_table("directory_import_drafts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("base_url", sa.String(length=1000), nullable=True))
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
    with op.batch_alter_table("directory_publications", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("authors_incomplete", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("directory_publications", schema=None) as batch_op:
        batch_op.drop_column("authors_incomplete")
    with op.batch_alter_table("directory_authorships", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_directory_authorships_suggested_person_id"))
        batch_op.drop_constraint(
            batch_op.f("fk_directory_authorships_suggested_person_id_directory_people"),
            type_="foreignkey",
        )
        batch_op.drop_column("suggestion_declined")
        batch_op.drop_column("suggested_person_id")
        batch_op.drop_column("role")
        batch_op.drop_column("suffix")
        batch_op.drop_column("family")
        batch_op.drop_column("particle")
        batch_op.drop_column("given")
    with op.batch_alter_table("directory_import_drafts", schema=None) as batch_op:
        batch_op.drop_column("base_url")
