"""Errors the store raises on purpose. Faces show ``str(error)`` as one line."""

from __future__ import annotations


class VivaError(Exception):
    """Base of every error Viva reports to a user (one line, no traceback)."""


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
