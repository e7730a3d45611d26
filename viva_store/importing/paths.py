"""How a source file's path is stored: redacted for people, findable by the importer.

A folder or file name can hold a secret (a token pasted into a project name), and no
secret reaches disk (DESIGN I4). ``source_file.path`` holds the redacted path; the
importer finds a file again by ``path_key``: the path itself when redaction leaves it
unchanged (nearly always, and then nothing is computed per file), else a digest of the
real path keyed with the store's own ``path_digest_key`` — which tells files apart
whose paths differ only inside the secret, and cannot be turned back into the path.
A folder named after a working folder (Claude Code's) is shown with that working
folder's secrets redacted, which ``folders`` learns from the transcripts a run reads
(:class:`~viva_store.redact.FolderNames`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from sqlalchemy import Connection, select

from viva_store.db.schema import STORE_META
from viva_store.redact import FolderNames, redact_path

V = TypeVar("V")

DIGEST_PREFIX = "#"
"""Starts a ``path_key`` that is a digest (no path a walk yields starts so)."""


@dataclass(frozen=True, slots=True)
class PathKeys:
    """The store's key for path digests, and what a path is stored as."""

    secret: bytes
    folders: FolderNames = field(default_factory=FolderNames, compare=False)

    def digest(self, path: str) -> str:
        """The keyed digest that stands for ``path`` when it holds a secret."""
        raw = path.encode("utf-8", "surrogatepass")
        return DIGEST_PREFIX + hashlib.blake2b(raw, key=self.secret, digest_size=20).hexdigest()

    def stored(self, path: str) -> tuple[str, str]:
        """``(path to show, path key)`` for ``path``."""
        shown, hits = redact_path(path, self.folders)
        return (path, path) if not hits else (shown, self.digest(path))

    def lookup(self, known: Mapping[tuple[str, str], V], harness: str, path: str) -> V | None:
        """The entry of ``known`` (keyed by harness and path key) for a file found at
        ``path``: by the path itself first, by its digest when that finds nothing."""
        found = known.get((harness, path))
        if found is None and known:
            found = known.get((harness, self.digest(path)))
        return found


def path_keys(conn: Connection) -> PathKeys:
    """The store's path key (``store_meta.path_digest_key``, made by migration 0014)."""
    value = conn.execute(
        select(STORE_META.c.value).where(STORE_META.c.key == "path_digest_key")
    ).scalar()
    if not isinstance(value, str) or not value:
        raise RuntimeError("the store has no path_digest_key: run `viva init`")
    return PathKeys(bytes.fromhex(value))
