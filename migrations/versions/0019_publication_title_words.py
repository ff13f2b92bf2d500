"""the words of every paper's title, stored: ``directory_publication_title_words``; DOIs
indexed case-blind

An import (BibTeX, ORCID) and the publication record page look for papers a title may
duplicate: those sharing one of its rare words. How rare a word is was counted over every
paper of the directory, so each import preview, and each view of a record, read and folded
every title: 25,000 in a department, 250,000 in a university. Stored, one row per word and
paper (``directory.services.title_words``), the database counts the words and gives the few
papers that have the rare ones. The same lookups read the papers by DOI compared case-blind,
as DOIs are: on PostgreSQL (a university's directory) through an index of ``lower(doi)``, left
out of the models (directory.migrate.ENGINE_SPECIFIC_INDEXES); SQLite, which cannot reflect
such an index (a host's ``flask db migrate`` would warn about it), scans the papers' DOIs once
per file instead.

The table is filled from each paper's title; the package writes it on every insert and update
of a title (``directory.db``) and beside the bulk import's own rows.

The words are computed by a copy, frozen here, of ``directory.services.publications.fold`` as
it was when this migration was written.

Revision ID: dedup_1
Revises: alumni_2
"""

import re
import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "dedup_1"
down_revision = "alumni_2"
branch_labels = None
depends_on = None

_FOLD = str.maketrans(
    {"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l"}
    | {"Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "þ": "th", "ı": "i", "ȷ": "j"}
)
_WORD_RE = re.compile(r"[^\W_]+")
_BATCH = 5000

publications = sa.table(
    "directory_publications", sa.column("id", sa.Integer), sa.column("title", sa.String)
)


def _words(title):
    text = title or ""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text.translate(_FOLD))
        text = "".join(c for c in text if not unicodedata.combining(c))
    return set(_WORD_RE.findall(text.casefold()))


def upgrade() -> None:
    words = op.create_table(
        "directory_publication_title_words",
        sa.Column("word", sa.String(length=1000), nullable=False),
        sa.Column("publication_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["publication_id"], ["directory_publications.id"], ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("word", "publication_id"),
        sqlite_with_rowid=False,
    )
    op.create_index(
        "ix_directory_publication_title_words_publication_id",
        "directory_publication_title_words",
        ["publication_id"],
    )
    bind = op.get_bind()
    rows = []
    for pid, title in bind.execute(sa.select(publications.c.id, publications.c.title)).all():
        rows.extend({"word": word, "publication_id": pid} for word in _words(title))
        if len(rows) >= _BATCH:
            bind.execute(words.insert(), rows)
            rows = []
    if rows:
        bind.execute(words.insert(), rows)
    if bind.dialect.name == "postgresql":
        op.create_index(
            "ix_directory_publications_doi_folded",
            "directory_publications",
            [sa.text("lower(doi)")],
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_index("ix_directory_publications_doi_folded", table_name="directory_publications")
    op.drop_index(
        "ix_directory_publication_title_words_publication_id",
        table_name="directory_publication_title_words",
    )
    op.drop_table("directory_publication_title_words")
