"""Recovered sessions and their messages, read within the caller's scope."""
