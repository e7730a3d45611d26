"""``viva mcp``: the member callback interface, served to a harness over stdio (MCP)."""

from __future__ import annotations

import os

import typer

app = typer.Typer()


@app.command("mcp")
def mcp_command() -> None:
    """The member callback interface as a stdio MCP server, acting as VIVA_GRANT's member."""
    # The SDK loads only here: no other command pays for it.
    from viva_tui.mcp.gate import open_gate
    from viva_tui.mcp.server import serve

    gate = open_gate(os.environ)
    try:
        serve(gate)
    finally:
        gate.close()
