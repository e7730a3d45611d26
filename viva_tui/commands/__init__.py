"""The ``viva`` command groups, one module each (mounted in :mod:`viva_tui.cli`)."""
