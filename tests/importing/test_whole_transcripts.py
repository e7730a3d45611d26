"""Whole transcripts: every block of every source line comes back from ``viva session
show --json`` in source order with its whole tool input; a resumed copy is linked to its
original and shared responses count once, for the original, whatever the read order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runner import run
from tests.importing.whole_support import (
    COPY,
    ORIGINAL,
    SHOP,
    blocks,
    lay_out,
    shown_blocks,
    totals,
    usage_by_response,
)
from viva_store.importing.harness.lines_decode import TAIL_TAKEN
from viva_store.importing.prepare import session_id


def import_root(root: Path) -> dict[str, Any]:
    done = run(["import", "--harness", "claude-code", "--root", f"claude-code={root}", "--json"])
    assert done.code == 0, done.err
    return json.loads(done.out)  # type: ignore[no-any-return]


def show(native: str) -> dict[str, Any]:
    done = run(["session", "show", session_id("claude-code", native), "--json"])
    assert done.code == 0, done.err
    return json.loads(done.out)  # type: ignore[no-any-return]


def source(root: Path, native: str) -> Path:
    [path] = root.rglob(f"{native}.jsonl")
    return path


def test_every_block_comes_back_whole_and_in_source_order(cli_env: str, tmp_path: Path) -> None:
    root = lay_out(tmp_path / "claude")
    report = import_root(root)
    for native in (ORIGINAL, COPY):
        shown = show(native)
        assert shown_blocks(shown["messages"]) == blocks(source(root, native))
        for m in shown["messages"]:  # the contract's keys stay
            assert {"seq", "role", "at", "text", "tool"} <= set(m)
    edit = next(m for m in show(ORIGINAL)["messages"] if m["tool"] == "Edit")
    assert "Decimal(0)).quantize(CENT)" in edit["tool_args"]["new_string"]
    assert edit["tool_input"] == "/home/dev/shop/src/cart.py"  # the summary stays
    # The quiet file's last line, without a newline, was taken, and the run says so.
    path = str(source(root, ORIGINAL))
    assert {"path": path, "line": 10, "reason": TAIL_TAKEN} in report["problems"]


def test_a_user_line_of_a_result_then_text_keeps_that_order(cli_env: str, tmp_path: Path) -> None:
    import_root(lay_out(tmp_path / "claude", copy_folder=None))
    messages = show(ORIGINAL)["messages"]
    at = next(i for i, m in enumerate(messages) if m["tool"] == "Edit" and m["role"] == "tool")
    assert messages[at + 1]["role"] == "user"
    assert messages[at + 1]["text"] == "Also add a test for 0.1 + 0.2"


def test_a_line_being_written_waits_while_the_file_is_fresh(cli_env: str, tmp_path: Path) -> None:
    root = lay_out(tmp_path / "claude", copy_folder=None, quiet=False)
    report = import_root(root)
    assert report["problems"] == []
    texts = [m["text"] for m in show(ORIGINAL)["messages"]]
    assert "Totals are rounded to cents now, and the test passes." not in texts
    assert len(blocks(source(root, ORIGINAL))) == len(texts) + 1


@pytest.mark.parametrize(
    "order", ["copy read first", "copy read last", "copy in an earlier run", "copy in a later run"]
)
def test_a_resumed_copy_is_linked_and_shared_usage_counts_once_for_the_original(
    cli_env: str, tmp_path: Path, order: str
) -> None:
    root = tmp_path / "claude"
    folder = "-home-dev-aaa" if order == "copy read first" else "-home-dev-zzz"
    lay_out(root, copy_folder=folder)
    if order == "copy in an earlier run":
        hidden = root / SHOP / f"{ORIGINAL}.jsonl"
        kept = hidden.rename(tmp_path / "later.jsonl")
        import_root(root)
        kept.rename(hidden)
    if order == "copy in a later run":
        hidden = root / folder / f"{COPY}.jsonl"
        kept = hidden.rename(tmp_path / "later.jsonl")
        import_root(root)
        kept.rename(hidden)
    import_root(root)
    original = usage_by_response(source(root, ORIGINAL))
    copy = usage_by_response(source(root, COPY))
    shared = set(original) & set(copy)
    assert len(shared) == 2
    first, resumed = show(ORIGINAL), show(COPY)
    assert first["tokens"] | totals(list(original.values())) == first["tokens"]
    own = [v for k, v in copy.items() if k not in shared]
    assert resumed["tokens"] | totals(own) == resumed["tokens"]
    # Together: the deduplicated totals of the two files.
    together = totals(list({**copy, **original}.values()))
    assert {k: first["tokens"][k] + resumed["tokens"][k] for k in together} == together
    assert (resumed["relation"], resumed["parent_id"]) == ("continues", first["id"])
    assert first["relation"] is None and first["parent_id"] is None


def test_codex_arguments_are_kept_whole(cli_env: str, tmp_path: Path) -> None:
    """A ``function_call``'s arguments (JSON inside a string) come back as the object they
    encode; a ``custom_tool_call``'s input (an apply_patch body) as its text."""
    from tests.fixture_layout import lay_out as lay_out_harness

    root = lay_out_harness("codex", tmp_path)
    done = run(["import", "--harness", "codex", "--root", f"codex={root}", "--json"])
    assert done.code == 0, done.err
    shown = json.loads(
        run(
            [
                "session",
                "show",
                session_id("codex", "0195a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"),
                "--json",
            ]
        ).out
    )
    calls = {m["tool"]: m for m in shown["messages"] if m["role"] == "assistant" and m["tool"]}
    assert calls["shell"]["tool_args"] == {
        "command": ["bash", "-lc", "rg -n checkout src"],
        "workdir": "/home/dev/shop",
    }
    assert calls["shell"]["tool_input"] == "rg -n checkout src"
    patch = calls["apply_patch"]["tool_args"]
    assert patch.startswith("*** Begin Patch\n") and "+def checkout(cart, code=None):" in patch
