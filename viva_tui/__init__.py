"""Viva's faces: the ``viva`` command and the Textual app.

Every ``viva`` process starts by importing this package, and a call then imports some
hundred thousand objects that live until it exits. Walking over them is all the cyclic
collector would do during start-up (a fifth of a member's call), so it is off until
:func:`started` says the work begins; then it runs less often than Python's default, for
the same reason. (The reader processes of ``viva import`` import this package too, as
their parent's main module, and read with it off: reading leaves almost nothing in
cycles, some 700 objects for a 20 MB history, and was no slower or faster for it.)
"""

import gc

__version__ = "0.1.0"
"""The version of the distribution (pyproject.toml reads it from here)."""

gc.disable()
gc.set_threshold(20_000, 50, 100)


def started() -> None:
    """Start-up is over (the store is open): the collector runs from here on, over what
    the work allocates; what start-up made is frozen, never walked again."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
