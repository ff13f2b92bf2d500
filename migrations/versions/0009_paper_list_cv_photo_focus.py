"""the owner's paper-list and CV choices, and the photo's focal point

``directory_people.repeat_selected``: whether the selected papers are listed again under their
headings below (default no). ``directory_people.cv_sections``: the CV's sections in the owner's
order (NULL: every section, in the default order). ``directory_person_photos.focus_x`` and
``focus_y``: the point of the photo (percent from the left and from the top) kept in view
when it is cropped to a square or a circle (default the centre).

Revision ID: papers_2
Revises: speed_1
"""

import sqlalchemy as sa
from alembic import op

revision = "papers_2"
down_revision = "speed_1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("directory_people") as batch:
        batch.add_column(
            sa.Column("repeat_selected", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch.add_column(sa.Column("cv_sections", sa.JSON(), nullable=True))
    with op.batch_alter_table("directory_person_photos") as batch:
        batch.add_column(sa.Column("focus_x", sa.Integer(), server_default="50", nullable=False))
        batch.add_column(sa.Column("focus_y", sa.Integer(), server_default="50", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("directory_person_photos") as batch:
        batch.drop_column("focus_y")
        batch.drop_column("focus_x")
    with op.batch_alter_table("directory_people") as batch:
        batch.drop_column("cv_sections")
        batch.drop_column("repeat_selected")
