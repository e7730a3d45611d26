"""Viva's block in a user's instruction file (``CLAUDE.md``, ``AGENTS.md``); pure.

The block is appended after the user's own text, separated by one blank line, between
``<!-- viva:begin ... -->`` and ``<!-- viva:end -->`` lines. What is appended (the
separator and the block) is exactly what :func:`remove` takes out again, so a file
nobody touched during the session comes back byte for byte; a file edited during the
session keeps the edits and loses only the block.
"""

from __future__ import annotations

BEGIN = "<!-- viva:begin"
END = "<!-- viva:end -->"


def has_block(data: bytes) -> bool:
    """Whether ``data`` holds a Viva block (or the start of one)."""
    return BEGIN.encode() in data


def insertion(original: bytes | None, block: str) -> bytes:
    """The bytes to append to ``original`` (``None``: the file does not exist)."""
    body = block.encode("utf-8")
    if not original:
        return body
    sep = b"\n" if original.endswith(b"\n") else b"\n\n"
    return sep + body


def remove(current: bytes, inserted: bytes) -> tuple[bytes, bool]:
    """``current`` without Viva's block; ``(result, exact)``.

    ``exact`` is True when the very bytes that were appended were found (once) and cut
    out; otherwise any delimited block is removed (best effort, e.g. after a crash with
    no journal, or a block edited during the session). With no block at all, ``current``
    comes back unchanged and ``exact`` is False.
    """
    if inserted and current.count(inserted) == 1:
        at = current.index(inserted)
        return current[:at] + current[at + len(inserted) :], True
    return _cut_delimited(current), False


def _cut_delimited(current: bytes) -> bytes:
    """Cut the first ``viva:begin`` … ``viva:end`` block and one blank line before it."""
    begin = current.find(BEGIN.encode())
    end = current.find(END.encode(), begin) if begin >= 0 else -1
    if end < 0:
        return current
    end += len(END)
    for newline in (b"\r\n", b"\n"):
        if current.startswith(newline, end):
            end += len(newline)
            break
    head = current[:begin]
    if head.endswith(b"\n\n"):
        head = head[:-1]
    return head + current[end:]
