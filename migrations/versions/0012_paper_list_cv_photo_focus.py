"""the owner's paper-list and CV choices, and the photo's focal point

``directory_people.repeat_selected``: whether the selected papers are listed again under their
headings below (default no). ``directory_people.cv_sections``: the CV's sections in the owner's
order (NULL: every section, in the default order). ``directory_person_photos.focus_x`` and
``focus_y``: the point of the photo (percent from the left and from the top) kept in view
when it is cropped to a square or a circle (default the centre).

Revision ID: papers_2
Revises: alumni_1
"""

import sqlalchemy as sa
from alembic import op

revision = "papers_2"
down_revision = "alumni_1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE ... ADD/DROP COLUMN, never a batch: on SQLite a batch copies the table
    # and drops the old one, and with foreign keys on that drop deletes every row that refers
    # to a person (their entries, papers' listings...) through ON DELETE CASCADE.
    op.add_column(
        "directory_people",
        sa.Column("repeat_selected", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.add_column("directory_people", sa.Column("cv_sections", sa.JSON(), nullable=True))
    for name in ("focus_x", "focus_y"):
        op.add_column(
            "directory_person_photos",
            sa.Column(name, sa.Integer(), server_default="50", nullable=False),
        )


def downgrade() -> None:
    for name in ("focus_y", "focus_x"):
        op.drop_column("directory_person_photos", name)
    op.drop_column("directory_people", "cv_sections")
    op.drop_column("directory_people", "repeat_selected")
