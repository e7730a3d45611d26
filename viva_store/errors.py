"""Errors the store raises on purpose. Faces show ``str(error)`` as one line.

A message may quote what the user typed (``no session matches '…'``); ``str()`` of any
:class:`VivaError` is redacted, so a pasted credential is never echoed back.
"""

from __future__ import annotations


def redacted(message: str) -> str:
    """``message`` with every secret replaced by ``[REDACTED:<rule>]``."""
    from viva_store.redact import redact_typed  # only when an error is shown

    return redact_typed(message)


def unexpected_error_line(exc: BaseException, width: int = 300) -> str:
    """An unexpected exception as one redacted line of at most ``width`` characters of
    message (redacted before it is cut, so no half of a secret survives the cut)."""
    return f"{type(exc).__name__}: {redacted(' '.join(str(exc).split()))[:width]}"


class VivaError(Exception):
    """Base of every error Viva reports to a user (one line, no traceback)."""

    def __str__(self) -> str:
        return redacted(super().__str__())


class InvalidInput(VivaError):
    """An argument or file the user gave cannot be used."""


class NotFound(VivaError):
    """A named thing (member, skill, session, grant) does not exist or is not visible."""


class AccessDenied(VivaError):
    """The actor may not do this (a member-scoped call doing an owner's job)."""


class GrantRefused(VivaError):
    """``VIVA_GRANT`` is invalid, expired or revoked; never falls back to the owner."""


class StoreError(VivaError):
    """The store itself cannot be opened or written."""
