"""Suggesting a member for a queued session: pure model code, no I/O."""
