"""``viva mcp``: the member callback interface as a stdio MCP server (the official SDK).

A harness without a shell reaches Viva through these tools; a harness with one may use
them too. The server acts only as the member its ``VIVA_GRANT`` names, checked at every
call (:mod:`~viva_tui.mcp.gate`); each tool calls the same service as its CLI command
and answers with the JSON that command prints with ``--json`` (:mod:`~viva_tui.mcp.tools`);
:mod:`~viva_tui.mcp.server` wires them to the SDK's low-level server.
"""
