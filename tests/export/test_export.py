"""`viva session export` and `viva export`: every format, on sessions of every harness."""

from __future__ import annotations

import html
import json
import random
import string
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runner import run
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.members.grants import issue_grant
from viva_store.store import Context

FORMATS = ("md", "html", "json", "jsonl")


def _export(sid: str, fmt: str) -> str:
    result = run(["session", "export", sid, "--format", fmt])
    assert result.code == 0, result.err
    return result.out


def _shown(sid: str) -> dict[str, Any]:
    result = run(["session", "show", sid, "--json"])
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def _strings(value: Any) -> list[str]:
    """Every string inside a tool's whole input (keys and values)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _flat(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """A JSON export's messages, its sub-agents' after them."""
    return [*doc["messages"], *(m for s in doc["subagents"] for m in _flat(s))]


def test_json_holds_every_message_whole_for_every_harness(
    every_harness: list[dict[str, Any]],
) -> None:
    with_tools = set()
    for session in every_harness:
        doc = json.loads(_export(session["id"], "json"))
        shown = _shown(session["id"])
        assert doc["messages"] == shown["messages"]
        assert {k: doc[k] for k in ("id", "harness", "native_id", "cwd")} == {
            k: session[k] for k in ("id", "harness", "native_id", "cwd")
        }
        if any(m["tool_args"] is not None for m in doc["messages"]):
            with_tools.add(session["harness"])
    assert with_tools == {s["harness"] for s in every_harness}


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_readable_formats_show_every_tool_input_whole(
    every_harness: list[dict[str, Any]], fmt: str
) -> None:
    checked = 0
    for session in every_harness:
        out = _export(session["id"], fmt)
        for msg in _shown(session["id"])["messages"]:
            for text in _strings(msg["tool_args"]):
                for line in text.splitlines():
                    shown = html.escape(line) if fmt == "html" else line
                    assert shown in out, (session["harness"], msg["seq"], line)
                    checked += 1
            body = (msg["text"] or msg["tool_result"] or "").strip().splitlines()
            if body:
                assert (html.escape(body[0]) if fmt == "html" else body[0]) in out
    assert checked > 20


def test_sub_agent_sessions_nest_under_their_parent(every_harness: list[dict[str, Any]]) -> None:
    subs = [s for s in every_harness if s.get("relation") == "subagent"]
    parent_of = {s["id"]: _shown(s["id"])["parent_id"] for s in subs}
    assert sum(bool(_shown(sub)["messages"]) for sub in parent_of) >= 3
    assert {s["harness"] for s in subs} == {"claude-code", "gemini", "opencode", "hermes"}
    for sub, parent in parent_of.items():
        if parent is None:
            continue
        doc = json.loads(_export(parent, "json"))
        nested = {s["id"]: s for s in doc["subagents"]}
        assert sub in nested
        assert nested[sub]["messages"] == _shown(sub)["messages"]
        lines = [json.loads(line) for line in _export(parent, "jsonl").splitlines()]
        heads = [
            (d["id"], d["depth"], d["parent_session_id"]) for d in lines if d["type"] == "session"
        ]
        assert heads[0] == (parent, 0, None) and (sub, 1, parent) in heads
        own = [d for d in lines if d["type"] == "message" and d["session_id"] == sub]
        assert len(own) == len(nested[sub]["messages"]) and all(d["depth"] == 1 for d in own)
        page = _export(parent, "html")
        assert f"sub-agent session {sub}</div>" in page
        start = page.index(f"sub-agent session {sub}")
        assert page.index('<section class="sub">', start - 60) < start
        assert f"**sub-agent session** {sub}" in _export(parent, "md")


def test_inline_sidechain_turns_nest_as_sub_agent_turns(
    every_harness: list[dict[str, Any]],
) -> None:
    inline = [s for s in every_harness if any(m["sidechain"] for m in _shown(s["id"])["messages"])]
    assert inline
    for session in inline:
        page = _export(session["id"], "html")
        first = next(m for m in _shown(session["id"])["messages"] if m["sidechain"])
        opened = page.index('<div class="label">sub-agent turns</div>')
        assert opened < page.index(html.escape(first["text"].strip().splitlines()[0]), opened)
        assert "> **sub-agent turns**" in _export(session["id"], "md")


def test_jsonl_lines_are_the_json_export_flattened(every_harness: list[dict[str, Any]]) -> None:
    for session in every_harness:
        doc = json.loads(_export(session["id"], "json"))
        lines = [json.loads(line) for line in _export(session["id"], "jsonl").splitlines()]
        messages = [
            {k: v for k, v in d.items() if k not in ("type", "depth", "session_id")}
            for d in lines
            if d["type"] == "message"
        ]
        assert sorted(json.dumps(m, sort_keys=True) for m in messages) == sorted(
            json.dumps(m, sort_keys=True) for m in _flat(doc)
        )


def _secret() -> str:
    """A GitHub-token-shaped string, made at run time (never committed)."""
    return "ghp_" + "".join(random.choices(string.ascii_letters + string.digits, k=36))


@pytest.fixture
def planted(cli_env: str, tmp_path: Path) -> tuple[str, str]:
    """A Claude Code session with a secret in a prompt and a tool input, and markup in a
    prompt; returns (its id, the secret)."""
    secret = _secret()
    turns = (
        Turn(f"use the token {secret} <script>alert('x')</script>", "ok"),
        Turn(
            "run it",
            "done",
            tool="Bash",
            tool_input={"command": f"curl -H 'A: {secret}'"},
            tool_output="200",
        ),
    )
    spec = SessionSpec(
        "abcdef00-0000-4000-8000-000000000042",
        str(tmp_path),
        datetime(2026, 6, 1, 9, tzinfo=UTC),
        turns,
        "claude-sonnet-4",
        title="<b>bold</b> & title",
    )
    claude_code(tmp_path / "claude", spec)
    assert run(["import", "--root", f"claude-code={tmp_path / 'claude'}"]).code == 0
    sid = json.loads(run(["sessions", "--all", "--json"]).out)[0]["id"]
    return sid, secret


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_export_keeps_the_redaction(planted: tuple[str, str], fmt: str) -> None:
    sid, secret = planted
    out = _export(sid, fmt)
    assert secret not in out and secret[4:] not in out
    assert out.count("[REDACTED:") >= 2


def test_html_escapes_the_transcript_and_fetches_nothing(planted: tuple[str, str]) -> None:
    page = _export(planted[0], "html")
    assert "<script" not in page and "&lt;script&gt;" in page
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; title" in page
    assert "http://" not in page and "https://" not in page and "src=" not in page
    assert "<details><summary>⚙ Bash" in page


def test_o_writes_a_file_and_json_reports_it(planted: tuple[str, str], tmp_path: Path) -> None:
    sid = planted[0]
    target = tmp_path / "out" / "one.html"
    result = run(["session", "export", sid, "--format", "html", "-o", str(target), "--json"])
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["path"] == str(target) and report["bytes"] == target.stat().st_size
    assert target.read_text("utf-8") == _export(sid, "html")
    folder = run(["session", "export", sid, "-o", f"{tmp_path / 'dir'}/"])
    assert folder.code == 0, folder.err
    written = Path(folder.out.strip())
    assert written.parent == tmp_path / "dir" and written.name.endswith(f"_{sid}.md")


def test_bad_input_is_refused_with_one_line(planted: tuple[str, str]) -> None:
    bad = run(["session", "export", planted[0], "--format", "pdf"])
    assert bad.code == 2 and len(bad.err.strip().splitlines()) == 1 and "pdf" in bad.err
    missing = run(["session", "export", "nothing-like-this"])
    assert missing.code == 1 and len(missing.err.strip().splitlines()) == 1
    assert run(["export", "--format", "pdf", "-o", "x"]).code == 2


def test_export_writes_every_session_but_nests_sub_agents(
    every_harness: list[dict[str, Any]], tmp_path: Path
) -> None:
    result = run(["export", "-o", str(tmp_path / "all"), "--format", "json", "--json"])
    assert result.code == 0, result.err
    written = json.loads(result.out)
    ids = {w["session_id"] for w in written}
    nested = {s["id"] for s in every_harness if s["id"] not in ids}
    assert nested and all(s["relation"] == "subagent" for s in every_harness if s["id"] in nested)
    assert {p.name for p in (tmp_path / "all").iterdir()} == {Path(w["path"]).name for w in written}
    since = run(["export", "-o", str(tmp_path / "recent"), "--since", "2026-03-01", "--json"])
    recent = json.loads(since.out)
    assert recent and len(recent) < len(written)


def test_a_member_exports_only_its_own(
    ctx: Context, planted: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = planted[0]
    other = tmp_path / "other"
    spec = SessionSpec(
        "abcdef00-0000-4000-8000-000000000043",
        str(tmp_path),
        datetime(2026, 6, 2, 9, tzinfo=UTC),
        (Turn("samuel's work", "ok"),),
        "m",
    )
    claude_code(other, spec)
    assert run(["import", "--root", f"claude-code={other}"]).code == 0
    assert run(["classify", sid, "--member", "deven"]).code == 0
    assert run(["classify", spec.native_id, "--member", "samuel"]).code == 0
    monkeypatch.setenv("VIVA_GRANT", issue_grant(ctx, "deven").token)
    assert run(["session", "export", sid, "--format", "json"]).code == 0
    refused = run(["session", "export", spec.native_id])
    assert refused.code == 1 and "no session matches" in refused.err
    assert "samuel's work" not in refused.out
    mine = run(["export", "-o", str(tmp_path / "mine"), "--json"])
    assert [w["session_id"] for w in json.loads(mine.out)] == [sid]
    theirs = run(["export", "--member", "samuel", "-o", str(tmp_path / "theirs")])
    assert theirs.code == 1 and "cannot" in theirs.err
    assert not (tmp_path / "theirs").exists()
