"""Viva's faces: the ``viva`` command and the Textual app.

Every ``viva`` process starts by importing this package. A call imports some hundred
thousand objects that live until it exits; at the collector's default threshold the
cyclic collector would walk over them a hundred times on the way, so it runs less often.
"""

import gc

__version__ = "0.1.0"
"""The version of the distribution (pyproject.toml reads it from here)."""

gc.set_threshold(20_000, 50, 100)
