"""index the department's papers by their order and by year and type

The department's publication pages and API list papers newest first and count them by year and
type. With an index in that order a page reads as many papers as it shows (each checked against
the "listed on a visible profile" rule, an EXISTS looked up by paper) instead of sorting every
paper; the counts read a narrow index instead of the table's wide rows.

Revision ID: speed_3
Revises: papers_3
"""

from alembic import op

revision = "speed_3"
down_revision = "papers_3"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # SQLite reads it backwards; PostgreSQL needs the order's NULLS LAST built in. Not in the
    # models: directory.migrate.ENGINE_SPECIFIC_INDEXES.
    op.create_index(
        "ix_directory_publications_newest",
        "directory_publications",
        ["year", "month"],
        postgresql_ops={"year": "DESC NULLS LAST", "month": "DESC NULLS LAST"},
    )
    op.create_index(
        "ix_directory_publications_facets",
        "directory_publications",
        ["year", "type", "visibility", "created_by_id"],
    )


def downgrade() -> None:
    op.drop_index("ix_directory_publications_facets", table_name="directory_publications")
    op.drop_index("ix_directory_publications_newest", table_name="directory_publications")
