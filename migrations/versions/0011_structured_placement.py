"""structured placement on advising relations: organisation, kind, year, and an "unparsed" flag

The free text stays as it was; its structure is read from it here with the same parser the
editor uses (directory.formats.placements, which imports nothing of the plugin), and a text it
cannot read is flagged for the profile's editors instead of guessed.

Revision ID: alumni_1
Revises: terms_1
"""

import sqlalchemy as sa
from alembic import op

from directory.formats.placements import parse_placement

revision = "alumni_1"
down_revision = "terms_1"
branch_labels = None
depends_on = None

advising = sa.table(
    "directory_advising",
    sa.column("id", sa.Integer),
    sa.column("placement", sa.String),
    sa.column("placement_organisation", sa.String),
    sa.column("placement_kind", sa.String),
    sa.column("placement_year", sa.Integer),
    sa.column("placement_unparsed", sa.Boolean),
)


def upgrade() -> None:
    with op.batch_alter_table("directory_advising", schema=None) as batch_op:
        batch_op.add_column(sa.Column("placement_organisation", sa.String(length=200)))
        batch_op.add_column(sa.Column("placement_kind", sa.String(length=24)))
        batch_op.add_column(sa.Column("placement_year", sa.Integer()))
        batch_op.add_column(
            sa.Column("placement_unparsed", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("directory_advising", schema=None) as batch_op:
        batch_op.alter_column("placement_unparsed", server_default=None)

    conn = op.get_bind()
    rows = conn.execute(
        sa.select(advising.c.id, advising.c.placement).where(
            advising.c.placement.isnot(None), advising.c.placement != ""
        )
    ).all()
    for row_id, text in rows:
        found = parse_placement(text)
        conn.execute(
            advising.update()
            .where(advising.c.id == row_id)
            .values(
                placement_organisation=found.organisation,
                placement_kind=found.kind,
                placement_year=found.year,
                placement_unparsed=not found.understood,
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("directory_advising", schema=None) as batch_op:
        batch_op.drop_column("placement_unparsed")
        batch_op.drop_column("placement_year")
        batch_op.drop_column("placement_kind")
        batch_op.drop_column("placement_organisation")
