"""``viva mcp`` through the SDK's own stdio client: tools, results, scope, the grant.

The server runs as a harness starts it — ``viva mcp`` in a process of its own, with the
member's grant in its environment — on the recall tests' team history. Each tool's
answer is set beside what the matching CLI command prints with ``--json`` under the same
grant, and each refusal beside the CLI's one line.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any, TypeVar

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from sqlalchemy import update

from tests.cli.runner import run
from viva_store.db.schema import MEMBER_GRANT
from viva_store.members.grants import issue_grant, revoke_grant
from viva_store.store import Context
from viva_tui.mcp.tools import CORE_TOOLS, TOOLS

T = TypeVar("T")


@asynccontextmanager
async def connected(token: str | None) -> AsyncIterator[ClientSession]:
    """A client session with a fresh ``viva mcp`` server acting under ``token``."""
    env = {k: v for k, v in os.environ.items() if k != "VIVA_GRANT"}
    if token is not None:
        env["VIVA_GRANT"] = token
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "viva_tui.cli", "mcp"], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def with_server(token: str, talk: Callable[[ClientSession], Awaitable[T]]) -> T:
    async def main() -> T:
        async with connected(token) as session:
            return await talk(session)

    return anyio.run(main)


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


def answered(result: types.CallToolResult) -> Any:
    """The JSON a tool answered with (its first text; notices may follow)."""
    assert not result.is_error, texts(result)
    return json.loads(texts(result)[0])


def refused(result: types.CallToolResult) -> str:
    """The one line a tool refused with."""
    assert result.is_error, texts(result)
    [line] = texts(result)
    assert "\n" not in line and "Traceback" not in line
    return line


def cli(monkeypatch: pytest.MonkeyPatch, token: str, *args: str) -> tuple[int, str, str]:
    """``viva ARGS`` under ``token``: exit code, stdout, stderr stripped."""
    monkeypatch.setenv("VIVA_GRANT", token)
    try:
        r = run(args)
    finally:
        monkeypatch.delenv("VIVA_GRANT")
    return r.code, r.out, r.err.strip()


def cli_json(monkeypatch: pytest.MonkeyPatch, token: str, *args: str) -> Any:
    code, out, err = cli(monkeypatch, token, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def cli_refusal(monkeypatch: pytest.MonkeyPatch, token: str, *args: str) -> str:
    code, _, err = cli(monkeypatch, token, *args)
    assert code == 1 and err.startswith("viva: ") and "\n" not in err, err
    return err


def test_every_tool_answers_as_the_member_with_the_clis_json(
    ctx: Context,
    recall_history: dict[str, str],
    cli_env: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token = issue_grant(ctx, "deven").token
    planted, recent = recall_history["d-planted"], recall_history["d-recent"]
    reads: list[tuple[str, dict[str, Any]]] = [
        ("recall", {"query": "cache"}),
        ("skill_search", {"query": "review the code"}),
        ("skill_show", {"name": "code-review"}),
        ("state_get", {}),
        ("timeline", {}),
        ("session_show", {"id": planted}),
    ]
    writes: list[tuple[str, dict[str, Any]]] = [
        ("skill_use", {"name": "code-review", "outcome": "success", "session": recent}),
        ("state_set", {"activity": "testing", "note": "from the mcp test"}),
        (
            "principle_propose",
            {"text": "Cache by key", "rationale": "it recurred", "evidence": [planted]},
        ),
    ]
    on_cli: dict[str, Any] = {}

    def the_cli_reads() -> None:
        """The CLI's reads, taken while the store is as the tools read it (the timeline
        first: the CLI's own `skill show` records a read the timeline would list)."""
        on_cli["timeline"] = cli_json(monkeypatch, token, "timeline", "deven", "--json")
        on_cli["recall"] = cli_json(monkeypatch, token, "recall", "cache")
        on_cli["skill_show"] = cli(monkeypatch, token, "skill", "show", "code-review")[1]
        on_cli["state_get"] = cli_json(monkeypatch, token, "state", "get", "deven")
        on_cli["session_show"] = cli_json(monkeypatch, token, "session", "show", planted)

    async def talk(session: ClientSession) -> tuple[list[str], dict[str, Any]]:
        listed = await session.list_tools()
        got = {name: answered(await session.call_tool(name, args)) for name, args in reads}
        the_cli_reads()
        got |= {name: answered(await session.call_tool(name, args)) for name, args in writes}
        return [t.name for t in listed.tools], got

    tools, got = with_server(token, talk)

    # the knowledge tools have their own walk (tests/cli/test_mcp_knowledge.py)
    assert tools == [t.name for t in TOOLS]
    assert {n for n, _ in reads + writes} == {t.name for t in CORE_TOOLS}
    assert got["recall"] and got["recall"] == on_cli["recall"]
    assert got["recall"][0]["session_id"] in {planted, recent, recall_history["d-other-project"]}
    assert got["skill_search"][0]["name"] == "code-review"
    assert got["skill_search"][0]["set_status"] == "active"
    assert got["skill_show"]["body"] == on_cli["skill_show"]
    assert got["state_get"] == on_cli["state_get"] and got["state_get"]["member"] == "deven"
    assert got["timeline"] == on_cli["timeline"]
    assert {item["kind"] for item in got["timeline"]} >= {"session"}
    assert got["session_show"] == on_cli["session_show"] and got["session_show"]["messages"]
    assert got["skill_use"]["credited"] and got["skill_use"]["value"] > 0
    assert got["state_set"] == cli_json(monkeypatch, token, "state", "get", "deven")
    assert got["state_set"]["fields"]["activity"]["value"] == "testing"
    assert got["state_get"]["fields"]["activity"]["value"] != "testing"
    owner_queue = json.loads(run(["principle", "queue", "--json"]).out)
    assert got["principle_propose"]["member"] == "deven"
    assert got["principle_propose"]["id"] in [c["id"] for c in owner_queue]
    # The read is recorded as `viva skill show`'s is (the CLI's own read made the second).
    events = cli_json(monkeypatch, token, "skill", "history", "deven", "--skill", "code-review")
    assert [e["kind"] for e in events if e["kind"] == "read"] == ["read", "read"]
    assert any(e["kind"] == "used" and e["session_id"] == recent for e in events)


