"""Helpers the line-layer tests share: read bytes through it, check the accounting."""

from __future__ import annotations

import io
from typing import Any

from viva_store.importing.harness.lines import LineOutcome, Progress, iter_lines


def read_all(
    data: bytes, start_offset: int = 0, start_line: int = 1, **kwargs: Any
) -> tuple[list[LineOutcome], Progress]:
    progress = Progress()
    outcomes = list(
        iter_lines(io.BytesIO(data), start_offset, start_line, progress=progress, **kwargs)
    )
    return outcomes, progress


def one(line: bytes) -> LineOutcome:
    outcomes, progress = read_all(line + b"\n")
    assert len(outcomes) == 1 and progress.withheld == 0
    return outcomes[0]


def check_accounting(
    data: bytes, outcomes: list[LineOutcome], progress: Progress, start: int = 0
) -> None:
    assert sum(o.length for o in outcomes) + progress.withheld == len(data) - start
    offset = start
    for out in outcomes:
        assert out.offset == offset
        offset += out.length
        assert data[out.offset + out.length - 1 : out.offset + out.length] == b"\n"
    assert progress.offset == offset
