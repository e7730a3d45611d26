"""What the project's fixtures hold, per harness: the facts every reader test checks.

Each :class:`Session` is one session a fixture file yields, written down from the
fixture's content (see ``tests/fixtures/README.md``): its identity and lineage,
how many messages of which role, the token totals summed from the lines that
carry usage, the title the best-ranked line offers, and the models named.
"""

from __future__ import annotations

from dataclasses import dataclass

Tokens = tuple[int, int, int, int, int]
"""(input, output, cache read, cache write, reasoning)."""


@dataclass(frozen=True)
class Session:
    file: str  # the source, relative to the harness's fixture root
    native_id: str
    roles: dict[str, int]
    tokens: Tokens
    title: str | None
    models: frozenset[str]
    cwd: str | None = None
    parent: str | None = None
    relation: str | None = None


@dataclass(frozen=True)
class Case:
    harness: str
    sessions: tuple[Session, ...]
    # Keys and values the arbitrary-record test draws from: the harness's own vocabulary.
    keys: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    # For a resumed parse: whether it equals one pass exactly (False: Gemini keeps the
    # first stored version of a message it re-appends, a documented limitation).
    resume_exact: bool = True

    @property
    def files(self) -> list[str]:
        """The sources, in discovery order."""
        out: list[str] = []
        for s in self.sessions:
            if s.file not in out:
                out.append(s.file)
        return out


CC_MAIN = "7d3e5f10-2b4c-4d6e-8f01-23456789abcd"
CLAUDE = Case(
    "claude-code",
    (
        Session(
            "-home-dev-notes/0c9b8a7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d.jsonl",
            "0c9b8a7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
            {"summary": 1, "user": 4, "assistant": 6, "tool": 3},
            (20 + 9 + 11 + 6, 35 + 12 + 16 + 10, 800 + 950, 150, 0),
            "Notes app: fix the search index",
            frozenset({"claude-sonnet-4-20250514"}),
            cwd="/home/dev/notes",
        ),
        Session(
            "-home-dev-notes/usage-export/chat.jsonl",
            "notes-usage-export",
            {"summary": 1},
            (100 + 200, 60 + 90, 10, 5 + 20, 0),
            "Usage export",
            frozenset({"claude-sonnet-4-5", "claude-opus-4-1"}),
        ),
        Session(
            f"-home-dev-shop/{CC_MAIN}.jsonl",
            CC_MAIN,
            {"event": 4, "system": 2, "user": 3, "assistant": 6, "tool": 2, "summary": 1},
            (12 + 3 + 4, 48 + 90 + 60, 1000 + 1200 + 1300, 200 + 100, 20),
            "Cart checkout refactor",
            frozenset({"claude-sonnet-4-5", "claude-opus-4-1"}),
            cwd="/home/dev/shop",
        ),
        Session(
            "-home-dev-shop/agent-5e6f7a8b.jsonl",
            "agent-5e6f7a8b",
            {"user": 1, "assistant": 2, "tool": 1},
            (5 + 2, 9 + 7, 300 + 310, 0, 0),
            "Run the cart tests",
            frozenset({"claude-sonnet-4-5"}),
            cwd="/home/dev/shop",
            parent=CC_MAIN,
            relation="subagent",
        ),
        Session(
            f"-home-dev-shop/{CC_MAIN}/subagents/agent-a1b2c3d4e5f6a7b8c.jsonl",
            "agent-a1b2c3d4e5f6a7b8c",
            {"user": 1, "assistant": 3, "tool": 1},
            (40 + 8, 25 + 14, 540, 500, 0),
            "Find every caller of Cart.total",
            frozenset({"claude-haiku-4-5"}),
            cwd="/home/dev/shop",
            parent=CC_MAIN,
            relation="subagent",
        ),
    ),
    keys=("type", "message", "uuid", "sessionId", "timestamp", "cwd", "isSidechain", "isMeta",
          "requestId", "summary", "customTitle", "subtype", "content", "role", "model", "id",
          "usage", "input_tokens", "output_tokens", "name", "input", "tool_use_id", "text",
          "isApiErrorMessage", "isCompactSummary", "origin", "kind", "version", "agentId",
          "output", "thinking", "gitBranch"),
    kinds=("user", "assistant", "system", "summary", "custom-title", "ai-title", "agent-name",
           "tool_use", "tool_result", "text", "thinking", "image", "attachment"),
)  # fmt: skip

