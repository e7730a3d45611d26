"""A secret in a folder or file name never reaches the store: paths, the session's native
id and source path, quarantined lines, the run's problems and the reader's cached state
are redacted; the importer still finds the file again (unchanged: skipped; grown: resumed)."""

from __future__ import annotations

import json
import re
import secrets
import string
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from tests.cli.runner import run
from viva_store.db.schema import (
    IMPORT_RUN,
    MESSAGE,
    QUARANTINE,
    REDACTION,
    SESSION,
    SOURCE_FILE,
    USAGE,
)
from viva_store.redact import FolderNames, redact_text
from viva_store.store import Context


def fake_token() -> str:
    """A token of a known format, made up at run time."""
    alphabet = string.ascii_letters + string.digits
    token = "ghp_" + "".join(secrets.choice(alphabet) for _ in range(36))
    assert redact_text(f"/in/{token}/here")[1], "the redactor must know this format"
    return token


def line(uuid: str, kind: str, text: str, minute: int, cwd: str) -> str:
    content: Any = text if kind == "user" else [{"type": "text", "text": text}]
    return json.dumps(
        {
            "type": kind,
            "uuid": uuid,
            "cwd": cwd,
            "gitBranch": "main",
            "timestamp": f"2026-03-10T10:{minute:02d}:00.000Z",
            "message": {"role": kind, "content": content},
        }
    )


def stored_text(ctx: Context) -> str:
    """Every value of every table the importer writes, as text."""

    def dump(conn: Any) -> str:
        out: list[str] = []
        for table in (SOURCE_FILE, SESSION, MESSAGE, USAGE, QUARANTINE, IMPORT_RUN, REDACTION):
            out += [repr(tuple(row)) for row in conn.execute(select(table))]
        return "\n".join(out)

    return str(ctx.store.read(dump))


def imported(root: Path) -> dict[str, Any]:
    done = run(["import", "--harness", "claude-code", "--root", f"claude-code={root}", "--json"])
    assert done.code == 0, done.err
    return json.loads(done.out)  # type: ignore[no-any-return]


def test_a_secret_in_a_path_never_reaches_the_store(
    ctx: Context, cli_env: str, tmp_path: Path
) -> None:
    token = fake_token()
    cwd = f"/home/dev/{token}"
    root = tmp_path / token / "claude"  # e.g. a home folder named so
    folder = root / "-home-dev-notes"
    folder.mkdir(parents=True)
    path = folder / f"{token}.jsonl"  # the session's native id
    path.write_text(
        line("u1", "user", "Tidy the notes", 0, cwd)
        + "\n{not json\n"
        + line("u2", "assistant", "Tidied.", 1, cwd)
        + "\n"
    )
    first = imported(root)
    assert first["sessions_new"] == 1 and first["lines_quarantined"] == 1
    assert token not in stored_text(ctx)
    rows = ctx.store.read(lambda c: c.execute(select(SOURCE_FILE)).all())
    assert [r.path for r in rows] == [redact_text(str(path))[0]]
    assert rows[0].path_key.startswith("#") and token not in rows[0].path_key
    # Found again: unchanged, it is skipped; grown, it is resumed where it stopped.
    again = imported(root)
    assert (again["files_unchanged"], again["messages_added"]) == (1, 0)
    with path.open("a") as fh:
        fh.write(line("u3", "user", "And the index", 2, cwd) + "\n")
    grown = imported(root)
    assert (grown["sessions_new"], grown["sessions_updated"], grown["messages_added"]) == (0, 1, 1)
    assert grown["lines_quarantined"] == 0  # resumed: the bad line is not read again
    assert token not in stored_text(ctx)
    [session] = ctx.store.read(lambda c: c.execute(select(SESSION)).all())
    assert session.message_count == 3
    assert "[REDACTED:" in session.native_id and "[REDACTED:" in session.source_path


def glued_token() -> str:
    """A secret, made up at run time, that the plain rules miss once glued after ``-``."""
    from tests.redact.planted import example
    from viva_store.redact import RULES

    for plant in map(example, RULES):
        secret = plant.secret
        fits = plant.alone and re.fullmatch(r"[A-Za-z0-9_]{20,80}", secret)
        if fits and secret in redact_text(f"-home-dev-{secret}")[0]:
            return secret
    raise AssertionError("every rule finds its token glued after '-': test a harder case")


def test_a_token_glued_into_a_claude_code_folder_name_never_reaches_the_store(
    ctx: Context, cli_env: str, tmp_path: Path
) -> None:
    token = glued_token()
    cwd = f"/home/dev/{token}"
    root = tmp_path / "claude"
    folder = root / f"-home-dev-{token}"  # how Claude Code names that working folder
    folder.mkdir(parents=True)
    path = folder / "0196b1c2-d3e4-7f50-b6c7-d8e9f0a1b2c3.jsonl"
    path.write_text(line("u1", "user", "Tidy the notes", 0, cwd) + "\n")
    first = imported(root)
    assert first["sessions_new"] == 1
    assert token not in stored_text(ctx)
    [row] = ctx.store.read(lambda c: c.execute(select(SOURCE_FILE)).all())
    assert "[REDACTED:" in row.path and row.path_key.startswith("#")
    again = imported(root)
    assert (again["files_unchanged"], again["messages_added"]) == (1, 0)


