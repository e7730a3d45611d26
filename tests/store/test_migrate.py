"""Opening a store at the newest schema reads its revision and loads nothing of Alembic;
revisions are numbered like their files, which is how the newest is known."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from alembic.script import ScriptDirectory

from viva_store.db.migrate import MIGRATIONS, _alembic_config, head_revision


def test_every_revision_is_numbered_like_its_file() -> None:
    scripts = ScriptDirectory.from_config(_alembic_config())
    for revision in scripts.walk_revisions():
        assert revision.path is not None
        assert Path(revision.path).name.startswith(f"{revision.revision}_"), revision.path
    assert scripts.get_current_head() == head_revision()
    assert len(list((MIGRATIONS / "versions").glob("[0-9]" * 4 + "_*.py"))) == len(
        list(scripts.walk_revisions())
    )


def test_opening_a_current_store_does_not_load_alembic(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from viva_store.config import load_config\n"
        "from viva_store.store import Store\n"
        f"config = load_config({{'VIVA_HOME': {str(tmp_path)!r}}})\n"
        "Store.open(config).close()\n"  # creates and migrates: loads Alembic
        "for name in [m for m in sys.modules if m.split('.')[0] == 'alembic']:\n"
        "    del sys.modules[name]\n"
        "Store.open(config).close()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
