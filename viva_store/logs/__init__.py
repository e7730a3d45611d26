"""Viva's log file (Python ``logging``, redacted, in the user log dir)."""
