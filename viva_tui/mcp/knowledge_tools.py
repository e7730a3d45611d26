"""The knowledge tools of ``viva mcp``: what a member may do with knowledge mid-session.

Each mirrors its ``viva knowledge …`` / ``viva brief`` command and answers with the JSON
that command prints with ``--json``. The owner's review queue is not offered: it is the
owner's.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from viva_tui.mcp.gate import Caller
from viva_tui.mcp.tools import Arguments, MemberArg, ToolSpec

Kind = Literal[
    "personal_memory", "self_model_candidate", "project_knowledge", "team_knowledge", "skill"
]
ItemArg = Annotated[str, Field(description="A knowledge item id (k…).")]
ProjectArg = Annotated[str | None, Field(description="The project (a task's project).")]


def _member(caller: Caller, member: str | None) -> str:
    return caller.member if member is None else member


class ProposeArgs(Arguments):
    kind: Annotated[Kind, Field(description="What kind of knowledge it is.")]
    summary: Annotated[str, Field(description="One line: what is worth keeping.")]
    reason: Annotated[
        Literal["recurred", "surprised", "emphasised", "costly"],
        Field(description="Why keep it (recurred: cite two sessions)."),
    ]
    sources: Annotated[
        list[str], Field(description="Source sessions (SESSION or SESSION:SEQ), at least one.")
    ]
    body: Annotated[str, Field(description="The body.")] = ""
    evidence: Annotated[str, Field(description="The evidence for the reason, in words.")] = ""
    project: ProjectArg = None
    domain: Annotated[str | None, Field(description="Activate in this domain only.")] = None
    pattern: Annotated[str | None, Field(description="Activate for tasks matching it.")] = None
    importance: Annotated[float | None, Field(ge=0, le=1, description="0..1; needs why.")] = None
    why: Annotated[str, Field(description="Why it matters that much.")] = ""
    confidence: Annotated[float | None, Field(ge=0, le=1, description="How sure.")] = None
    member: MemberArg = None


def knowledge_propose(caller: Caller, args: ProposeArgs) -> Any:
    from viva_store.knowledge.service import get_item, propose

    item_id = propose(
        caller.ctx, _member(caller, args.member), args.kind, args.summary, args.reason,
        args.sources, args.body, args.evidence, args.project, args.domain, args.pattern,
        args.importance, args.why, args.confidence,
    )  # fmt: skip
    return get_item(caller.ctx, item_id, args.project)


class AdmitArgs(Arguments):
    id: ItemArg
    note: Annotated[str, Field(description="Why (kept with the event).")] = ""


def knowledge_admit(caller: Caller, args: AdmitArgs) -> Any:
    from viva_store.knowledge.service import admit, get_item

    admit(caller.ctx, args.id, args.note)
    return get_item(caller.ctx, args.id)


class DeclineArgs(Arguments):
    id: ItemArg
    reason: Annotated[str, Field(description="Why it is withdrawn.")]


def knowledge_decline(caller: Caller, args: DeclineArgs) -> Any:
    from viva_store.knowledge.service import decline, get_item

    decline(caller.ctx, args.id, args.reason)
    return get_item(caller.ctx, args.id)


class UseArgs(Arguments):
    id: ItemArg
    session: Annotated[str, Field(description="The session that really used it.")]
    project: ProjectArg = None


def knowledge_use(caller: Caller, args: UseArgs) -> Any:
    from viva_store.knowledge.service import get_item, use

    use(caller.ctx, args.id, args.session)
    return get_item(caller.ctx, args.id, args.project)


class RetractArgs(Arguments):
    id: ItemArg
    reason: Annotated[str, Field(description="Why it no longer holds.")]


def knowledge_retract(caller: Caller, args: RetractArgs) -> Any:
    from viva_store.knowledge.service import get_item, retract

    retract(caller.ctx, args.id, args.reason)
    return get_item(caller.ctx, args.id)


class SupersedeArgs(Arguments):
    id: ItemArg
    by: Annotated[str, Field(description="The item that replaces it.")]
    reason: Annotated[str, Field(description="Why.")] = ""


def knowledge_supersede(caller: Caller, args: SupersedeArgs) -> Any:
    from viva_store.knowledge.service import get_item, supersede

    supersede(caller.ctx, args.id, args.by, args.reason)
    return get_item(caller.ctx, args.id)


class ListArgs(Arguments):
    member: Annotated[str | None, Field(description="Only this member's items.")] = None
    kind: Annotated[Kind | None, Field(description="Only this kind.")] = None
    status: Annotated[
        Literal["candidate", "admitted", "declined", "retracted", "superseded"] | None,
        Field(description="Only this status."),
    ] = None
    project: ProjectArg = None


def knowledge_list(caller: Caller, args: ListArgs) -> Any:
    from viva_store.knowledge.service import list_knowledge

    return list_knowledge(caller.ctx, args.member, args.kind, args.status, args.project)


class ShowArgs(Arguments):
    id: ItemArg
    project: ProjectArg = None


def knowledge_show(caller: Caller, args: ShowArgs) -> Any:
    from viva_store.knowledge.service import get_item

    return get_item(caller.ctx, args.id, args.project)


class BriefArgs(Arguments):
    task: Annotated[str, Field(description="What the task is.")]
    project: ProjectArg = None
    member: MemberArg = None


def brief(caller: Caller, args: BriefArgs) -> Any:
    from viva_store.knowledge.service import brief as task_brief

    return task_brief(caller.ctx, _member(caller, args.member), args.task, args.project)


KNOWLEDGE_TOOLS: tuple[ToolSpec[Any], ...] = (
    ToolSpec(
        "brief",
        "The brief of a task: goal, constraints, earlier attempts, and the related knowledge "
        "you may see, each item with where it came from. Ask before you start.",
        BriefArgs,
        brief,
    ),
    ToolSpec(
        "knowledge_list",
        "Knowledge you may see: your own items, the team's, and --project's.",
        ListArgs,
        knowledge_list,
    ),
    ToolSpec("knowledge_show", "One knowledge item with its history.", ShowArgs, knowledge_show),
    ToolSpec(
        "knowledge_propose",
        "Propose something worth keeping, with its reason and the sessions it comes from; "
        "it reaches tasks once admitted.",
        ProposeArgs,
        knowledge_propose,
        read_only=False,
    ),
    ToolSpec(
        "knowledge_admit",
        "Admit your own personal-memory candidate (the owner admits anything wider).",
        AdmitArgs,
        knowledge_admit,
        read_only=False,
    ),
    ToolSpec(
        "knowledge_decline",
        "Withdraw one of your candidates.",
        DeclineArgs,
        knowledge_decline,
        read_only=False,
    ),
    ToolSpec(
        "knowledge_use",
        "Record that a session really used an item: the only evidence of reuse.",
        UseArgs,
        knowledge_use,
        read_only=False,
    ),
    ToolSpec(
        "knowledge_retract",
        "Retract your own personal memory, with a reason; its history stays.",
        RetractArgs,
        knowledge_retract,
        read_only=False,
    ),
    ToolSpec(
        "knowledge_supersede",
        "Mark your own item replaced by a newer one.",
        SupersedeArgs,
        knowledge_supersede,
        read_only=False,
    ),
)
