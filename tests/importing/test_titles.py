"""Titles from what the human asked (not from injected context), the summary of the last
leaf among several, and pi's reasoning tokens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runner import run
from viva_store.importing.prepare import session_id

NATIVE = "44444444-4444-4444-8444-444444444444"
CWD = "/home/dev/shop"


def line(uuid: str, kind: str, content: Any, minute: int, **extra: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": uuid,
        "sessionId": NATIVE,
        "cwd": CWD,
        "timestamp": f"2026-03-10T10:{minute:02d}:00.000Z",
        "message": {"role": kind, "content": content},
        **extra,
    }


def write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def title_of(root: Path, native: str) -> str:
    done = run(["import", "--harness", "claude-code", "--root", f"claude-code={root}", "--json"])
    assert done.code == 0, done.err
    shown = run(["session", "show", session_id("claude-code", native), "--json"])
    return json.loads(shown.out)["title"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "injected",
    [
        "<recommended_plugins>\n- pyright: types\n</recommended_plugins>",
        "<ide_opened_file>The user opened /home/dev/shop/cart.py</ide_opened_file>",
    ],
)
def test_a_sub_agent_is_titled_by_its_task_not_its_injected_context(
    cli_env: str, tmp_path: Path, injected: str
) -> None:
    root = tmp_path / "claude"
    agent = "agent-a1b2c3d4"
    lines = [
        line("u1", "user", f"{injected}\nRefactor the cart totals", 0, isSidechain=True),
        line("u2", "assistant", [{"type": "text", "text": "On it."}], 1, isSidechain=True),
    ]
    write(root / "-home-dev-shop" / NATIVE / "subagents" / f"{agent}.jsonl", lines)
    write(root / "-home-dev-shop" / f"{NATIVE}.jsonl", [line("p1", "user", "Go", 0)])
    assert title_of(root, agent) == "Refactor the cart totals"


def test_a_prompt_of_nothing_but_context_does_not_title(cli_env: str, tmp_path: Path) -> None:
    root = tmp_path / "claude"
    lines = [
        line("u1", "user", "<ide_opened_file>opened cart.py</ide_opened_file>", 0),
        line("u2", "user", "Why is the total off by a cent?", 1),
    ]
    write(root / "-home-dev-shop" / f"{NATIVE}.jsonl", lines)
    assert title_of(root, NATIVE) == "Why is the total off by a cent?"


@pytest.mark.parametrize("newest_first", [False, True])
def test_of_several_summaries_the_last_leafs_titles(
    cli_env: str, tmp_path: Path, newest_first: bool
) -> None:
    root = tmp_path / "claude"
    summaries = [
        {"type": "summary", "summary": "Cart rounding", "leafUuid": "u2"},
        {"type": "summary", "summary": "Cart rounding and display", "leafUuid": "u4"},
    ]
    if newest_first:
        summaries.reverse()
    body = [
        line("u1", "user", "Round the total", 0),
        line("u2", "assistant", [{"type": "text", "text": "Done."}], 1),
        line("u3", "user", "Now show it with two decimals", 2),
        line("u4", "assistant", [{"type": "text", "text": "Done too."}], 3),
    ]
    write(root / "-home-dev-shop" / f"{NATIVE}.jsonl", [*summaries, *body])
    assert title_of(root, NATIVE) == "Cart rounding and display"


def test_pi_reasoning_tokens_are_recorded() -> None:
    from viva_store.importing.harness.pi.parse import pi_usage

    usage = pi_usage("k", {"input": 10, "output": 5, "reasoning": 7}, "m")
    assert usage is not None and usage.reasoning_tokens == 7
    only = pi_usage("k", {"reasoning": 3}, "m")
    assert only is not None and only.reasoning_tokens == 3
