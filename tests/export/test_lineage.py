"""`viva session show` lists a session's sub-agent sessions, its parent, and the
original a copy or continuation repeats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.runner import run
from tests.importing.whole_support import COPY, ORIGINAL, lay_out


def _show(sid: str) -> tuple[dict[str, Any], str]:
    as_json = run(["session", "show", sid, "--json"])
    text = run(["session", "show", sid])
    assert as_json.code == 0 and text.code == 0, (as_json.err, text.err)
    return json.loads(as_json.out)["related"], text.out


def test_a_parent_lists_its_sub_agents_and_each_names_its_parent(
    every_harness: list[dict[str, Any]],
) -> None:
    subs = [s for s in every_harness if s["relation"] == "subagent" and s["parent_id"]]
    assert len({s["harness"] for s in subs}) >= 3
    for sub in subs:
        parent, parent_text = _show(sub["parent_id"])
        assert sub["id"] in [s["id"] for s in parent["subagents"]]
        assert f"sub-agent: {sub['id']}" in parent_text
        mine, text = _show(sub["id"])
        assert mine["parent"]["id"] == sub["parent_id"] and mine["original"] is None
        assert f"sub-agent of: {sub['parent_id']}" in text


def test_forks_and_continuations_are_listed_as_children(
    every_harness: list[dict[str, Any]],
) -> None:
    forks = [s for s in every_harness if s["relation"] == "fork"]
    assert forks
    for fork in forks:
        parent, _ = _show(fork["parent_id"])
        assert [c["id"] for c in parent["children"] if c["relation"] == "fork"] == [fork["id"]]
        assert f"forked from: {fork['parent_id']}" in _show(fork["id"])[1]
    cont = next(s for s in every_harness if s["relation"] == "continuation")
    related, text = _show(cont["id"])
    assert related["original"]["id"] == cont["parent_id"] and related["parent"] is None
    assert f"continues: {cont['parent_id']}" in text


def test_a_resumed_copy_links_to_its_original(cli_env: str, tmp_path: Path) -> None:
    root = lay_out(tmp_path / "claude")
    assert run(["import", "--root", f"claude-code={root}"]).code == 0
    copy, text = _show(COPY)
    original = json.loads(run(["session", "show", ORIGINAL, "--json"]).out)
    assert copy["original"]["id"] == original["id"]
    assert f"continues: {original['id']}" in text
    assert [c["id"] for c in original["related"]["children"]] == [copy_id(COPY)]


def copy_id(native: str) -> str:
    return str(json.loads(run(["session", "show", native, "--json"]).out)["id"])
