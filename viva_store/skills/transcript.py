"""Which skills a recovered transcript shows being read (pure; DESIGN §3 "A use").

A use counts only when a skill's body is actually read during an execution. In a
transcript that shows as:

* the harness's own skill tool naming the skill — Claude Code's ``Skill`` tool, whose
  input (``{"skill": "code-review"}``, older versions ``{"command": ...}``) Viva stores
  as a one-line summary naming the skill;
* any tool reading a ``SKILL.md`` that sits in a ``skills/<name>/`` folder — the
  projected copy, a ``Read`` of it, or a shell ``cat``/``sed`` of it (Codex, pi, ...).

Only names in the team library count. Being projected into a session is never a read:
nothing here looks at what Viva projected, only at what the member's tools did.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SKILL_TOOLS = frozenset({"skill"})
"""Tool names (lower-cased) that load a skill by name."""

_PATH = re.compile(r"(?:^|[/\\])skills[/\\]([a-z0-9][a-z0-9-]{0,63})[/\\]SKILL\.md\b")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def skills_read(
    calls: Iterable[tuple[int, str | None, str | None]], library: set[str]
) -> dict[str, list[int]]:
    """The library skills read by these tool calls ``(seq, tool, tool_input)``.

    Returns each skill with the message seqs that show the read, in order.
    """
    found: dict[str, list[int]] = {}
    for seq, tool, text in calls:
        if not text:
            continue
        names = set(_PATH.findall(text))
        if tool is not None and tool.lower() in SKILL_TOOLS:
            names |= set(_TOKEN.findall(text.lower()))
        for name in sorted(names & library):
            found.setdefault(name, []).append(seq)
    return found
