"""``--since`` values: relative forms count back from the clock, a date is local midnight."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from viva_store.clock import frozen, parse_since
from viva_store.errors import InvalidInput

NOW = datetime(2026, 6, 1, 3, 30, tzinfo=UTC)  # 2026-05-31 23:30 in New York (EDT, -4)


@pytest.fixture(autouse=True)
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    with frozen(NOW):
        yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30m", NOW - timedelta(minutes=30)),
        ("8h", NOW - timedelta(hours=8)),
        ("7d", NOW - timedelta(days=7)),
        ("2w", NOW - timedelta(weeks=2)),
        (" 2W ", NOW - timedelta(weeks=2)),
        ("today", datetime(2026, 5, 31, 4, tzinfo=UTC)),  # New York's midnight, in UTC
        ("yesterday", datetime(2026, 5, 30, 4, tzinfo=UTC)),
        ("2026-05-25", datetime(2026, 5, 25, 4, tzinfo=UTC)),
        ("2026-01-15", datetime(2026, 1, 15, 5, tzinfo=UTC)),  # EST in winter
        ("2026-05-25T10:00", datetime(2026, 5, 25, 14, tzinfo=UTC)),
        ("2026-05-25T10:00Z", datetime(2026, 5, 25, 10, tzinfo=UTC)),
        ("2026-05-25T10:00+02:00", datetime(2026, 5, 25, 8, tzinfo=UTC)),
    ],
)
def test_since_forms(text: str, expected: datetime) -> None:
    assert parse_since(text) == expected


@pytest.mark.parametrize("text", ["last Tuesday", "7 days", "2026-13-01", "-3d", ""])
def test_an_error_quotes_what_the_user_typed(text: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_since(text)
    assert repr(text) in str(caught.value)
