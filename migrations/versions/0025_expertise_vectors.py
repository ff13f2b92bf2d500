"""the expertise index: ``directory_expertise_vectors``, one vector per paper and profile

People are ranked by what they work on (directory.services.expertise): a sentence-embedding
model turns each paper's title and abstract and each profile's interests, biography, projects
and recruiting notices into a vector, written with the change that wrote the text. Stored in
the database, so that every app host of a department shares them; ``flask directory reindex``
(or the first write after this upgrade, for what it touches) fills the table.

Revision ID: expertise_1
Revises: hosts_2
"""

import sqlalchemy as sa
from alembic import op

revision = "expertise_1"
down_revision = "hosts_2"
branch_labels = None
depends_on = None

TABLE = "directory_expertise_vectors"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("object_id", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(length=64), nullable=False),
        sa.Column("digest", sa.String(length=40), nullable=False),
        sa.Column("stamp", sa.BigInteger(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_directory_expertise_vectors")),
        sa.UniqueConstraint(
            "kind", "object_id", name=op.f("uq_directory_expertise_vectors_kind")
        ),
    )
    # The matrices' key (count, highest id, sum of stamps by kind) read from the index alone.
    op.create_index(
        op.f("ix_directory_expertise_vectors_kind"), TABLE, ["kind", "id", "stamp"]
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_directory_expertise_vectors_kind"), table_name=TABLE)
    op.drop_table(TABLE)
