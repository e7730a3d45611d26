"""Every knowledge read path, for every kind: what each member's task sees is the rule.

samuel has one admitted item of every kind (project knowledge of ``alpha``; the self-model
hypothesis recorded) and one candidate. Each read path — the CLI (``knowledge list``,
``knowledge show``, ``brief``, ``recall``), the MCP tools (``knowledge_list``, ``knowledge_show``,
``brief``) and the app's backend — is asked as samuel and as deven, in ``alpha`` and in
``beta``; what comes back must be exactly what the kinds allow.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from tests.cli.runner import run
from tests.cli.test_mcp_server import answered, with_server
from tests.store.test_principles_support import as_member, make_sessions
from viva_store.knowledge import service as knowledge
from viva_store.members.grants import issue_grant
from viva_store.store import Context
from viva_tui.screens.backend.knowledge import load_knowledge

KINDS = knowledge.KINDS
TASK = "migrate the ledger schema"
VIEWS = (("samuel", "alpha"), ("samuel", "beta"), ("deven", "alpha"), ("deven", "beta"))


def allowed(kind: str, member: str, project: str | None) -> bool:
    """The rules: member kinds in samuel's tasks, alpha's knowledge in alpha, shared always."""
    if kind in ("personal_memory", "self_model_candidate"):
        return member == "samuel"
    if kind == "project_knowledge":
        return project == "alpha"
    return True


@pytest.fixture
def seeded(ctx: Context, tmp_path: Path, cli_env: str) -> dict[str, str]:
    """samuel's items by kind (and ``candidate``: one waiting at the gate)."""
    (s1, s2) = make_sessions(ctx, tmp_path / "claude", {"samuel": 2, "deven": 1})["samuel"]
    ids: dict[str, str] = {}
    for kind in KINDS:
        ids[kind] = knowledge.propose(
            ctx, "samuel", kind, f"ledger schema {kind}", "recurred", [s1, s2],
            evidence="twice", project="alpha" if kind == "project_knowledge" else None,
        )  # fmt: skip
        if kind != "self_model_candidate":
            knowledge.admit(ctx, ids[kind])
    ids["candidate"] = knowledge.propose(
        as_member(ctx, "samuel"), "samuel", "team_knowledge", "ledger schema pending",
        "recurred", [s1, s2],
    )  # fmt: skip
    return ids


def expected(ids: dict[str, str], member: str, project: str | None) -> set[str]:
    return {ids[k] for k in KINDS if allowed(k, member, project)}


def cli_json(monkeypatch: pytest.MonkeyPatch, token: str, *args: str) -> Any:
    monkeypatch.setenv("VIVA_GRANT", token)
    result = run([*args, "--json"])
    monkeypatch.delenv("VIVA_GRANT")
    return json.loads(result.out) if result.code == 0 else None


def test_every_cli_path_for_every_kind(
    ctx: Context, seeded: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    admitted = {seeded[k] for k in KINDS}
    for member, project in VIEWS:
        token = issue_grant(ctx, member).token
        want = expected(seeded, member, project)
        listed = cli_json(monkeypatch, token, "knowledge", "list", "--project", project)
        mine = {seeded["candidate"]} if member == "samuel" else set()
        assert {r["id"] for r in listed} == want | mine, (member, project)
        for kind in KINDS:
            shown = cli_json(monkeypatch, token, "knowledge", "show", seeded[kind], "--project",
                             project)  # fmt: skip
            # a member always sees its own items; others' only as the rules allow
            assert (shown is not None) == (member == "samuel" or seeded[kind] in want), kind
        brief = cli_json(monkeypatch, token, "brief", member, "--task", TASK, "--project", project)
        assert {k["id"] for k in brief["knowledge"]} == want & admitted | (
            {seeded["self_model_candidate"]} & want
        ), (member, project)
        # recall: its own items (any status), and of others' only the shared kinds admitted
        found = cli_json(monkeypatch, token, "recall", "ledger schema", "--limit", "50")
        knowledge_hits = {h["id"] for h in found if h.get("kind") == "knowledge"}
        shared = {seeded["team_knowledge"], seeded["skill"]}
        assert knowledge_hits == (set(seeded.values()) if member == "samuel" else shared)
    # without a project no task sees project knowledge
    token = issue_grant(ctx, "deven").token
    brief = cli_json(monkeypatch, token, "brief", "deven", "--task", TASK)
    assert {k["id"] for k in brief["knowledge"]} == expected(seeded, "deven", None)


def test_every_mcp_path_for_every_kind(ctx: Context, seeded: dict[str, str]) -> None:
    for member in ("samuel", "deven"):
        token = issue_grant(ctx, member).token

        async def talk(session: ClientSession) -> dict[str, Any]:
            got: dict[str, Any] = {}
            for project in ("alpha", "beta"):
                got[f"list {project}"] = answered(
                    await session.call_tool("knowledge_list", {"project": project})
                )
                got[f"brief {project}"] = answered(
                    await session.call_tool("brief", {"task": TASK, "project": project})
                )
                for kind in KINDS:
                    result = await session.call_tool(
                        "knowledge_show", {"id": seeded[kind], "project": project}
                    )
                    got[f"show {project} {kind}"] = not result.is_error
            return got

        got = with_server(token, talk)
        for project in ("alpha", "beta"):
            want = expected(seeded, member, project)
            mine = {seeded["candidate"]} if member == "samuel" else set()
            assert {r["id"] for r in got[f"list {project}"]} == want | mine
            assert {k["id"] for k in got[f"brief {project}"]["knowledge"]} == want
            for kind in KINDS:
                visible = member == "samuel" or seeded[kind] in want
                assert got[f"show {project} {kind}"] == visible, (member, project, kind)


def test_the_app_backend_for_every_kind(ctx: Context, seeded: dict[str, str]) -> None:
    owner = load_knowledge(ctx)
    assert {r.id for r in owner.candidates} == {seeded["candidate"], seeded["self_model_candidate"]}
    for kind in KINDS:
        want = set() if kind == "self_model_candidate" else {seeded[kind]}
        assert {r.id for r in owner.admitted[kind]} == want
    for member in ("samuel", "deven"):
        data = load_knowledge(as_member(ctx, member))
        seen = {r.id for r in data.candidates} | {r.id for v in data.admitted.values() for r in v}
        # without a project a member sees its own items of every kind, and the shared ones
        mine = set(seeded.values()) if member == "samuel" else set()
        assert seen == expected(seeded, member, None) | mine, member
        assert data.review == ()
