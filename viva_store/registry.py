"""The catalogue of read functions the store offers.

Every service function that returns stored data is registered here with
:func:`reader`. The visibility test walks this catalogue and calls each one
as a member, proving nothing of another member's comes back (DESIGN I5); a
new reader that the test does not know how to call fails that test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

READERS: dict[str, Callable[..., Any]] = {}


def reader(func: F) -> F:
    """Register ``func`` (first parameter: a ``Context``) as a read function."""
    READERS[f"{func.__module__}.{func.__qualname__}"] = func
    return func
