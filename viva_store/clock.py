"""The one clock. ``VIVA_NOW`` (ISO-8601) replaces it everywhere."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime

from viva_store.errors import InvalidInput


def parse_instant(text: str) -> datetime:
    """Parse an ISO-8601 instant; a naive value is taken as UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInput(f"not an ISO-8601 instant: {text!r}") from exc
    return as_utc(value)


def as_utc(value: datetime) -> datetime:
    """Attach UTC to a naive datetime (SQLite returns them naive) or convert to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


_FROZEN: ContextVar[datetime | None] = ContextVar("viva_frozen_now", default=None)
_PINNED: tuple[str, datetime] | None = None  # the last ``VIVA_NOW`` text and its instant


@contextmanager
def frozen(at: datetime) -> Iterator[None]:
    """Make :func:`now` return ``at`` inside the block (the demo replays weeks of history)."""
    token = _FROZEN.set(as_utc(at))
    try:
        yield
    finally:
        _FROZEN.reset(token)


def now() -> datetime:
    """The current instant: a :func:`frozen` block, else ``VIVA_NOW``, else the real clock."""
    pinned = _FROZEN.get()
    if pinned is not None:
        return pinned
    text = os.environ.get("VIVA_NOW")
    if text:
        global _PINNED
        pinned_text = _PINNED
        if pinned_text is not None and pinned_text[0] == text:
            return pinned_text[1]  # parsed once per value (a hot path asks on every call)
        try:
            at = parse_instant(text)
        except InvalidInput as exc:
            raise InvalidInput(f"VIVA_NOW is {exc}") from exc
        _PINNED = (text, at)
        return at
    return datetime.now(UTC)
