"""The tools of ``viva mcp``: each one's arguments, and the service call behind it.

A tool mirrors its CLI command: the same service, the same scope, and as its result the
JSON the command prints with ``--json``. Where the CLI takes a member (``viva skill use
M``), the tool's ``member`` defaults to the member acting; naming another one is refused
as on the CLI. Arguments are validated by pydantic models (also each tool's input
schema); unknown arguments are refused like unknown options.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from viva_store.clock import parse_since
from viva_tui.mcp.gate import Caller

A = TypeVar("A", bound=BaseModel)

MemberArg = Annotated[
    str | None,
    Field(description="Your member name; default: the member your grant names (only yours)."),
]


class Arguments(BaseModel):
    """A tool's arguments: strict about names, so a typo is refused rather than ignored."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True, slots=True)
class Noted:
    """A result with notices the CLI prints on stderr beside its JSON (e.g. a cut query)."""

    value: Any
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolSpec(Generic[A]):
    """One tool: its name, what it is for, its arguments and the call behind it."""

    name: str
    description: str
    arguments: type[A]
    run: Callable[[Caller, A], Any]
    read_only: bool = True
    """No change to the store besides logs of what was read (a read skill is recorded)."""


def _member(caller: Caller, member: str | None) -> str:
    return caller.member if member is None else member


class RecallArgs(Arguments):
    query: Annotated[str, Field(description="Words to search for (over 512 chars: truncated).")]
    limit: Annotated[int, Field(description="At most N sessions.")] = 10
    newest: Annotated[bool, Field(description="Most recent hit first instead of best.")] = False
    state: Annotated[
        Literal["prefer", "restrict", "off"] | None,
        Field(description="How your engagement state's project narrows (default: prefer)."),
    ] = None
    harness: Annotated[str | None, Field(description="Only sessions of this harness.")] = None
    project: Annotated[str | None, Field(description="Only this project (name or cwd).")] = None
    since: Annotated[
        str | None,
        Field(description="On or after: 7d, 8h, today, yesterday, YYYY-MM-DD or ISO-8601."),
    ] = None


def recall(caller: Caller, args: RecallArgs) -> Noted:
    from viva_store.importing.service import check_harness
    from viva_store.recall.service import RecallFilter
    from viva_store.recall.service import recall as search

    if args.harness is not None:
        check_harness(args.harness)
    after = parse_since(args.since) if args.since is not None else None
    flt = RecallFilter(harness=args.harness, project=args.project, since=after)
    order = "newest" if args.newest else "rank"
    found = search(caller.ctx, args.query, limit=args.limit, order=order, state=args.state, flt=flt)
    return Noted([*found.hits, *found.items], found.notes)


class SkillSearchArgs(Arguments):
    query: Annotated[str, Field(description="What the skill should help with.")]
    limit: Annotated[int, Field(description="At most N skills (1..50).")] = 10


def skill_search(caller: Caller, args: SkillSearchArgs) -> Any:
    from viva_store.skills.service import search_skills

    return search_skills(caller.ctx, args.query, caller.member, args.limit)


class SkillShowArgs(Arguments):
    name: Annotated[str, Field(description="Skill name (see skill_search).")]


def skill_show(caller: Caller, args: SkillShowArgs) -> Any:
    from viva_store.skills.service import read_skill

    return read_skill(caller.ctx, args.name, execution_id=caller.execution_id)


class SkillUseArgs(Arguments):
    name: Annotated[str, Field(description="Skill name.")]
    outcome: Annotated[
        Literal["success", "failure", "corrected"],
        Field(description="How the work that used it ended (corrected: the owner's)."),
    ]
    session: Annotated[
        str | None, Field(description="The session the use belongs to (default: this one).")
    ] = None
    member: MemberArg = None


def skill_use(caller: Caller, args: SkillUseArgs) -> Any:
    from viva_store.skills.service import record_use

    member = _member(caller, args.member)
    return asdict(record_use(caller.ctx, member, args.name, args.outcome, args.session))


class StateGetArgs(Arguments):
    member: MemberArg = None


def state_get(caller: Caller, args: StateGetArgs) -> Any:
    from viva_store.engagement.service import get_state

    return get_state(caller.ctx, _member(caller, args.member))


FieldArg = Annotated[str | None, Field(description="Set this field (explicit: it wins).")]


class StateSetArgs(Arguments):
    member: MemberArg = None
    domain: FieldArg = None
    project: FieldArg = None
    counterpart: FieldArg = None
    activity: FieldArg = None
    clear: Annotated[
        list[str], Field(description="Fields to return to automatic (entry rules, judge).")
    ] = []
    note: Annotated[str, Field(description="Why (kept with the event).")] = ""


