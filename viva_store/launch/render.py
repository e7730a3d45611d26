"""The projection rendered into a harness's native places (pure: text in, text out).

For Claude Code the chosen skills become project skills, ``.claude/skills/<name>/SKILL.md``
(where it loads them; its ``Skill`` tool names them), and the identity, principles and
callback instructions a block in ``CLAUDE.md``. For Codex the block goes into
``AGENTS.md`` and the skills into ``.codex/skills/<name>/SKILL.md``, which the block
names so the member reads them with a shell ``cat``. Either way a read of a projected
``SKILL.md`` is what Viva later finds in the transcript (DESIGN §3 "A use").

Nothing secret is rendered: the grant token lives only in the harness's environment
(``VIVA_GRANT``); the text names the variable, never its value.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from viva_store.launch.blocks import BEGIN, END
from viva_store.launch.register import SERVER
from viva_store.records import MemberRecord

MCP_TOOLS = (
    "recall",
    "skill_search",
    "skill_show",
    "skill_use",
    "state_get",
    "state_set",
    "principle_propose",
    "timeline",
    "session_show",
    "brief",
    "knowledge_list",
    "knowledge_show",
    "knowledge_propose",
    "knowledge_admit",
    "knowledge_decline",
    "knowledge_use",
    "knowledge_retract",
    "knowledge_supersede",
)
"""The tools ``viva mcp`` serves, as the block names them (a test keeps the two equal)."""


@dataclass(frozen=True, slots=True)
class Layout:
    """Where one harness reads instructions and skills, and how it is started."""

    harness: str
    executable: str
    instruction_file: str
    skills_dir: str
    how_to_read: str
    session_flag: str | None
    """The flag that sets the harness's own session id, when it has one."""
    forbidden_args: tuple[str, ...]
    """Harness arguments ``viva launch`` sets itself (or that would break attribution)."""


LAYOUTS: dict[str, Layout] = {
    "claude-code": Layout(
        harness="claude-code",
        executable="claude",
        instruction_file="CLAUDE.md",
        skills_dir=".claude/skills",
        how_to_read="they are project skills: load one with the Skill tool when it fits",
        session_flag="--session-id",
        forbidden_args=("--session-id",),
    ),
    "codex": Layout(
        harness="codex",
        executable="codex",
        instruction_file="AGENTS.md",
        skills_dir=".codex/skills",
        how_to_read="read the one that fits before you follow it: `cat {path}`",
        session_flag=None,
        forbidden_args=("-C", "--cd"),
    ),
}


@dataclass(frozen=True, slots=True)
class SkillDoc:
    """A projected skill: what the library says and why the projection picked it."""

    name: str
    description: str
    body: str
    reason: str


@dataclass(frozen=True, slots=True)
class LaunchView:
    """Everything a rendering needs; placeholders stand in for ids a dry run lacks."""

    layout: Layout
    member: MemberRecord
    task: str
    principles: tuple[Mapping[str, Any], ...]
    skills: tuple[SkillDoc, ...]
    unprojected: tuple[str, ...]
    """Picked skills left out because the user's folder already has one of that name."""
    execution_id: str
    viva: str
    """How the member calls Viva (``viva``, or an absolute path when not on PATH)."""
    knowledge: tuple[Mapping[str, Any], ...] = ()
    """The task brief's related knowledge (``KnowledgeRecord`` JSON)."""


@dataclass(frozen=True, slots=True)
class Rendering:
    """The files a launch writes, relative to the cwd."""

    instruction_file: str
    block: str
    skill_files: tuple[tuple[str, str], ...]


def skill_path(layout: Layout, name: str) -> str:
    """``.claude/skills/<name>/SKILL.md`` (relative to the cwd)."""
    return f"{layout.skills_dir}/{name}/SKILL.md"


def render(view: LaunchView) -> Rendering:
    """The block and the ``SKILL.md`` files of one launch."""
    files = tuple(
        (skill_path(view.layout, s.name), skill_file(s, view.member.name, view.execution_id))
        for s in view.skills
    )
    return Rendering(view.layout.instruction_file, block(view), files)


def skill_file(skill: SkillDoc, member: str, execution_id: str) -> str:
    """A projected ``SKILL.md``: the library's front matter and body, marked as Viva's."""
    # A JSON string is a valid YAML double-quoted scalar: no YAML library needed.
    return (
        "---\n"
        f"name: {skill.name}\n"
        f"description: {json.dumps(skill.description, ensure_ascii=False)}\n"
        f"# projected by `viva launch` for {member} (execution {execution_id}); "
        "removed when the session ends\n"
        "---\n"
        f"{skill.body.rstrip()}\n"
    )


