"""PostgreSQL: each search document's weighted tsvector for ranking, stored with it

The search ranks its matches with ``ts_rank`` over the documents' tokens with the title weighed
above the body. Built from the tokens at query time (``to_tsvector`` of each matching document),
ranking a surname's 2,700 matching documents took the server 75 ms of a 97 ms statement; read
from a stored column, 23 ms. A generated column: PostgreSQL keeps it in step with the tokens on
every write, and the index writer does not know it. Like the GIN index of the search migration,
it is engine-specific and named with the ``directory_search_fts`` prefix, so that comparing the
database with the models leaves it out. Nothing on SQLite (FTS5 ranks from its own index).

Adding it rewrites the documents table (2 s for a department's 27,000 documents).

Revision ID: search4_1
Revises: reports3_1
"""

from alembic import op

revision = "search4_1"
down_revision = "reports3_1"
branch_labels = None
depends_on = None

TABLE = "directory_search_documents"
COLUMN = "directory_search_fts_rank"
#: The ranking vector (directory.services.search_engines reads it as PG_RANK_COLUMN): the tokens with
#: the title weighed above the body, as ts_rank read them when they were built at query time.
VECTOR = (
    "setweight(to_tsvector('simple', title_tokens), 'A') || "
    "setweight(to_tsvector('simple', body_tokens), 'D')"
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"ALTER TABLE {TABLE} ADD COLUMN {COLUMN} tsvector "
            f"GENERATED ALWAYS AS ({VECTOR}) STORED"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"ALTER TABLE {TABLE} DROP COLUMN {COLUMN}")
