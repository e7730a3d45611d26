"""Write sessions in the real on-disk formats of Claude Code, Codex, pi and Gemini CLI.

These are the shapes documented in HARNESSES.md and seen in the fixtures;
the demo, the tests and the benchmarks write them so that the real importer
recovers them exactly as it would a user's files.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import orjson

from viva_store.demo.spec import SessionSpec, Turn, iso, uid, write_lines

__all__ = ["WRITERS", "SessionSpec", "Turn", "claude_code", "codex", "gemini", "pi"]


def claude_code(root: Path, spec: SessionSpec, version: str = "2.1.80") -> Path:
    """``<root>/<sanitised cwd>/<session>.jsonl`` as Claude Code writes it."""
    folder = re.sub(r"[^A-Za-z0-9]", "-", spec.cwd)
    env = {
        "isSidechain": False,
        "userType": "external",
        "cwd": spec.cwd,
        "sessionId": spec.native_id,
        "version": version,
        "gitBranch": spec.git_branch,
        "entrypoint": "cli",
    }
    lines: list[dict[str, Any]] = []
    if spec.title:
        lines.append(
            {"type": "summary", "summary": spec.title, "leafUuid": uid(spec.native_id, "leaf")}
        )
    parent: str | None = None
    at = spec.start
    for n, turn in enumerate(spec.turns):
        user_id = uid(spec.native_id, str(n), "u")
        lines.append(
            {
                **env,
                "parentUuid": parent,
                "type": "user",
                "uuid": user_id,
                "timestamp": iso(at),
                "message": {"role": "user", "content": turn.user},
            }
        )
        parent, at = user_id, at + spec.step
        msg_id = "msg_" + hashlib.sha1(f"{spec.native_id}{n}".encode()).hexdigest()[:24]
        request = "req_" + hashlib.sha1(f"{spec.native_id}{n}r".encode()).hexdigest()[:24]
        usage = {
            "input_tokens": 40 + 3 * len(turn.user),
            "output_tokens": 20 + len(turn.reply) // 4,
            "cache_read_input_tokens": 1200,
            "cache_creation_input_tokens": 0,
        }
        if turn.tool:
            tool_id = "toolu_" + hashlib.sha1(f"{spec.native_id}{n}t".encode()).hexdigest()[:22]
            aid = uid(spec.native_id, str(n), "t")
            lines.append(
                {
                    **env,
                    "parentUuid": parent,
                    "type": "assistant",
                    "uuid": aid,
                    "timestamp": iso(at),
                    "requestId": request,
                    "message": {
                        "id": msg_id,
                        "type": "message",
                        "role": "assistant",
                        "model": spec.model,
                        "content": [
                            {
                                "type": "tool_use",
                                "id": tool_id,
                                "name": turn.tool,
                                "input": turn.tool_input,
                            }
                        ],
                        "stop_reason": "tool_use",
                        "usage": usage,
                    },
                }
            )
            rid = uid(spec.native_id, str(n), "r")
            lines.append(
                {
                    **env,
                    "parentUuid": aid,
                    "type": "user",
                    "uuid": rid,
                    "timestamp": iso(at),
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": tool_id,
                                "content": turn.tool_output,
                            }
                        ],
                    },
                    "toolUseResult": {
                        "stdout": turn.tool_output,
                        "stderr": "",
                        "interrupted": False,
                    },
                }
            )
            parent, at = rid, at + spec.step
        aid = uid(spec.native_id, str(n), "a")
        lines.append(
            {
                **env,
                "parentUuid": parent,
                "type": "assistant",
                "uuid": aid,
                "timestamp": iso(at),
                "requestId": request,
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": spec.model,
                    "content": [{"type": "text", "text": turn.reply}],
                    "stop_reason": "end_turn",
                    "usage": usage,
                },
            }
        )
        parent, at = aid, at + spec.step
    return write_lines(root / folder / f"{spec.native_id}.jsonl", lines)


def codex(root: Path, spec: SessionSpec) -> Path:
    """``<root>/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl`` (envelope format)."""
    at = spec.start
    lines: list[dict[str, Any]] = [
        {
            "timestamp": iso(at),
            "type": "session_meta",
            "payload": {
                "id": spec.native_id,
                "timestamp": iso(at),
                "cwd": spec.cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.146.0",
                "source": "cli",
                "model_provider": "openai",
                "git": {"branch": spec.git_branch},
            },
        },
        {
            "timestamp": iso(at),
            "type": "turn_context",
            "payload": {"cwd": spec.cwd, "model": spec.model, "approval_policy": "on-request"},
        },
    ]
    total_in = total_out = 0
    for n, turn in enumerate(spec.turns):
        at += spec.step
        lines.append(
            {
                "timestamp": iso(at),
                "type": "event_msg",
                "payload": {"type": "user_message", "message": turn.user},
            }
        )
        lines.append(
            {
                "timestamp": iso(at),
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": turn.user}],
                },
            }
        )
        if turn.tool:
            call = f"call_{n:04d}"
            lines.append(
                {
                    "timestamp": iso(at),
                    "type": "response_item",
                    "payload": {
                        "type": "function_call",
                        "name": turn.tool,
                        "arguments": orjson.dumps(turn.tool_input).decode(),
                        "call_id": call,
                    },
                }
            )
            lines.append(
                {
                    "timestamp": iso(at),
                    "type": "response_item",
                    "payload": {
                        "type": "function_call_output",
                        "call_id": call,
                        "output": turn.tool_output,
                    },
                }
            )
        at += spec.step
        lines.append(
            {
                "timestamp": iso(at),
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": turn.reply}],
                },
            }
        )
        step_in, step_out = 900 + 3 * len(turn.user), 30 + len(turn.reply) // 4
        total_in, total_out = total_in + step_in, total_out + step_out
        lines.append(
            {
                "timestamp": iso(at),
                "type": "event_msg",
                "payload": {
                    "type": "token_count",
                    "info": {
                        "total_token_usage": {
                            "input_tokens": total_in,
                            "cached_input_tokens": 0,
                            "output_tokens": total_out,
                            "reasoning_output_tokens": 0,
                            "total_tokens": total_in + total_out,
                        },
                        "last_token_usage": {
                            "input_tokens": step_in,
                            "cached_input_tokens": 0,
                            "output_tokens": step_out,
                            "reasoning_output_tokens": 0,
                            "total_tokens": step_in + step_out,
                        },
                    },
                },
            }
        )
    day = spec.start.strftime("%Y/%m/%d")
    stamp = spec.start.strftime("%Y-%m-%dT%H-%M-%S")
    return write_lines(root / "sessions" / day / f"rollout-{stamp}-{spec.native_id}.jsonl", lines)


def pi(root: Path, spec: SessionSpec) -> Path:
    """``<root>/--<cwd>--/<ts>_<id>.jsonl`` (session format v3)."""
    at = spec.start
    lines: list[dict[str, Any]] = [
        {
            "type": "session",
            "version": 3,
            "id": spec.native_id,
            "timestamp": iso(at),
            "cwd": spec.cwd,
        },
        {
            "type": "model_change",
            "id": spec.native_id[:6] + "m0",
            "parentId": None,
            "timestamp": iso(at),
            "provider": "anthropic",
            "modelId": spec.model,
        },
    ]
    parent = spec.native_id[:6] + "m0"
    for n, turn in enumerate(spec.turns):
        at += spec.step
        user_id = f"{n:04x}u{spec.native_id[:3]}"
        lines.append(
            {
                "type": "message",
                "id": user_id,
                "parentId": parent,
                "timestamp": iso(at),
                "message": {
                    "role": "user",
                    "content": turn.user,
                    "timestamp": int(at.timestamp() * 1000),
                },
            }
        )
        at += spec.step
        aid = f"{n:04x}a{spec.native_id[:3]}"
        lines.append(
            {
                "type": "message",
                "id": aid,
                "parentId": user_id,
                "timestamp": iso(at),
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": turn.reply}],
                    "api": "anthropic-messages",
                    "provider": "anthropic",
                    "model": spec.model,
                    "usage": {
                        "input": 300,
                        "output": 60,
                        "cacheRead": 0,
                        "cacheWrite": 0,
                        "totalTokens": 360,
                        "cost": {"total": 0.004},
                    },
                    "stopReason": "stop",
                    "timestamp": int(at.timestamp() * 1000),
                },
            }
        )
        parent = aid
    folder = "--" + spec.cwd.strip("/").replace("/", "-") + "--"
    stamp = spec.start.strftime("%Y-%m-%dT%H-%M-%S-000Z")
    return write_lines(root / folder / f"{stamp}_{spec.native_id}.jsonl", lines)


def gemini(root: Path, spec: SessionSpec) -> Path:
    """``<root>/<project>/chats/session-<ts>-<id8>.jsonl`` (Gemini CLI >= 0.40)."""
    project = Path(spec.cwd).name or "project"
    at = spec.start
    lines: list[dict[str, Any]] = [
        {
            "sessionId": spec.native_id,
            "projectHash": hashlib.sha256(spec.cwd.encode()).hexdigest(),
            "startTime": iso(at),
            "lastUpdated": iso(at),
            "kind": "main",
        },
    ]
    for n, turn in enumerate(spec.turns):
        at += spec.step
        lines.append(
            {
                "id": f"{spec.native_id[:8]}-u{n}",
                "timestamp": iso(at),
                "type": "user",
                "content": [{"text": turn.user}],
            }
        )
        at += spec.step
        lines.append(
            {
                "id": f"{spec.native_id[:8]}-g{n}",
                "timestamp": iso(at),
                "type": "gemini",
                "content": turn.reply,
                "model": spec.model,
                "thoughts": [],
                "tokens": {
                    "input": 800,
                    "output": 50,
                    "cached": 0,
                    "thoughts": 0,
                    "tool": 0,
                    "total": 850,
                },
            }
        )
        lines.append({"$set": {"lastUpdated": iso(at)}})
    folder = root / project
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".project_root").write_text(spec.cwd)
    stamp = spec.start.strftime("%Y-%m-%dT%H-%M")
    return write_lines(folder / "chats" / f"session-{stamp}-{spec.native_id[:8]}.jsonl", lines)


WRITERS = {"claude-code": claude_code, "codex": codex, "pi": pi, "gemini": gemini}
