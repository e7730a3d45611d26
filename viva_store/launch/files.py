"""Putting a rendering into the user's folder, and taking it out again exactly.

The user's content is never overwritten: the instruction file gets Viva's block
appended (:mod:`~viva_store.launch.blocks`); a skill folder that already exists is
left alone (that skill is not projected); every other path Viva writes is new.

Before the first write a **journal** goes to Viva's own folder (never the user's): the
instruction file's size and SHA-256 before the launch (or that it did not exist), the
bytes appended, the files and folders created, the launching process id. It holds no
copy of the user's text and no token. :func:`restore` uses it — plus the original bytes
kept in memory during a normal run — to put back what was there byte for byte, then
deletes it. A journal still present means a launch died before restoring (``kill -9``,
a power cut); :func:`pending` finds it and ``viva launch --repair`` restores from it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from viva_store.errors import InvalidInput
from viva_store.launch.blocks import has_block, insertion, remove
from viva_store.launch.render import Rendering

JOURNAL_VERSION = 1


@dataclass(frozen=True, slots=True)
class Planned:
    """One path a launch would touch, and how."""

    path: str
    action: str  # create | append-block | keep (exists: the skill is not projected)
    bytes: int


@dataclass(frozen=True, slots=True)
class Journal:
    """What a launch changed, enough to undo it without the user's bytes."""

    path: Path
    cwd: str
    execution_id: str
    grant_id: str
    member: str
    harness: str
    pid: int
    instruction: str
    existed: bool
    size: int
    sha256: str
    inserted: bytes
    files: tuple[tuple[str, str], ...]
    """Created files: (path, SHA-256 of what was written)."""
    dirs: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": JOURNAL_VERSION,
            "cwd": self.cwd,
            "execution_id": self.execution_id,
            "grant_id": self.grant_id,
            "member": self.member,
            "harness": self.harness,
            "pid": self.pid,
            "instruction": self.instruction,
            "existed": self.existed,
            "size": self.size,
            "sha256": self.sha256,
            "inserted": self.inserted.decode("utf-8"),
            "files": [{"path": p, "sha256": h} for p, h in self.files],
            "dirs": list(self.dirs),
        }

    @classmethod
    def load(cls, path: Path) -> Journal:
        """Read a journal; a damaged one is reported by its path."""
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                path=path,
                cwd=d["cwd"],
                execution_id=d["execution_id"],
                grant_id=d["grant_id"],
                member=d["member"],
                harness=d["harness"],
                pid=int(d["pid"]),
                instruction=d["instruction"],
                existed=bool(d["existed"]),
                size=int(d["size"]),
                sha256=d["sha256"],
                inserted=d["inserted"].encode("utf-8"),
                files=tuple((f["path"], f["sha256"]) for f in d["files"]),
                dirs=tuple(d["dirs"]),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"{path}: not a readable launch journal ({exc})") from exc

    @property
    def running(self) -> bool:
        """Whether the launching process is still alive (then nothing is stale)."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


@dataclass(slots=True)
class Restored:
    """What :func:`restore` did; ``notes`` say where it could not be exact."""

    paths: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return not self.notes


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def plan(cwd: Path, rendering: Rendering) -> tuple[list[Planned], list[str]]:
    """What :func:`apply` would do in ``cwd``, and the skill names it would leave out."""
    target = cwd / rendering.instruction_file
    original = _read(target)
    appended = insertion(original, rendering.block)
    out = [
        Planned(str(target), "append-block" if original is not None else "create", len(appended))
    ]
    kept: list[str] = []
    for rel, text in rendering.skill_files:
        folder = (cwd / rel).parent
        if folder.exists() or folder.is_symlink():
            out.append(Planned(str(folder), "keep", 0))
            kept.append(folder.name)
        else:
            out.append(Planned(str(cwd / rel), "create", len(text.encode("utf-8"))))
    return out, kept


def problems(cwd: Path, instruction_file: str, journals: list[Journal]) -> list[str]:
    """Why a launch in ``cwd`` must not start (an earlier one still there)."""
    out: list[str] = []
    for j in journals:
        if j.running:
            out.append(
                f"another viva launch ({j.member}, execution {j.execution_id}, pid {j.pid}) "
                f"is running in {j.cwd}; wait for it to end"
            )
        else:
            out.append(
                f"an earlier launch ({j.member}, execution {j.execution_id}) in {j.cwd} ended "
                "without restoring its files; run `viva launch --repair` to restore them"
            )
    target = cwd / instruction_file
    data = _read(target) if target.is_file() else None
    if not journals and data is not None and has_block(data):
        out.append(
            f"{target} holds a Viva block that no launch journal explains; delete the lines "
            f"from '<!-- viva:begin' to '<!-- viva:end -->' or run "
            f"`viva launch --repair --cwd {cwd}`"
        )
    if target.is_symlink() and not target.exists():
        out.append(f"{target} is a symbolic link to nothing; fix or remove it first")
    elif target.exists() and not target.is_file():
        out.append(f"{target} is not a regular file")
    return out


def pending(folder: Path, cwd: Path | None = None) -> list[Journal]:
    """Journals in Viva's launch folder (for ``cwd`` only, when given), oldest first."""
    if not folder.is_dir():
        return []
    found = [Journal.load(p) for p in sorted(folder.glob("*.json"))]
    return [j for j in found if cwd is None or j.cwd == str(cwd)]