def block(view: LaunchView) -> str:
    """The instruction-file block: identity, task, principles, skills, callbacks."""
    m = view.member
    lines = [
        f"{BEGIN} member={m.name} execution={view.execution_id} -->",
        "<!-- Written by `viva launch` for this session and removed when it ends. "
        "Do not edit or commit it. -->",
        "",
        f"# You are {m.display_name} ({m.role}), a member of the Viva team",
        "",
        f"Member `{m.name}` · engine {m.engine}"
        + (" · the team's coordinator" if m.coordinator else "")
        + (f" · tools: {', '.join(m.tools)}" if m.tools else ""),
        "",
        _soul(m),
        "",
    ]
    if view.task:
        lines += ["## Task of this session", "", view.task.strip(), ""]
    lines += _principles(view.principles)
    lines += _knowledge(view)
    lines += _skills(view)
    lines += _callbacks(view)
    lines += [END, ""]
    return "\n".join(lines)


def _soul(member: MemberRecord) -> str:
    """The member's ``soul.md`` without a leading ``# Name`` title (the block has one)."""
    lines = member.soul.strip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip()


def _principles(principles: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = ["## Your principles (approved by the owner)", ""]
    if not principles:
        return [*lines, "None approved yet.", ""]
    for p in principles:
        lines.append(f"- {' '.join(str(p.get('text', '')).split())} (v{p.get('version', '?')})")
    return [*lines, ""]


def _knowledge(view: LaunchView) -> list[str]:
    """The brief's knowledge section; absent when nothing related was recorded."""
    if not view.knowledge:
        return []
    v = view.viva
    lines = ["## What the team recorded for this task", ""]
    for k in view.knowledge:
        where = f", {k.get('project')}" if k.get("project") else ""
        sources = ", ".join(k.get("sources") or ()) or "sources you cannot see"
        summary = " ".join(str(k.get("summary", "")).split())
        lines.append(
            f"- {summary} _({k.get('kind')}{where}; {k.get('words')}; from {sources}; "
            f"`{v} knowledge show {k.get('id')}`)_"
        )
    lines += [
        "",
        f"Reading one with `{v} knowledge show ID` records that this session used it; "
        f"`{v} knowledge use ID --session S` records a use you made without reading it.",
        "",
    ]
    return lines


def _skills(view: LaunchView) -> list[str]:
    layout = view.layout
    lines = ["## Team skills for this session", ""]
    if view.skills:
        where = f"They are in `{layout.skills_dir}/<name>/SKILL.md`"
        how = layout.how_to_read.format(path=skill_path(layout, "<name>"))
        lines += [f"{where}; {how}. Viva sees the read and credits the use.", ""]
        for s in view.skills:
            desc = " ".join(s.description.split())
            lines.append(f"- `{s.name}` — {desc} _(picked: {s.reason})_")
        lines.append("")
    else:
        lines += ["None projected for this task.", ""]
    for name in view.unprojected:
        lines.append(
            f"- `{name}` was picked too, but this folder already has a skill of that name; "
            f"read the team's with `{view.viva} skill show {name}`."
        )
    if view.unprojected:
        lines.append("")
    lines += [
        f"Any other team skill: `{view.viva} skill show NAME` (the read is recorded).",
        "",
    ]
    return lines


def _callbacks(view: LaunchView) -> list[str]:
    v, m = view.viva, view.member.name
    return [
        "## Calling back to Viva",
        "",
        f"Your environment holds `VIVA_GRANT` (this session's grant: never print it or "
        f"write it anywhere), `VIVA_MEMBER={m}` and `VIVA_EXECUTION={view.execution_id}`. "
        "Every `viva` call acts as you and sees only your own experience.",
        "",
        f'- `{v} recall "QUERY"` — your earlier sessions, skills and principles, with '
        "provenance; ask before guessing what you did last time.",
        f"- `{v} skill show NAME` — print a team skill's body (recorded as a read).",
        f"- `{v} skill use {m} NAME --outcome success|failure` — record a use Viva "
        "cannot see (you followed a skill without reading its file).",
        f"- `{v} state get {m}` / `{v} state set {m} --project P --activity A` — your "
        "engagement state.",
        f'- `{v} principle propose {m} --text "..." --rationale "..." '
        "[--evidence SESSION_ID]` — suggest a norm; only the owner approves it.",
        "",
        f"The same calls are tools of this session's `{SERVER}` MCP server: "
        + ", ".join(f"`{name}`" for name in MCP_TOOLS)
        + " (JSON results; the same grant).",
        "",
        "The files Viva projected (this block and the skill folders above) vanish when "
        "the session ends; do not commit them.",
        "",
    ]


def command(
    layout: Layout,
    executable: str,
    session_id: str | None,
    viva_args: Sequence[str],
    args: Sequence[str],
) -> list[str]:
    """The harness's argv: its own session id first when it accepts one, then Viva's own
    flags (the MCP server's registration), then the user's ``args``."""
    argv = [executable]
    if layout.session_flag and session_id:
        argv += [layout.session_flag, session_id]
    return [*argv, *viva_args, *args]


def shell_line(env: Mapping[str, str], argv: Sequence[str]) -> str:
    """``VIVA_MEMBER=deven ... claude --session-id ...`` as one could type it."""
    return shlex.join([f"{k}={v}" for k, v in env.items()] + list(argv))
