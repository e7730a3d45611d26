"""Redacting a file path, including a folder a harness named after a working folder.

Claude Code keeps a session in ``projects/<folder>/``, the folder being the session's
working folder (cwd) with every character but an ASCII letter or digit turned into
``-`` one for one (a UTF-16 code unit each: JavaScript's ``/[^a-zA-Z0-9]/g``), cut to
200 characters and given a hash suffix when longer. The name loses what most rules
need (``://``, ``:``, ``@``, ``_``), but the importer reads the cwd itself from the
transcript: :class:`FolderNames` learns each cwd's secrets and puts them, as markers,
at the same places of the folder name, where no rule could find them again.
:func:`redact_path` then redacts the rest as text, tokens glued into names included.
"""

from __future__ import annotations

import re

from viva_store.redact.engine import Hit, may_hold_secret, redact_text, secret_spans

__all__ = ["FolderNames", "folder_name", "redact_path", "redacted_folder"]

FOLDER_CUT = 200
"""Claude Code cuts a longer folder name here (and appends ``-<hash>``)."""
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_SEPARATOR = re.compile(r"([/\\])")


def _encoded(ch: str, *, utf16: bool) -> str:
    if ch in _ALNUM:
        return ch
    return "--" if utf16 and ord(ch) > 0xFFFF else "-"


def folder_name(cwd: str, *, utf16: bool = True) -> str:
    """The folder name Claude Code makes of ``cwd``, before any cut; ``utf16=False``:
    one ``-`` per code point (as a Python re-implementation such as the demo's writes it)."""
    return "".join(_encoded(ch, utf16=utf16) for ch in cwd)


def redacted_folder(
    cwd: str, *, utf16: bool = True, cut: int | None = FOLDER_CUT
) -> tuple[str, str] | None:
    """``(folder name, the same with cwd's secrets as markers)`` — both cut at ``cut``
    when longer (a marker the cut falls in is kept whole) — or None when there is
    nothing to redact in ``cwd``. Every character of the name outside a
    secret's span is kept, so it stays readable: ``-srv-postgres---app-[REDACTED:…]-db-…``."""
    spans = secret_spans(cwd)
    if not spans:
        return None
    name: list[str] = []
    shown: list[str] = []
    pos = size = 0  # where in cwd; how long the name is so far
    limit = len(cwd) * 2 if cut is None else cut
    for start, end, rule in [*spans, (len(cwd), len(cwd), "")]:
        kept = folder_name(cwd[pos:start], utf16=utf16)[: limit - size]
        name.append(kept)
        shown.append(kept)
        size += len(kept)
        if start < end and size < limit:
            secret = folder_name(cwd[start:end], utf16=utf16)[: limit - size]
            name.append(secret)
            shown.append(f"[REDACTED:{rule}]")
            size += len(secret)
        pos = end
    return "".join(name), "".join(shown)


class FolderNames:
    """Folder names made from working folders, and what each is stored as: learnt during
    one import run from the cwds its transcripts name (kept in memory only) and from the
    paths stored before, so that every path the run stores shows the folder redacted."""

    __slots__ = ("_learnt", "_names", "_shown")

    def __init__(self) -> None:
        self._names: dict[str, str] = {}  # folder name (cut) → as stored
        self._learnt: set[str] = set()
        self._shown: dict[str, str] = {}  # path component → as stored (paths read before)

    def __bool__(self) -> bool:
        return bool(self._names or self._shown)

    def learn(self, cwd: str | None) -> None:
        """Remember the folder name ``cwd`` gives, if it holds a secret."""
        if not cwd or cwd in self._learnt:
            return
        self._learnt.add(cwd)
        # Cut as Claude Code cuts a long name, and whole (as other writers leave it).
        for utf16, cut in ((True, FOLDER_CUT), (True, None), (False, FOLDER_CUT), (False, None)):
            found = redacted_folder(cwd, utf16=utf16, cut=cut)
            if found is not None:
                self._names[found[0]] = found[1]

    def learn_stored(self, path: str, shown: str) -> None:
        """Remember how a path stored before (``path`` as found, ``shown`` as stored)
        showed each of its folders: a resumed read may never see the cwd again."""
        raw, out = _SEPARATOR.split(path), _SEPARATOR.split(shown)
        if len(raw) == len(out):
            self._shown.update((r, o) for r, o in zip(raw, out, strict=True) if r != o)

    def apply(self, path: str) -> str:
        """``path`` with each folder name learnt shown as it is stored."""
        if not self:
            return path
        parts = _SEPARATOR.split(path)
        out = [self._part(p) for p in parts]
        return path if out == parts else "".join(out)

    def _part(self, part: str) -> str:
        known = self._shown.get(part) or self._names.get(part)
        if known is not None:
            return known
        cut = part[:FOLDER_CUT]
        if len(part) > FOLDER_CUT and part[FOLDER_CUT] == "-" and cut in self._names:
            return self._names[cut] + part[FOLDER_CUT:]
        return part


_NAME_SEPARATORS = frozenset("-_.")
_MARKER = re.compile(r"\[REDACTED:([a-z0-9-]+)\]")


def redact_path(path: str, folders: FolderNames | None = None) -> tuple[str, list[Hit]]:
    """:func:`redact_text` for a file path, which also finds a token inside a folder name
    as Claude Code writes it: the working folder's path with every character that is not
    a letter or digit turned into ``-`` (``/home/dev/ghp_…/main.py`` becomes
    ``-home-dev-ghp-…-main-py``), where a token is glued to its neighbours and may have
    lost its own ``_`` or ``.``; ``folders`` shows the folder names it learnt redacted
    first (what no rule finds in a name). The hits are the markers of the result."""
    named = folders.apply(path) if folders is not None else path
    out, hits = redact_text(named)
    glued = named is not path
    start = 1
    while start < len(out):
        if out[start - 1] in _NAME_SEPARATORS and any(
            may_hold_secret(v) for v in _unmangled(out[start:])
        ):
            found = _glued_token(out, start)
            if found is not None:
                out, glued = found, True
        start += 1
    if glued:
        hits = [Hit(m.group(1), m.start(), m.end()) for m in _MARKER.finditer(out)]
    return out, hits


def _unmangled(part: str) -> tuple[str, ...]:
    """``part`` as written, and with its ``-`` read as the ``_`` or ``.`` it may have been."""
    if "-" not in part:
        return (part,)
    return (part, part.replace("-", "_"), part.replace("-", "."))


def _glued_token(path: str, start: int) -> str | None:
    """``path`` with the token that starts at ``start`` redacted, trying the longest part
    that ends at a separator (or the end) first; None when no rule finds one there."""
    ends = [j for j in range(len(path), start, -1) if j == len(path) or path[j] in _NAME_SEPARATORS]
    for end in ends:
        part = path[start:end]
        for variant in _unmangled(part):
            out, found = redact_text(variant)
            first = next((h for h in found if h.start == 0), None)
            if first is None:
                continue
            # What the token took of the part: the rest is what follows its marker.
            alone = len(found) == 1
            taken = len(part) - (len(out) - first.end) if alone else len(part)
            return path[:start] + f"[REDACTED:{first.rule}]" + path[start + taken :]
    return None
