"""The stdio server: the SDK's low-level ``Server`` serving :data:`~viva_tui.mcp.tools.TOOLS`.

Each call is answered by :func:`answer` on the event loop itself, one at a time: the
services are synchronous and the server serves one harness, so a worker thread would
only add a hand-off to every call. A call becomes one result: the JSON
the CLI prints with ``--json``, or an error of one line worded as the CLI words it
(``viva: ...``) — a refused grant, a refused scope, a bad argument alike. No traceback
leaves the server unless ``VIVA_DEBUG`` asks for one on stderr.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Mapping
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from pydantic import ValidationError

from viva_store.errors import VivaError
from viva_tui.commands.common import to_jsonable
from viva_tui.mcp.gate import MemberGate
from viva_tui.mcp.tools import TOOLS, Noted, ToolSpec

INSTRUCTIONS = (
    "Viva holds your experience as a member of the team: your earlier sessions, your "
    "skills and their weights, your principles and your engagement state. Every call acts "
    "as you (the grant in VIVA_GRANT) and sees only your own data. Results are the JSON "
    "of the matching `viva ... --json` command; errors are one line starting `viva:`."
)


def describe(spec: ToolSpec[Any]) -> types.Tool:
    """How a tool is listed: its input schema is its argument model's JSON schema."""
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.arguments.model_json_schema(),
        annotations=types.ToolAnnotations(
            read_only_hint=spec.read_only,
            destructive_hint=False,
            open_world_hint=False,
        ),
    )


def refusal(message: str) -> types.CallToolResult:
    """An error result: the one line the CLI would print on stderr."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def _invalid(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        problems.append(f"{where}: {error['msg']}")
    return "viva: " + "; ".join(problems)


def _internal(exc: Exception) -> str:
    if os.environ.get("VIVA_DEBUG"):
        traceback.print_exception(exc, file=sys.stderr)
    detail = " ".join(str(exc).split())[:300]
    return (
        f"viva: internal error: {type(exc).__name__}: {detail} (set VIVA_DEBUG=1 for the traceback)"
    )


def answer(
    gate: MemberGate, spec: ToolSpec[Any], arguments: Mapping[str, Any]
) -> types.CallToolResult:
    """Run one call: check the arguments, then the grant, then the service."""
    try:
        args = spec.arguments.model_validate(dict(arguments))
    except ValidationError as exc:
        return refusal(_invalid(exc))
    try:
        value = spec.run(gate.caller(), args)
    except VivaError as exc:
        return refusal(f"viva: {exc}")
    except Exception as exc:  # the last line of defence, as in `cli.main`
        return refusal(_internal(exc))
    notes = value.notes if isinstance(value, Noted) else ()
    data = value.value if isinstance(value, Noted) else value
    texts = [json.dumps(to_jsonable(data), ensure_ascii=False), *(f"viva: {n}" for n in notes)]
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=t) for t in texts]
    return types.CallToolResult(content=content)


def build_server(gate: MemberGate) -> Server[Any]:
    """The server, its tools listed once and each call answered as it comes."""
    specs = {spec.name: spec for spec in TOOLS}
    listing = types.ListToolsResult(tools=[describe(spec) for spec in TOOLS])

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        spec = specs.get(params.name)
        if spec is None:
            return refusal(f"viva: no tool named {params.name!r} (see the tools list)")
        return answer(gate, spec, params.arguments or {})

    return Server(
        "viva", instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool
    )


def serve(gate: MemberGate) -> None:
    """Serve one harness over stdin/stdout until it closes the connection."""
    server = build_server(gate)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
