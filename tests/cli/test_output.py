"""Tables: on a narrow terminal ids are never wrapped or cut; in a pipe, plain rows."""

from __future__ import annotations

import pytest

from viva_tui.commands import output
from viva_tui.commands.output import key, line

IDS = ["s0123456789abcdef", "s fedcba9876543210"]
TITLE = "a title long enough that it must be cut somewhere " * 3


def draw(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tty: bool) -> str:
    monkeypatch.setattr(output, "is_terminal", lambda: tty)
    monkeypatch.setenv("COLUMNS", "40")
    output.table(
        "sessions",
        [key("id"), line("title"), "note"],
        [(IDS[0], TITLE, "wraps " * 8), (IDS[1], "[bold]x[/]", None)],
    )
    return capsys.readouterr().out


def test_a_narrow_terminal_keeps_every_id_whole(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = draw(monkeypatch, capsys, tty=True)
    lines = out.splitlines()
    for sid in IDS:
        assert any(sid in row for row in lines), out  # on one line, whole
    assert "…" in out  # the free text was cut, with an ellipsis
    assert "[bold" in out  # cells are never read as markup


def test_a_pipe_gets_one_tab_separated_line_per_row(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = draw(monkeypatch, capsys, tty=False)
    assert out.splitlines() == [
        "\t".join([IDS[0], " ".join(TITLE.split()), " ".join(("wraps " * 8).split())]),
        "\t".join([IDS[1], "[bold]x[/]", ""]),
    ]
