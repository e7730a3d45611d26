"""The extra test layer over the shared harness samples (``../shared`` beside the clone).

Not part of the default run (``testpaths`` is ``tests``): CI runs it after the
SQLite pass, ``pytest tests_shared``. The store fixtures are the default
suite's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import (  # noqa: F401 - fixtures for the store tests here
    _head_revision_read_once,
    _isolated_env,
    cli_env,
    config,
    ctx,
    db_url,
    store,
    store_templates,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "harness-samples"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if not SHARED.is_dir():
        raise pytest.UsageError(f"tests_shared needs the shared samples at {SHARED}")
