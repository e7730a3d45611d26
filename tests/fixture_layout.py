"""The project's harness fixtures (``tests/fixtures/<harness>/``), laid out to import.

Each harness's folder is already shaped as the harness writes its files
(HARNESSES.md); laying it out copies it to a scratch folder and builds what is
kept as text rather than as a database file: Hermes's ``state.db`` from
``state.sql``, and an ``opencode.db`` from the OpenCode ``storage/`` tree.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import orjson

from tests.conftest import FIXTURES

ROOTS = {
    "claude-code": "claude-code/projects",
    "codex": "codex",
    "pi": "pi/sessions",
    "gemini": "gemini/tmp",
    "opencode": "opencode",
    "hermes": "hermes",
}
"""Each harness's root (what ``--root`` names), relative to the fixtures folder."""

# The OpenCode message the layout's opencode.db lacks, as if the JSON→SQLite
# migration had lost it: the tree beside the database recovers exactly that one.
LOST_IN_MIGRATION = frozenset({"msg_shop_a2"})


def root(harness: str) -> Path:
    """The harness's fixture root, where its ``discover`` starts."""
    return FIXTURES / ROOTS[harness]


def lay_out(harness: str, dest: Path) -> Path:
    """A scratch copy of ``harness``'s fixtures under ``dest``; returns its root."""
    copy = dest / harness
    shutil.copytree(FIXTURES / harness, copy)
    out = dest / ROOTS[harness]
    if harness == "hermes":
        build_state_db(copy / "state.sql", copy / "state.db")
    if harness == "opencode":
        build_opencode_db(copy / "opencode.db", copy / "storage", drop_messages=LOST_IN_MIGRATION)
    return out


def build_state_db(script: Path, path: Path) -> Path:
    """A Hermes ``state.db`` made by running ``script`` (its SQL statements)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    try:
        conn.executescript(script.read_text("utf-8"))
        conn.commit()
    finally:
        conn.close()
    return path


_PART_IDS = ("id", "sessionID", "messageID")  # held in columns, not in ``data``


def _load(path: Path) -> dict[str, Any]:
    data = orjson.loads(path.read_bytes())
    assert isinstance(data, dict), path
    return data


def build_opencode_db(
    path: Path, storage: Path, *, drop_messages: frozenset[str] = frozenset()
) -> Path:
    """An ``opencode.db`` holding the sessions, messages and parts of a ``storage/`` tree.

    Rows are written the way OpenCode's JSON→SQLite migration writes them: ids in
    columns, the rest of the JSON in ``data``. Parts come from ``part/<message>/``
    and from the flat ``part/*.json`` of older builds.
    """
    schema = (FIXTURES / "opencode" / "opencode-schema.sql").read_text("utf-8")
    flat: dict[str, list[dict[str, Any]]] = {}
    for part_file in sorted((storage / "part").glob("*.json")):
        part = _load(part_file)
        flat.setdefault(str(part.get("messageID")), []).append(part)
    conn = sqlite3.connect(path)
    try:
        conn.executescript(schema)
        for session_file in sorted((storage / "session").glob("*/*.json")):
            s = _load(session_file)
            conn.execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version,"
                " agent, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (s["id"], s.get("projectID", "global"), s.get("parentID"), s.get("slug", ""),
                 s["directory"], s["title"], s.get("version", ""), s.get("agent"),
                 s["time"]["created"], s["time"]["updated"]),
            )  # fmt: skip
            for message_file in sorted((storage / "message" / s["id"]).glob("*.json")):
                m = _load(message_file)
                if m["id"] in drop_messages:
                    continue
                data = {k: v for k, v in m.items() if k not in ("id", "sessionID")}
                created = m["time"]["created"]
                conn.execute(
                    "INSERT INTO message VALUES (?,?,?,?,?)",
                    (m["id"], s["id"], created, created, orjson.dumps(data)),
                )
                parts = [_load(p) for p in sorted((storage / "part" / m["id"]).glob("*.json"))]
                for step, p in enumerate(parts + flat.get(m["id"], [])):
                    pdata = {k: v for k, v in p.items() if k not in _PART_IDS}
                    conn.execute(
                        "INSERT INTO part VALUES (?,?,?,?,?,?)",
                        (p["id"], m["id"], s["id"], created + step, created, orjson.dumps(pdata)),
                    )
        conn.commit()
    finally:
        conn.close()
    return path