CX_MAIN = "0195a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"
CODEX = Case(
    "codex",
    (
        Session(
            "sessions/rollout-0195c3d4-e5f6-4071-8c8d-9e0f1a2b3c4d.jsonl",
            "0195c3d4-e5f6-4071-8c8d-9e0f1a2b3c4d",
            {"user": 1, "assistant": 3, "tool": 1},
            (0, 0, 0, 0, 0),
            "Why does login fail after a password reset?",
            frozenset(),
        ),
        Session(
            "sessions/2025/10/28/rollout-2025-10-28T09-00-00-0195e5f6-0718-4293-8eaf-1a2b3c4d5e6f.jsonl",
            "0195e5f6-0718-4293-8eaf-1a2b3c4d5e6f",
            {"user": 2, "event": 3},
            (300 - 100 + 420 - 300, 40 + 25, 100 + 300, 0, 0),
            "Bump the version",
            frozenset(),
            cwd="/home/dev/shop",
        ),
        Session(
            f"sessions/2026/03/04/rollout-2026-03-04T09-00-00-{CX_MAIN}.jsonl",
            CX_MAIN,
            {"system": 1, "user": 2, "event": 5, "assistant": 4, "tool": 2, "summary": 1},
            (8400 - 3000, 600, 3000, 0, 150),  # the last cumulative total
            "Checkout discount codes",
            frozenset({"gpt-5-codex"}),
            cwd="/home/dev/shop",
        ),
        Session(
            "sessions/2026/03/05/rollout-2026-03-05T09-00-00-0195b2c3-d4e5-7f60-9b7c-8d9e0f1a2b3c.jsonl",
            "0195b2c3-d4e5-7f60-9b7c-8d9e0f1a2b3c",
            {"event": 1, "user": 1, "assistant": 1},
            # only what the fork added after the parent's last total (9000 cumulative)
            ((9000 - 3400) - (8400 - 3000), 750 - 600, 3400 - 3000, 0, 170 - 150),
            "Now validate the code against the promotions table",
            frozenset({"gpt-5.1-codex"}),
            cwd="/home/dev/shop",
            parent=CX_MAIN,
            relation="fork",
        ),
        Session(
            "archived_sessions/rollout-2025-10-20T09-00-00-0195d4e5-f607-4182-9d9e-0f1a2b3c4d5e.jsonl",
            "0195d4e5-f607-4182-9d9e-0f1a2b3c4d5e",
            {"user": 1, "assistant": 2, "event": 1},
            (700, 80, 0, 0, 0),
            "Summarise yesterday's commits",
            frozenset(),
            cwd="/home/dev/notes",
        ),
    ),
    keys=("type", "payload", "timestamp", "id", "role", "content", "text", "message", "info",
          "total_token_usage", "input_tokens", "output_tokens", "total_tokens", "cwd", "model",
          "arguments", "output", "call_id", "name", "summary", "source", "forked_from_id",
          "subagent", "thread_spawn", "parent_thread_id", "started_at", "usage", "action",
          "record_type", "git", "encrypted_content"),
    kinds=("session_meta", "response_item", "event_msg", "turn_context", "compacted",
           "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
           "token_count", "user_message", "agent_message", "agent_reasoning", "task_started",
           "turn.completed", "thread_name_updated", "tool_call", "local_shell_call",
           "web_search_call"),
)  # fmt: skip

PI_V3 = "0196a0b1-c2d3-7e4f-a5b6-c7d8e9f0a1b2"
PI = Case(
    "pi",
    (
        Session(
            "--home-dev-notes--/2025-11-15T08-00-00-000Z_4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8.jsonl",
            "4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8",
            {"user": 1, "assistant": 2, "tool": 1, "event": 1},
            (25 + 30, 12 + 18, 0, 0, 0),
            "Rename the search module",
            frozenset({"claude-sonnet-4-20250514"}),
            cwd="/home/dev/notes",
        ),
        Session(
            f"--home-dev-shop--/2026-04-02T08-00-00-000Z_{PI_V3}.jsonl",
            PI_V3,
            {"event": 6, "user": 2, "assistant": 5, "tool": 2, "summary": 1, "system": 1},
            (30 + 10, 20 + 15, 400 + 450, 50, 0),
            "Cart test survey",
            frozenset({"claude-sonnet-4-5"}),
            cwd="/home/dev/shop",
        ),
        Session(
            "--home-dev-shop--/2026-04-03T08-00-00-000Z_0196b1c2-d3e4-7f50-b6c7-d8e9f0a1b2c3.jsonl",
            "0196b1c2-d3e4-7f50-b6c7-d8e9f0a1b2c3",
            {"event": 1, "user": 1, "assistant": 1},  # the copied parent entries are skipped
            (80, 40, 0, 0, 0),
            "Add a test for an empty cart",
            frozenset({"gpt-5.1"}),
            cwd="/home/dev/shop",
            parent=PI_V3,
            relation="fork",
        ),
    ),
    keys=("type", "id", "parentId", "timestamp", "message", "role", "content", "model", "usage",
          "summary", "name", "modelId", "provider", "cwd", "parentSession", "branchedFrom",
          "version"),
    kinds=("session", "message", "model_change", "thinking_level_change", "compaction",
           "branch_summary", "custom", "custom_message", "label", "session_info", "other"),
)  # fmt: skip

