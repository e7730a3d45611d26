"""Recovering sessions: the public face of the importer (DESIGN job 1, I4).

:func:`run_import` walks every harness root, reads what is new, redacts it and stores it,
yielding progress events; :func:`store_status` reports the roots, the last import and
files near their harness's retention. The harness names and roots are resolved here too.
"""

from __future__ import annotations

from viva_store.importing.harness.registry import check as check_harness
from viva_store.importing.harness.registry import names as harness_names
from viva_store.importing.harness.registry import parse_overrides, roots
from viva_store.importing.pipeline import (
    FileImported,
    FilesUnchanged,
    ImportStarted,
    ImportSummary,
    run_import,
)
from viva_store.importing.status import store_status

__all__ = [
    "FileImported",
    "FilesUnchanged",
    "ImportStarted",
    "ImportSummary",
    "check_harness",
    "harness_names",
    "parse_overrides",
    "roots",
    "run_import",
    "store_status",
]