def state_set(caller: Caller, args: StateSetArgs) -> Any:
    from viva_store.engagement.service import set_state

    fields = ("domain", "project", "counterpart", "activity")
    values = {name: getattr(args, name) for name in fields if getattr(args, name) is not None}
    return set_state(caller.ctx, _member(caller, args.member), values, args.clear, args.note)


class PrincipleProposeArgs(Arguments):
    text: Annotated[str, Field(description="The principle, as it should read.")]
    rationale: Annotated[str, Field(description="Why this member needs it.")]
    evidence: Annotated[
        list[str], Field(description="Session ids (or SESSION#SEQ for one message).")
    ] = []
    replaces: Annotated[
        str | None, Field(description="A principle id: propose a new version of it.")
    ] = None
    member: MemberArg = None


def principle_propose(caller: Caller, args: PrincipleProposeArgs) -> Any:
    from viva_store.principles.service import propose

    member = _member(caller, args.member)
    return propose(caller.ctx, member, args.text, args.rationale, args.evidence, args.replaces)


class TimelineArgs(Arguments):
    member: MemberArg = None
    since: Annotated[
        str | None,
        Field(description="On or after: 7d, 8h, today, yesterday, YYYY-MM-DD or ISO-8601."),
    ] = None
    limit: Annotated[int | None, Field(ge=1, description="At most N entries, newest first.")] = None


def timeline(caller: Caller, args: TimelineArgs) -> Any:
    """``viva timeline M --json``: sessions, skill events and principle decisions."""
    from viva_store.sessions.service import member_timeline

    member = _member(caller, args.member)
    since = parse_since(args.since) if args.since is not None else None
    return member_timeline(caller.ctx, member, since, args.limit)


class SessionShowArgs(Arguments):
    id: Annotated[str, Field(description="Viva's session id, the harness's, or a unique prefix.")]
    limit: Annotated[int | None, Field(ge=1, description="At most N messages.")] = None
    offset: Annotated[int, Field(ge=0, description="Skip the first N messages.")] = 0


def session_show(caller: Caller, args: SessionShowArgs) -> Any:
    from viva_store.sessions.service import get_session, related_sessions, session_messages

    session = get_session(caller.ctx, args.id)
    messages = session_messages(caller.ctx, session.id, args.limit, args.offset)
    data = session.to_json()
    data["messages"] = [m.to_json() for m in messages]
    data["related"] = related_sessions(caller.ctx, session.id).to_json()
    return data


CORE_TOOLS: tuple[ToolSpec[Any], ...] = (
    ToolSpec(
        "recall",
        "Search your own experience (earlier sessions, skills, principles): the best hit per "
        "session by relevance, recency and importance, with provenance. Ask before guessing "
        "what you did last time.",
        RecallArgs,
        recall,
    ),
    ToolSpec(
        "skill_search",
        "Find team skills for what you are doing (the projection's relevance), with your "
        "standing in each; read one with skill_show.",
        SkillSearchArgs,
        skill_search,
    ),
    ToolSpec(
        "skill_show",
        "A team skill with its body. The read is recorded: it is how Viva credits a use.",
        SkillShowArgs,
        skill_show,
    ),
    ToolSpec(
        "skill_use",
        "Record a use of a skill Viva cannot see (you followed it without reading it here); "
        "one credited use per skill and session.",
        SkillUseArgs,
        skill_use,
        read_only=False,
    ),
    ToolSpec(
        "state_get",
        "Your engagement state: domain, project, counterpart, activity.",
        StateGetArgs,
        state_get,
    ),
    ToolSpec(
        "state_set",
        "Set engagement-state fields explicitly (they win over rules), or clear them.",
        StateSetArgs,
        state_set,
        read_only=False,
    ),
    ToolSpec(
        "principle_propose",
        "Propose a principle for yourself; it waits for the owner, who alone approves it.",
        PrincipleProposeArgs,
        principle_propose,
        read_only=False,
    ),
    ToolSpec(
        "timeline",
        "Your sessions, newest first (as `viva sessions --json` lists them).",
        TimelineArgs,
        timeline,
    ),
    ToolSpec(
        "session_show",
        "One of your sessions with its (redacted) messages.",
        SessionShowArgs,
        session_show,
    ),
)

from viva_tui.mcp.knowledge_tools import KNOWLEDGE_TOOLS  # noqa: E402 (it builds on the above)

TOOLS: tuple[ToolSpec[Any], ...] = (*CORE_TOOLS, *KNOWLEDGE_TOOLS)
