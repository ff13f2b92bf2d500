"""the claim queue: harvested candidates, sticky rejections, harvest runs, the harvest's
lock and "check now" requests

Revision ID: claims_2
Revises: claims_1
"""

import sqlalchemy as sa
from alembic import op

revision = "claims_2"
down_revision = "claims_1"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def _person(primary_key: bool = False) -> sa.Column:
    return sa.Column(
        "person_id",
        sa.Integer(),
        sa.ForeignKey(
            "directory_people.id",
            ondelete="CASCADE",
            name=None,
        ),
        nullable=False,
        primary_key=primary_key,
    )


def upgrade() -> None:
    op.create_table(
        "directory_claim_candidates",
        sa.Column("id", sa.Integer(), primary_key=True),
        _person(),
        sa.Column("work_key", sa.String(300), nullable=False),
        sa.Column("keys", sa.JSON(), nullable=False),
        sa.Column(
            "publication_id",
            sa.Integer(),
            sa.ForeignKey("directory_publications.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("work", sa.JSON(), nullable=False),
        sa.Column("title", sa.String(1000), nullable=False),
        sa.Column("year", sa.Integer(), nullable=True),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("found_by", sa.String(32), nullable=False),
        sa.Column("evidence", sa.JSON(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("decided_at", WHEN, nullable=True),
        sa.Column("decided_by", sa.String(254), nullable=True),
        sa.Column("notified_at", WHEN, nullable=True),
        sa.UniqueConstraint("person_id", "work_key"),
    )
    op.create_index(
        "ix_directory_claim_candidates_queue", "directory_claim_candidates", ["person_id", "state"]
    )
    op.create_index(
        "ix_directory_claim_candidates_publication_id",
        "directory_claim_candidates",
        ["publication_id"],
    )
    op.create_table(
        "directory_claim_rejections",
        sa.Column("id", sa.Integer(), primary_key=True),
        _person(),
        sa.Column("work_key", sa.String(300), nullable=False),
        sa.Column("title", sa.String(1000), nullable=True),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.UniqueConstraint("person_id", "work_key"),
    )
    op.create_table(
        "directory_harvest_runs",
        sa.Column("id", sa.Integer(), primary_key=True),
        _person(),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("started_at", WHEN, nullable=False),
        sa.Column("finished_at", WHEN, nullable=True),
        sa.Column("fetched", sa.Integer(), nullable=False),
        sa.Column("new", sa.Integer(), nullable=False),
        sa.Column("known", sa.Integer(), nullable=False),
        sa.Column("errors", sa.JSON(), nullable=False),
    )
    op.create_index(
        "ix_directory_harvest_runs_person", "directory_harvest_runs", ["person_id", "source"]
    )
    op.create_table(
        "directory_harvest_locks",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("holder", sa.String(200), nullable=False),
        sa.Column("acquired_at", WHEN, nullable=False),
    )
    op.create_table(
        "directory_harvest_requests",
        _person(primary_key=True),
        sa.Column("requested_at", WHEN, nullable=False),
        sa.Column("requested_by", sa.String(254), nullable=True),
    )


def downgrade() -> None:
    for table in ("directory_harvest_requests", "directory_harvest_locks",
                  "directory_harvest_runs", "directory_claim_rejections",
                  "directory_claim_candidates"):  # fmt: skip
        op.drop_table(table)
