"""Skills: the ``member_skill`` cache references ``member`` and ``skill`` again.

0011 dropped these keys to save a PostgreSQL rebuild the two lookups a row it rewrote;
the rebuild now writes only the rows it changed, and the keys state what every row is —
a pair of a member and a team skill — in the database itself, as everywhere else.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("member_skill") as batch:
        batch.create_foreign_key("fk_member_skill_member", "member", ["member"], ["name"])
        batch.create_foreign_key("fk_member_skill_skill", "skill", ["skill"], ["name"])


def downgrade() -> None:
    with op.batch_alter_table("member_skill") as batch:
        batch.drop_constraint("fk_member_skill_member", type_="foreignkey")
        batch.drop_constraint("fk_member_skill_skill", type_="foreignkey")
