"""What a person types, redacted like everything else before it is stored or shown.

Flags such as ``--text``, ``--rationale``, ``--note`` and the engagement fields, and the
skill bodies someone imports, pass through the one redactor (:func:`redact_text`) on
their way in, so a pasted credential never reaches the database, an error message or
a printed confirmation. Rows written with such text record :data:`RULESET_VERSION`.
"""

from __future__ import annotations

from typing import overload

from viva_store.redact.engine import RULESET_VERSION, redact_text

__all__ = ["RULESET_VERSION", "redact_typed"]


@overload
def redact_typed(value: str) -> str: ...
@overload
def redact_typed(value: None) -> None: ...
def redact_typed(value: str | None) -> str | None:
    """``value`` with every secret replaced by ``[REDACTED:<rule>]`` (``None`` stays)."""
    if value is None:
        return None
    return redact_text(value)[0]
