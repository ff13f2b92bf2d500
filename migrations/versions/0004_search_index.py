"""Search index: the documents table, plus the engine's own full-text structure

Revision ID: searchapi_1
Revises: editing_1
Create Date: 2026-11-30 01:18:00.481584

Besides the table (which the models describe), this creates with raw DDL what only one engine
has, all named ``directory_search_fts...`` (``directory.migrate.include_object`` leaves them out
of the comparison with the models):

* SQLite: the FTS5 table ``directory_search_fts`` (rowid = document id; its ``ascii``
  tokenizer splits on the spaces between the tokens ``directory.services.search`` stores);
* PostgreSQL: the GIN index ``directory_search_fts_vector`` on the tsvector expression that
  ``directory.services.search_engines.PG_VECTOR_SQL`` queries (the two must stay identical).

The index starts empty: ``flask directory db upgrade`` fills it when the directory already has
people, and ``flask directory reindex`` rebuilds it at any time.
"""

from alembic import op
import sqlalchemy as sa


revision = "searchapi_1"
down_revision = "editing_1"
branch_labels = None
depends_on = None

PG_VECTOR = (
    "(setweight(array_to_tsvector(string_to_array(title_tokens, ' ')), 'A') || "
    "setweight(array_to_tsvector(string_to_array(body_tokens, ' ')), 'D'))"
)


def upgrade() -> None:
    op.create_table('directory_search_documents',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('object_id', sa.Integer(), nullable=False),
    sa.Column('owner_id', sa.Integer(), nullable=True),
    sa.Column('visibility', sa.String(length=16), nullable=False),
    sa.Column('listed', sa.Boolean(), nullable=False),
    sa.Column('expires_on', sa.Date(), nullable=True),
    sa.Column('ref', sa.String(length=120), nullable=False),
    sa.Column('title', sa.String(length=1000), nullable=False),
    sa.Column('summary', sa.Text(), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('title_tokens', sa.Text(), nullable=False),
    sa.Column('body_tokens', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_directory_search_documents')),
    sa.UniqueConstraint('kind', 'object_id', name=op.f('uq_directory_search_documents_kind'))
    )
    with op.batch_alter_table('directory_search_documents', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_directory_search_documents_owner_id'), ['owner_id'], unique=False)

    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute(
            "CREATE VIRTUAL TABLE directory_search_fts "
            "USING fts5(title_tokens, body_tokens, tokenize='ascii')"
        )
    elif dialect == "postgresql":
        op.execute(
            f"CREATE INDEX directory_search_fts_vector ON directory_search_documents "
            f"USING gin ({PG_VECTOR})"
        )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TABLE directory_search_fts")
    elif dialect == "postgresql":
        op.execute("DROP INDEX directory_search_fts_vector")

    with op.batch_alter_table('directory_search_documents', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_directory_search_documents_owner_id'))

    op.drop_table('directory_search_documents')
