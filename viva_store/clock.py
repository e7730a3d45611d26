"""The one clock. ``VIVA_NOW`` (ISO-8601) replaces it everywhere."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, date, datetime, time, timedelta

from viva_store.errors import InvalidInput


def parse_instant(text: str) -> datetime:
    """Parse an ISO-8601 instant; a naive value is taken as UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInput(f"not an ISO-8601 instant: {text!r}") from exc
    return as_utc(value)


_RELATIVE_RE = re.compile(r"^(\d+)\s*([mhdw])$")
_RELATIVE_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
SINCE_FORMS = "YYYY-MM-DD, an ISO-8601 instant, 30m, 8h, 7d, 2w, today or yesterday"
"""What :func:`parse_since` accepts, for help texts and error messages."""


def parse_since(text: str) -> datetime:
    """The instant a ``--since`` value names, in UTC.

    A bare date is local midnight, an instant without an offset local time; ``7d``,
    ``2w``, ``8h``, ``30m`` count back from :func:`now`; ``today`` and ``yesterday`` are
    local midnights. An error quotes ``text`` as the user typed it.
    """
    value = text.strip().lower()
    local_now = now().astimezone()
    if value in ("today", "yesterday"):
        day = local_now.date() - timedelta(days=1 if value == "yesterday" else 0)
        return _local_midnight(day)
    match = _RELATIVE_RE.match(value)
    if match:
        return as_utc(local_now - timedelta(**{_RELATIVE_UNITS[match[2]]: int(match[1])}))
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return _local_midnight(date.fromisoformat(value))
        parsed = datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"not a date: {text!r} (use {SINCE_FORMS})") from None
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()  # a naive instant is the user's local time
    return as_utc(parsed)


def _local_midnight(day: date) -> datetime:
    """00:00 of ``day`` in the local time zone, as UTC."""
    return as_utc(datetime.combine(day, time()).astimezone())


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
