"""``python -m viva_tui``: the ``viva`` command, for where its script is not on PATH."""

from viva_tui.cli import main

main()
