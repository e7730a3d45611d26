"""Skills: the ``member_skill`` cache without foreign keys of its own.

Every row of the cache is derived from the skill event log, whose rows already
reference ``member`` and ``skill``: a cache row names a pair of the log, so the
keys are checked where the log is written. Checking them again on the cache cost a
rebuild, which rewrites its rows, two key lookups a row — on PostgreSQL about half
the time of writing them. ``viva skill rebuild --check`` compares the cache with
the log it is derived from.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

# SQLite's foreign keys have no names: batch mode names them by this convention when
# it reflects the table, so they can be dropped by name.
_NAMES = {"fk": "fk_%(table_name)s_%(column_0_name)s"}


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        with op.batch_alter_table(
            "member_skill", recreate="always", naming_convention=_NAMES
        ) as batch:
            batch.drop_constraint("fk_member_skill_member", type_="foreignkey")
            batch.drop_constraint("fk_member_skill_skill", type_="foreignkey")
        return
    for fk in sa.inspect(bind).get_foreign_keys("member_skill"):
        op.drop_constraint(str(fk["name"]), "member_skill", type_="foreignkey")


def downgrade() -> None:
    with op.batch_alter_table("member_skill") as batch:
        batch.create_foreign_key("fk_member_skill_member", "member", ["member"], ["name"])
        batch.create_foreign_key("fk_member_skill_skill", "skill", ["skill"], ["name"])
