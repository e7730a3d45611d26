"""Every key binding of the app, each with an id and a description (posting's way).

Users remap a binding by its id in ``$VIVA_HOME/config.toml``::

    [keys]
    "triage.nobody" = "N"
    "viva.pane.triage" = "2,f2"

Triage's one-key-per-member bindings are made once the roster is known (ids
``triage.assign.<member>``): :func:`member_keys` chooses their letters and
:func:`member_bindings` makes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from textual.binding import Binding


def _b(
    id: str, key: str, action: str, description: str, tooltip: str, show: bool = True
) -> Binding:
    return Binding(key, action, description, show=show, tooltip=tooltip, id=id)


SCREEN = [
    # The sidebar shows the pane keys, so the footer need not.
    _b("viva.pane.members", "1", "show_pane('members')", "Members", "The team", show=False),
    _b("viva.pane.triage", "2", "show_pane('triage')", "Triage", "File sessions", show=False),
    _b("viva.pane.timeline", "3", "show_pane('timeline')", "Timeline", "Experience", show=False),
    _b("viva.pane.skills", "4", "show_pane('skills')", "Skills", "Weights, decay", show=False),
    _b(
        "viva.pane.principles",
        "5",
        "show_pane('principles')",
        "Principles",
        "Approvals",
        show=False,
    ),
    _b(
        "viva.pane.knowledge",
        "6",
        "show_pane('knowledge')",
        "Knowledge",
        "The gate, admitted items, review",
        show=False,
    ),
    _b("viva.help", "f1,question_mark", "help", "Help", "What this pane shows and its keys"),
    _b("viva.import", "i", "import_sessions", "Import", "Recover sessions from every harness"),
    _b("viva.search", "slash", "search_everything", "Search", "Search every session", show=False),
    _b("viva.usage", "ctrl+u", "usage", "Usage", "Tokens by day, project, model", show=False),
    _b("viva.report", "ctrl+r", "weekly_report", "Report", "This week's report", show=False),
    _b("viva.reload", "ctrl+l,f5", "reload", "Reload", "Read everything again", show=False),
    _b("viva.quit", "q", "app.quit", "Quit", "Leave Viva"),
]

MEMBERS = [
    _b("members.select", "enter", "select_member", "Use member", "Timeline and skills follow"),
    _b(
        "members.launch",
        "l",
        "launch_command",
        "Copy launch command",
        "Show and copy the viva launch command",
    ),
]

TRIAGE = [
    _b("triage.mark", "space", "mark", "Mark", "Mark or unmark for a bulk assignment"),
    _b("triage.unmark_all", "escape", "unmark_all", "Unmark all", "Clear the marks", show=False),
    _b("triage.pick", "m", "pick_member", "Assign…", "Choose a member from a list"),
    _b("triage.nobody", "n", "nobody", "Nobody's", "Recovered, but belongs to no member"),
    _b("triage.accept", "y", "accept", "Accept", "Accept the suggested member"),
    _b("triage.undo", "u", "undo", "Undo", "Undo the last triage action"),
    _b("triage.filter", "f", "filter", "Filter", "Filter by harness, project, text"),
    _b("triage.open", "enter", "open", "Open", "Read the whole transcript"),
    _b("triage.fold", "z", "fold", "Tool calls", "Fold or unfold tool calls", show=False),
]

TIMELINE = [
    _b("timeline.open", "enter", "open", "Open", "Read the session's transcript"),
    _b("timeline.search", "s", "search", "Search member", "Search this member's experience"),
    _b("timeline.filter", "f", "filter", "Filter", "Filter by harness and project"),
    _b("timeline.member", "m", "choose_member", "Member", "Whose timeline"),
    _b("timeline.export", "e", "export", "Export", "Write the session as HTML; shows the path"),
]

SKILLS = [
    _b("skills.reclaim", "r", "reclaim", "Reclaim", "Take a forgotten skill back (weight 1.0)"),
    _b("skills.track", "t", "track", "Track", "Switch between the session and time track"),
    _b("skills.body", "b,enter", "body", "Read", "Read the skill's body"),
    _b("skills.all", "a", "toggle_all", "Forgotten", "Show or hide forgotten skills"),
    _b("skills.member", "m", "choose_member", "Member", "Whose skill set"),
]

PRINCIPLES = [
    _b("principles.approve", "a", "approve", "Approve", "Approve as proposed"),
    _b("principles.edit", "e", "edit", "Edit+approve", "Edit the wording, then approve"),
    _b("principles.reject", "r", "reject", "Reject", "Reject (a reason is required)"),
    _b("principles.defer", "d", "defer", "Defer", "Leave it for a later week"),
    _b("principles.history", "h", "toggle_history", "History", "Queue or decision history"),
    _b("principles.rollback", "b", "rollback", "Roll back", "Re-activate this version"),
    _b("principles.evidence", "o", "evidence", "Evidence", "Open the cited session"),
]

KNOWLEDGE = [
    _b("knowledge.admit", "a", "admit", "Admit", "Admit the candidate"),
    _b("knowledge.decline", "x", "decline", "Decline", "Turn it away (a reason is required)"),
    _b("knowledge.retract", "r", "retract", "Retract", "Retract it (a reason is required)"),
    _b("knowledge.evidence", "o", "evidence", "Evidence", "Open the cited session"),
]

TRANSCRIPT = [
    _b("transcript.close", "escape,q", "dismiss", "Close", "Back to the pane"),
    _b("transcript.fold", "z", "fold", "Tool calls", "Fold or unfold tool calls"),
    _b("transcript.find", "ctrl+f", "find", "Find", "Find text in this transcript"),
    _b("transcript.next", "n,f3", "find_next(1)", "Next", "The next match", show=False),
    _b(
        "transcript.previous",
        "N,shift+f3",
        "find_next(-1)",
        "Previous",
        "The match before",
        show=False,
    ),
    _b("transcript.links", "l", "links", "Linked", "Parent, sub-agents, copies: Enter opens"),
    _b("transcript.export", "e", "export", "Export", "Write it as HTML; shows the path"),
    _b("transcript.resume", "r", "resume", "Resume", "Reopen it in its harness (asks first)"),
    _b("transcript.copy_resume", "c", "copy_resume", "Copy resume", "Copy the resume command"),
    _b("transcript.copy_id", "y", "copy_id", "Copy id", "Copy the session id", show=False),
    _b(
        "transcript.copy_message",
        "m",
        "copy_message",
        "Copy message",
        "Copy the message at the top (or the one found)",
        show=False,
    ),
    _b("transcript.pager", "p", "pager", "Pager", "Read it in $PAGER", show=False),
    _b("transcript.editor", "o", "editor", "Editor", "Open the message in $EDITOR", show=False),
]

ALL: dict[str, Sequence[Binding]] = {
    "screen": SCREEN,
    "members": MEMBERS,
    "triage": TRIAGE,
    "timeline": TIMELINE,
    "skills": SKILLS,
    "principles": PRINCIPLES,
    "knowledge": KNOWLEDGE,
    "transcript": TRANSCRIPT,
}
ASSIGN_PREFIX = "triage.assign."


def binding_ids() -> set[str]:
    """Every fixed binding id (the member keys are ``triage.assign.<name>``)."""
    return {b.id for group in ALL.values() for b in group if b.id}


def load_keymap(section: Mapping[str, Any]) -> tuple[dict[str, str], list[str]]:
    """The keymap from ``config.toml``'s ``[keys]``, and one line per entry not used."""
    known = binding_ids()
    keymap: dict[str, str] = {}
    errors: list[str] = []
    for binding_id, keys in section.items():
        if binding_id not in known and not binding_id.startswith(ASSIGN_PREFIX):
            errors.append(f"[keys] {binding_id!r}: no binding has this id")
        elif not isinstance(keys, str) or not keys.strip():
            errors.append(f'[keys] {binding_id!r}: give the keys as a string, e.g. "N"')
        else:
            keymap[binding_id] = keys.strip()
    return keymap, errors


def member_keys(names: Iterable[str], reserved: Iterable[str]) -> dict[str, str]:
    """One letter per member: its first letter not taken, else any letter of its name.

    Names are taken in the order given; a member with no free letter gets none
    (it can still be picked from the list).
    """
    taken = {k for key in reserved for k in key.split(",")}
    out: dict[str, str] = {}
    for name in names:
        for ch in name.lower():
            if ch.isalpha() and ch not in taken:
                out[name] = ch
                taken.add(ch)
                break
    return out


def member_bindings(keys: Mapping[str, str]) -> list[Binding]:
    """One hidden binding per ``member: key``, filing the session into that member."""
    return [
        Binding(
            key,
            f"assign({name!r})",
            f"→ {name}",
            show=False,
            id=f"{ASSIGN_PREFIX}{name}",
            tooltip=f"File into {name}'s experience",
        )
        for name, key in keys.items()
    ]


def triage_reserved() -> set[str]:
    """Keys the triage pane and the screen already use (not for member letters)."""
    keys = {k.strip() for b in (*SCREEN, *TRIAGE) for k in b.key.split(",")}
    return keys | {"j", "k"}