def test_a_path_of_benign_names_is_left_as_it_is() -> None:
    from viva_store.redact import redact_path

    benign = "/home/dev/.claude/projects/-home-dev-shop-api/0196b1c2-d3e4-7f50-b6c7.jsonl"
    assert redact_path(benign) == (benign, [])


def home_bytes(home: Path) -> bytes:
    """Every byte Viva keeps under VIVA_HOME: the store (SQLite), the log, the rest."""
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def test_a_secret_in_the_working_folder_never_reaches_disk_from_its_folder_name(
    ctx: Context, cli_env: str, tmp_path: Path
) -> None:
    """Claude Code names the folder after the cwd with every character but a letter or
    digit turned into ``-``: the URL's ``://``, ``:`` and ``@`` are gone, and no rule
    finds the password in the name; the importer takes it from the cwd on the lines."""
    password = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(24))
    cwd = f"/srv/postgres://app:{password}@db-internal:5432/app"
    assert password not in redact_text(cwd)[0], "the redactor must find it in the cwd"
    root = tmp_path / "claude"
    folder = root / re.sub(r"[^A-Za-z0-9]", "-", cwd)
    folder.mkdir(parents=True)
    assert password in folder.name
    path = folder / "0196b1c2-d3e4-7f50-b6c7-d8e9f0a1b2c3.jsonl"
    path.write_text(
        "{not json\n"  # quarantined before any line has told the cwd
        + line("u1", "user", "Tidy the notes", 0, cwd)
        + "\n"
    )
    (folder / "0196b1c2-d3e4-7f50-b6c7-000000000000.jsonl").write_text("")  # a problem
    done = run(["import", "--harness", "claude-code", "--root", f"claude-code={root}", "--json"])
    assert done.code == 0, done.err
    first = json.loads(done.out)
    assert first["sessions_new"] == 1 and first["lines_quarantined"] == 1
    assert any("empty file" in p["reason"] for p in first["problems"])
    home = tmp_path / "home"
    assert password not in stored_text(ctx) + done.out + done.err
    assert password.encode() not in home_bytes(home)
    rows = ctx.store.read(lambda c: c.execute(select(SOURCE_FILE)).all())
    assert len(rows) == 2
    assert all("-srv-postgres---app-[REDACTED:" in r.path for r in rows)
    assert all(r.path_key.startswith("#") for r in rows)
    [session] = ctx.store.read(lambda c: c.execute(select(SESSION)).all())
    assert "[REDACTED:" in session.source_path
    # Found again: unchanged, it is skipped.
    again = imported(root)
    assert (again["files_unchanged"], again["messages_added"]) == (2, 0)
    # Grown by lines that name another cwd only (the session moved): resumed, and the
    # folder is still shown as it was stored.
    with path.open("a") as fh:
        fh.write("{still not json\n" + line("u2", "user", "And the index", 1, "/tmp") + "\n")
    grown = imported(root)
    assert (grown["sessions_updated"], grown["messages_added"]) == (1, 1)
    assert grown["lines_quarantined"] == 1
    assert password not in stored_text(ctx)
    assert password.encode() not in home_bytes(home)
    paths = ctx.store.read(lambda c: c.execute(select(QUARANTINE.c.path)).scalars().all())
    assert len(paths) == 2 and all("[REDACTED:" in p for p in paths)


def test_a_file_stored_under_its_own_path_moves_to_its_redacted_path_when_read_again(
    ctx: Context, cli_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store written before the folder's secret was known keeps the file's row under
    its plain path; once a run learns the folder (a new session in it), the file's next
    read moves that row: one row, found again after."""
    password = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(24))
    cwd = f"/srv/postgres://app:{password}@db-internal:5432/app"
    root = tmp_path / "claude"
    folder = root / re.sub(r"[^A-Za-z0-9]", "-", cwd)
    folder.mkdir(parents=True)
    path = folder / "0196b1c2-d3e4-7f50-b6c7-d8e9f0a1b2c3.jsonl"
    path.write_text(line("u1", "user", "Tidy the notes", 0, cwd) + "\n")
    with monkeypatch.context() as before:  # as an importer that did not know the cwd's secrets
        before.setattr(FolderNames, "learn", lambda self, cwd: None)
        imported(root)
    [row] = ctx.store.read(lambda c: c.execute(select(SOURCE_FILE)).all())
    assert row.path_key == str(path)
    with path.open("a") as fh:
        fh.write(line("u2", "user", "And the index", 1, cwd) + "\n")
    newer = folder / "0196b1c2-d3e4-7f50-b6c7-000000000001.jsonl"
    newer.write_text(line("v1", "user", "Next session", 2, cwd) + "\n")
    grown = imported(root)
    assert (grown["sessions_new"], grown["sessions_updated"]) == (1, 1)
    rows = ctx.store.read(lambda c: c.execute(select(SOURCE_FILE)).all())
    assert len(rows) == 2
    assert all(r.path_key.startswith("#") and "[REDACTED:" in r.path for r in rows)
    assert password not in repr([tuple(r) for r in rows])
    again = imported(root)
    assert (again["files_unchanged"], again["messages_added"]) == (2, 0)