GM_MAIN = "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e"
GEMINI = Case(
    "gemini",
    (
        Session(
            "notes/chats/session-2026-02-02T10-00-8e9f0a1b.jsonl",
            "8e9f0a1b-2c3d-4e4f-9a5b-6c7d8e9f0a1b",
            {"user": 1, "assistant": 1},
            (50, 8, 0, 0, 0),
            "List notes",
            frozenset({"gemini-2.5-flash"}),
            cwd="/home/dev/notes",  # from projects.json
        ),
        Session(
            f"shop/chats/{GM_MAIN}/6c7d8e9f-0a1b-4c2d-9e3f-4a5b6c7d8e9f.jsonl",
            "6c7d8e9f-0a1b-4c2d-9e3f-4a5b6c7d8e9f",
            {"user": 1, "assistant": 1},
            (300, 12, 0, 0, 0),
            "Summarise the test output",
            frozenset({"gemini-2.5-flash"}),
            cwd="/home/dev/shop",  # from .project_root
            parent=GM_MAIN,
            relation="subagent",
        ),
        Session(
            "shop/chats/session-2026-01-20T10-00-7d8e9f0a.json",
            "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a",
            {"user": 1, "assistant": 2, "tool": 1, "system": 2},
            (900, 40, 0, 0, 5),
            "Read package.json",
            frozenset({"gemini-2.5-flash"}),
            cwd="/home/dev/shop",
        ),
        Session(
            "shop/chats/session-2026-05-06T10-00-5b6c7d8e.jsonl",
            GM_MAIN,
            {"user": 3, "assistant": 2, "tool": 1, "event": 2, "system": 1},
            # input = input + tool - cached, per message
            (2400 + 10 - 1800 + 2500 - 2300, 60 + 20, 1800 + 2300, 0, 30),
            "Cart tests check",
            frozenset({"gemini-2.5-pro"}),
            cwd="/home/dev/shop",
        ),
    ),
    keys=("id", "type", "content", "parts", "timestamp", "tokens", "model", "thoughts",
          "toolCalls", "$set", "$rewindTo", "sessionId", "kind", "summary", "startTime",
          "lastUpdated", "messages"),
    kinds=("user", "gemini", "model", "info", "error", "warning", "x"),
    resume_exact=False,
)  # fmt: skip

OC_MAIN = "ses_shop_checkout"
OPENCODE = Case(
    "opencode",
    (
        # The layout's opencode.db comes first; the tree files follow. Here, without a
        # database, each session file of the tree is one source.
        Session(
            "storage/session/global/ses_notes_search.json",
            "ses_notes_search",
            {"user": 1, "tool": 1, "assistant": 1},  # parts kept flat in part/*.json
            (90, 15, 0, 0, 0),
            "Search cutoff",
            frozenset({"gpt-4.1"}),
            cwd="/home/dev/notes",
        ),
        Session(
            f"storage/session/proj_shop/{OC_MAIN}.json",
            OC_MAIN,
            {"user": 1, "event": 3, "assistant": 4, "tool": 2},
            (1500 + 200, 120 + 60, 9000 + 10500, 300, 40),
            "Checkout totals bug",
            frozenset({"claude-sonnet-4-5"}),
            cwd="/home/dev/shop",
        ),
        Session(
            "storage/session/proj_shop/ses_shop_review.json",
            "ses_shop_review",
            {"user": 1, "assistant": 1},
            (400, 30, 0, 0, 0),
            "Child session - review",
            frozenset({"claude-haiku-4-5"}),
            cwd="/home/dev/shop",
            parent=OC_MAIN,
            relation="subagent",
        ),
    ),
    keys=("id", "sessionID", "messageID", "role", "time", "created", "tokens", "input",
          "output", "type", "text", "tool", "state", "status", "parentID", "title", "directory"),
    kinds=("user", "assistant", "text", "tool", "reasoning", "file", "patch", "step-start"),
)  # fmt: skip

HM_ROOT = "20260310_090000_abc123"
HERMES = Case(
    "hermes",
    (
        Session(
            "sessions/session_20260301_101500_a1b2c3.json",
            "20260301_101500_a1b2c3",
            {"user": 1, "assistant": 3, "tool": 1, "event": 1},
            (0, 0, 0, 0, 0),  # legacy logs carry no token counts
            None,
            frozenset({"claude-sonnet-4-6"}),
            cwd="/home/dev/shop",
        ),
        # Without its state.db beside it, this legacy log is the session's only copy.
        Session(
            f"sessions/session_{HM_ROOT}.json",
            HM_ROOT,
            {"user": 1},
            (0, 0, 0, 0, 0),
            None,
            frozenset({"claude-sonnet-4-6"}),
        ),
        Session(
            "profiles/phone/sessions/session_20260302_083000_d4e5f6.json",
            "20260302_083000_d4e5f6",
            {"user": 1, "assistant": 1, "tool": 1},  # one message is not an object: a problem
            (0, 0, 0, 0, 0),
            None,
            frozenset({"gpt-5.2"}),
            cwd="/home/dev/notes",
            parent="20260301_101500_a1b2c3",
            relation="continuation",
        ),
    ),
    keys=("session_id", "model", "platform", "session_start", "last_updated", "cwd",
          "model_config", "messages", "role", "content", "tool_calls", "tool_call_id",
          "tool_name", "reasoning", "title", "parent_session_id", "function", "arguments"),
    kinds=("user", "assistant", "tool", "system", "session_meta", "text", "image_url"),
)  # fmt: skip

CASES = {c.harness: c for c in (CLAUDE, CODEX, PI, GEMINI, OPENCODE, HERMES)}