def test_another_members_or_an_unattributed_session_is_refused_as_on_the_cli(
    ctx: Context,
    recall_history: dict[str, str],
    cli_env: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token = issue_grant(ctx, "deven").token
    alices, unattributed = recall_history["a-private"], recall_history["u-queue"]
    calls: list[tuple[str, dict[str, Any]]] = [
        ("session_show", {"id": alices}),
        ("session_show", {"id": unattributed}),
        ("skill_use", {"name": "code-review", "outcome": "success", "session": alices}),
        ("skill_use", {"name": "code-review", "outcome": "success", "member": "alice"}),
        ("state_get", {"member": "alice"}),
        ("principle_propose", {"text": "t", "rationale": "r", "evidence": [unattributed]}),
        ("timeline", {"member": "alice"}),
        ("state_set", {"colour": "blue"}),
        ("no_such_tool", {}),
    ]

    async def talk(session: ClientSession) -> list[str]:
        return [refused(await session.call_tool(name, args)) for name, args in calls]

    got = with_server(token, talk)

    def on_cli(*args: str) -> str:
        return cli_refusal(monkeypatch, token, *args)

    use = ("skill", "use")
    assert got[:6] == [
        on_cli("session", "show", alices, "--json"),
        on_cli("session", "show", unattributed, "--json"),
        on_cli(*use, "deven", "code-review", "--outcome", "success", "--session", alices),
        on_cli(*use, "alice", "code-review", "--outcome", "success"),
        on_cli("state", "get", "alice", "--json"),
        on_cli(
            "principle",
            "propose",
            "deven",
            "--text",
            "t",
            "--rationale",
            "r",
            "--evidence",
            unattributed,
        ),
    ]
    assert got[6] == on_cli("timeline", "alice", "--json")
    assert got[7].startswith("viva: colour: ") and got[8].startswith("viva: no tool named")


def test_a_grant_revoked_or_expired_while_the_server_runs_refuses_the_next_call(
    ctx: Context, cli_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    revoked = issue_grant(ctx, "deven")
    expired = issue_grant(ctx, "deven", ttl=timedelta(days=1))

    def talk_then(change: Callable[[], object]) -> Callable[[ClientSession], Awaitable[list[Any]]]:
        async def talk(session: ClientSession) -> list[Any]:
            before = answered(await session.call_tool("state_get", {}))
            change()
            after = [
                refused(await session.call_tool(name, args))
                for name, args in [("state_get", {}), ("recall", {"query": "cache"})]
            ]
            return [before, *after]

        return talk

    def expire() -> None:
        past = ctx.store.now() - timedelta(minutes=1)
        ctx.store.write(
            lambda c: c.execute(
                update(MEMBER_GRANT).where(MEMBER_GRANT.c.id == expired.id).values(expires_at=past)
            )
        )

    for grant, change in [(revoked, lambda: revoke_grant(ctx, revoked.id)), (expired, expire)]:
        before, *after = with_server(grant.token, talk_then(change))
        assert before["member"] == "deven"
        line = cli_refusal(monkeypatch, grant.token, "state", "get", "deven", "--json")
        assert after == [line, line]
        assert grant.id in line and ("revoked" if grant is revoked else "expired") in line


def test_without_a_usable_grant_the_server_does_not_start(
    ctx: Context, cli_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = issue_grant(ctx, "deven")
    revoke_grant(ctx, stale.id)

    no_grant = run(["mcp"])
    monkeypatch.setenv("VIVA_GRANT", stale.token)
    revoked = run(["mcp"])

    assert no_grant.code == 1 and no_grant.err.startswith("viva: viva mcp acts only as a member")
    assert revoked.code == 1
    assert revoked.err.startswith(f"viva: VIVA_GRANT {stale.id} was revoked at ")
    assert no_grant.err.count("\n") == revoked.err.count("\n") == 1
    assert no_grant.out == revoked.out == ""


def test_recall_takes_the_clis_filters(
    ctx: Context,
    recall_history: dict[str, str],
    cli_env: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """harness, project and since narrow the tool's recall exactly as the CLI's flags do;
    an unknown harness and an unreadable date are refused in one line."""
    token = issue_grant(ctx, "deven").token
    asks: list[tuple[dict[str, Any], list[str]]] = [
        ({"project": "/work/viva"}, ["--project", "/work/viva"]),
        ({"since": "2026-05-30T00:00Z"}, ["--since", "2026-05-30T00:00Z"]),
        ({"harness": "codex"}, ["--harness", "codex"]),
    ]

    async def talk(session: ClientSession) -> tuple[list[Any], list[str]]:
        got = [
            answered(await session.call_tool("recall", {"query": "cache", **a})) for a, _ in asks
        ]
        bad = [
            refused(await session.call_tool("recall", {"query": "cache", "harness": "emacs"})),
            refused(await session.call_tool("recall", {"query": "cache", "since": "last week"})),
        ]
        return got, bad

    got, bad = with_server(token, talk)

    on_cli = [cli_json(monkeypatch, token, "recall", "cache", *flags) for _, flags in asks]
    assert got == on_cli
    assert {h["session_id"] for h in got[0]} <= {
        recall_history["d-planted"],
        recall_history["d-recent"],
    }
    assert got[0] and got[1] and got[2] == []
    assert "emacs" in bad[0] and "last week" in bad[1]
