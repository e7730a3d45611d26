"""Redaction upgrades: re-redacting what the store holds with the current rules."""