def _missing_dirs(path: Path, cwd: Path) -> list[Path]:
    """``path``'s ancestors under ``cwd`` that do not exist yet, outermost first."""
    out: list[Path] = []
    for parent in path.parents:
        if parent == cwd or cwd not in parent.parents:
            break
        if not parent.exists():
            out.append(parent)
    return list(reversed(out))


def apply(
    cwd: Path, rendering: Rendering, journal_dir: Path, meta: dict[str, str]
) -> tuple[Journal, bytes | None]:
    """Write ``rendering`` into ``cwd`` (journal first). Returns the journal and the
    instruction file's original bytes (``None``: it did not exist), for :func:`restore`.

    ``meta`` names the launch: ``execution_id``, ``grant_id``, ``member``, ``harness``.
    If a write fails, what was written is undone before the error propagates.
    """
    target = cwd / rendering.instruction_file
    original = _read(target)
    inserted = insertion(original, rendering.block)
    files: list[tuple[Path, bytes]] = []
    dirs: list[Path] = []
    for rel, text in rendering.skill_files:
        path = cwd / rel
        if path.parent.exists() or path.parent.is_symlink():
            continue
        files.append((path, text.encode("utf-8")))
        dirs += [d for d in _missing_dirs(path, cwd) if d not in dirs]
    journal = Journal(
        path=journal_dir / f"{meta['execution_id']}.json",
        cwd=str(cwd),
        execution_id=meta["execution_id"],
        grant_id=meta["grant_id"],
        member=meta["member"],
        harness=meta["harness"],
        pid=os.getpid(),
        instruction=str(target),
        existed=original is not None,
        size=len(original or b""),
        sha256=hashlib.sha256(original or b"").hexdigest(),
        inserted=inserted,
        files=tuple((str(p), hashlib.sha256(data).hexdigest()) for p, data in files),
        dirs=tuple(str(d) for d in dirs),
    )
    journal_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = journal.path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(journal.to_json(), fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, journal.path)
    try:
        with open(target, "ab" if original is not None else "xb") as fh:
            fh.write(inserted)
        for d in dirs:
            d.mkdir()
        for path, data in files:
            with open(path, "xb") as fh:
                fh.write(data)
    except BaseException:
        restore(journal, original)
        raise
    return journal, original


def restore(journal: Journal, original: bytes | None = None) -> Restored:
    """Undo a launch's writes; then delete the journal.

    The instruction file comes back byte for byte when nobody changed it during the
    session; edited, it keeps the edits and loses only Viva's block (noted). Created
    files are removed (an edited one is kept beside the journal, noted), created folders
    too when empty. ``original`` (the bytes before the launch) also restores a deleted file.
    """
    done = Restored()
    _restore_instruction(journal, original, done)
    for name, digest in journal.files:
        path = Path(name)
        data = _read(path)
        if data is None:
            continue
        if hashlib.sha256(data).hexdigest() != digest:
            keep = journal.path.with_name(f"{journal.execution_id}-{path.parent.name}.SKILL.md")
            keep.write_bytes(data)
            done.notes.append(f"{path} was changed during the session; that copy is in {keep}")
        path.unlink()
        done.paths.append(name)
    for name in reversed(journal.dirs):
        with contextlib.suppress(OSError):
            Path(name).rmdir()  # only when empty: the harness may have put its own files
    journal.path.unlink(missing_ok=True)
    return done


def _restore_instruction(journal: Journal, original: bytes | None, done: Restored) -> None:
    target = Path(journal.instruction)
    current = _read(target)
    if current is None:
        if journal.existed and original is not None:
            target.write_bytes(original)
            done.paths.append(str(target))
            done.notes.append(f"{target} was deleted during the session; restored it")
        elif journal.existed:
            done.notes.append(f"{target} was deleted during the session; cannot restore it")
        return
    result, exact = remove(current, journal.inserted)
    if result == current:
        done.notes.append(f"{target}: Viva's block was not found; left as it is")
        return
    untouched = exact and (
        (journal.existed and hashlib.sha256(result).hexdigest() == journal.sha256)
        or (not journal.existed and not result)
    )
    if not untouched:
        how = "removed only Viva's block" if exact else "removed the delimited block"
        done.notes.append(f"{target} was changed during the session; {how}")
    if not journal.existed and not result.strip():
        target.unlink()
    elif untouched and current == result + journal.inserted:
        os.truncate(target, len(result))  # same inode, mode and owner as before
    else:
        target.write_bytes(result)
    done.paths.append(str(target))


def strip_orphans(cwd: Path, places: list[tuple[str, str]]) -> Restored:
    """Best effort with no journal: cut Viva blocks out of the instruction files and
    delete the skill folders whose ``SKILL.md`` says Viva projected it. Byte-exact only
    with a journal; noted as such."""
    done = Restored()
    for instruction, skills_dir in places:
        target = cwd / instruction
        data = _read(target) if target.is_file() else None
        if data is not None and has_block(data):
            result, _ = remove(data, b"")
            if result.strip():
                target.write_bytes(result)
            else:
                target.unlink()
            done.paths.append(str(target))
            done.notes.append(f"{target}: Viva's block removed without a journal (best effort)")
        folder = cwd / skills_dir
        for skill_md in sorted(folder.glob("*/SKILL.md")) if folder.is_dir() else []:
            head = skill_md.read_bytes().split(b"\n---\n", 1)[0]
            if b"# projected by `viva launch`" in head:
                skill_md.unlink()
                with contextlib.suppress(OSError):
                    skill_md.parent.rmdir()
                done.paths.append(str(skill_md))
    return done
