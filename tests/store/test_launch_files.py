"""The user's files around a launch: written with a journal, restored byte for byte.

No harness and no store here: :mod:`viva_store.launch.files` and ``blocks`` alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viva_store.launch import files
from viva_store.launch.blocks import END, insertion, remove
from viva_store.launch.render import Rendering

BLOCK = "<!-- viva:begin member=deven execution=x1 -->\n# You are Deven\n" + END + "\n"
META = {"execution_id": "x1", "grant_id": "g1", "member": "deven", "harness": "claude-code"}
SKILL = '---\nname: code-review\ndescription: "d"\n# projected by `viva launch` for deven (execution x1); removed when the session ends\n---\nBody\n'  # noqa: E501


def rendering(*skills: str) -> Rendering:
    return Rendering(
        "CLAUDE.md",
        BLOCK,
        tuple((f".claude/skills/{s}/SKILL.md", SKILL.replace("code-review", s)) for s in skills),
    )


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


@settings(max_examples=60, deadline=None)
@given(original=st.none() | st.binary(max_size=300), skills=st.integers(0, 3))
def test_apply_then_restore_gives_back_every_byte(original: bytes | None, skills: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd, journals = Path(tmp) / "p", Path(tmp) / "j"
        cwd.mkdir()
        if original is not None:
            (cwd / "CLAUDE.md").write_bytes(original)
        before = snapshot(cwd)
        journal, kept = files.apply(cwd, rendering(*["a", "b", "c"][:skills]), journals, META)
        assert (cwd / "CLAUDE.md").read_bytes() == (original or b"") + journal.inserted
        assert json.loads(journal.path.read_text())["pid"] == os.getpid()
        done = files.restore(journal, kept)
        assert done.exact
        assert snapshot(cwd) == before
        assert not journal.path.exists()


@given(original=st.none() | st.binary(max_size=200))
def test_the_journal_alone_restores_exactly(original: bytes | None) -> None:
    """After a crash only the journal is left: it holds no user bytes, and suffices."""
    with tempfile.TemporaryDirectory() as tmp:
        cwd, journals = Path(tmp) / "p", Path(tmp) / "j"
        cwd.mkdir()
        if original is not None:
            (cwd / "CLAUDE.md").write_bytes(original)
        journal, _ = files.apply(cwd, rendering("a"), journals, META)
        text = journal.path.read_text()
        if original and len(original) > 8:
            assert original.decode("latin-1") not in text
        assert files.restore(files.Journal.load(journal.path)).exact
        assert snapshot(cwd) == ({} if original is None else {"CLAUDE.md": original})


def test_an_edit_during_the_session_is_kept(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    cwd.mkdir()
    (cwd / "CLAUDE.md").write_bytes(b"mine\n")
    journal, kept = files.apply(cwd, rendering(), tmp_path / "j", META)
    with open(cwd / "CLAUDE.md", "ab") as fh:
        fh.write(b"- remembered during the session\n")  # Claude Code's `#` memory appends

    done = files.restore(journal, kept)

    assert (cwd / "CLAUDE.md").read_bytes() == b"mine\n- remembered during the session\n"
    assert done.notes == [f"{cwd / 'CLAUDE.md'} was changed during the session; "
                          "removed only Viva's block"]  # fmt: skip


def test_a_deleted_file_comes_back_and_a_missing_block_is_left_alone(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    cwd.mkdir()
    (cwd / "CLAUDE.md").write_bytes(b"mine")
    journal, kept = files.apply(cwd, rendering(), tmp_path / "j", META)
    (cwd / "CLAUDE.md").unlink()
    assert "restored it" in files.restore(journal, kept).notes[0]
    assert (cwd / "CLAUDE.md").read_bytes() == b"mine"

    journal, kept = files.apply(cwd, rendering(), tmp_path / "j", META)
    (cwd / "CLAUDE.md").write_bytes(b"rewritten by someone\n")
    assert "not found" in files.restore(journal, kept).notes[0]
    assert (cwd / "CLAUDE.md").read_bytes() == b"rewritten by someone\n"


def test_created_folders_go_unless_the_harness_put_files_in_them(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    cwd.mkdir()
    journal, kept = files.apply(cwd, rendering("a", "b"), tmp_path / "j", META)
    (cwd / ".claude" / "settings.local.json").write_text("{}")  # the harness's own
    skill_b = cwd / ".claude/skills/b/SKILL.md"
    skill_b.write_text(skill_b.read_text().replace("Body", "Body, improved by the agent"))

    done = files.restore(journal, kept)

    assert snapshot(cwd) == {".claude": None, ".claude/settings.local.json": b"{}"}
    kept_copy = tmp_path / "j" / "x1-b.SKILL.md"
    assert "improved by the agent" in kept_copy.read_text()
    assert done.notes == [f"{skill_b} was changed during the session; that copy is in {kept_copy}"]


def test_a_failed_write_undoes_what_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = tmp_path / "p"
    cwd.mkdir()
    (cwd / "CLAUDE.md").write_bytes(b"mine")

    mkdir = Path.mkdir
    seen: list[bytes] = []

    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        if cwd not in self.parents:
            return mkdir(self, *args, **kwargs)  # type: ignore[arg-type]
        seen.append((cwd / "CLAUDE.md").read_bytes())  # the block is in already
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(PermissionError):
        files.apply(cwd, rendering("a"), tmp_path / "j", META)
    monkeypatch.undo()
    assert seen and seen[0].startswith(b"mine\n\n<!-- viva:begin")
    assert snapshot(cwd) == {"CLAUDE.md": b"mine"}
    assert list((tmp_path / "j").iterdir()) == []


def test_plan_keeps_the_users_skill_folders(tmp_path: Path) -> None:
    (tmp_path / ".claude/skills/a").mkdir(parents=True)
    (tmp_path / "CLAUDE.md").write_bytes(b"mine\n")
    planned, kept = files.plan(tmp_path, rendering("a", "b"))
    assert kept == ["a"]
    assert [(p.action, Path(p.path).relative_to(tmp_path).as_posix()) for p in planned] == [
        ("append-block", "CLAUDE.md"),
        ("keep", ".claude/skills/a"),
        ("create", ".claude/skills/b/SKILL.md"),
    ]


def test_a_journal_left_behind_blocks_the_next_launch(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    cwd.mkdir()
    journals = tmp_path / "j"
    journal, _ = files.apply(cwd, rendering("a"), journals, META)
    [found] = files.pending(journals, cwd)
    assert found.running  # this very process
    assert "is running in" in files.problems(cwd, "CLAUDE.md", [found])[0]

    data = json.loads(journal.path.read_text())
    journal.path.write_text(json.dumps({**data, "pid": dead_pid()}))
    [stale] = files.pending(journals, cwd)
    assert "viva launch --repair" in files.problems(cwd, "CLAUDE.md", [stale])[0]
    assert files.pending(journals, tmp_path / "elsewhere") == []


def test_an_orphan_block_is_refused_and_stripped_without_a_journal(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_bytes(b"mine\n" + insertion(b"mine\n", BLOCK))
    ours = tmp_path / ".claude/skills/a/SKILL.md"
    theirs = tmp_path / ".claude/skills/b/SKILL.md"
    for path, text in ((ours, SKILL), (theirs, "---\nname: b\n---\nTheirs\n")):
        path.parent.mkdir(parents=True)
        path.write_text(text)
    assert "no launch journal explains" in files.problems(tmp_path, "CLAUDE.md", [])[0]

    done = files.strip_orphans(tmp_path, [("CLAUDE.md", ".claude/skills")])

    assert (tmp_path / "CLAUDE.md").read_bytes() == b"mine\n"
    assert not ours.parent.exists() and theirs.exists()
    assert "best effort" in done.notes[0]


@given(
    original=st.binary(max_size=100),
    after=st.binary(max_size=50).filter(lambda b: b"<!--" not in b),
)
def test_remove_cuts_exactly_what_was_inserted(original: bytes, after: bytes) -> None:
    inserted = insertion(original, BLOCK)
    assert remove(original + inserted, inserted) == (original, True)
    assert remove(original + inserted + after, inserted) == (original + after, True)
