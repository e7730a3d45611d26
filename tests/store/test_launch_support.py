"""Stand-in ``claude`` and ``codex`` executables for the launch tests (no tests here).

Each is a small Python script written to a temporary ``bin`` folder put first on
``PATH``. Like the real harness it writes its transcript in the real format where the
real one would — Claude Code under ``$HOME/.claude/projects/<sanitised cwd>/<id>.jsonl``
with the id given by ``--session-id``; Codex under
``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`` with a uuid of its own —
reads projected skills (Claude: the ``Skill`` tool naming one, or a ``Read`` of its
``SKILL.md``; Codex: a shell ``cat .codex/skills/<name>/SKILL.md``), and exits with the
status asked for. What it saw (its argv, cwd, ``VIVA_*`` variables, the instruction file
as it was during the session) goes to ``$STANDIN_LOG`` as JSON.

Behaviour, from the environment the harness inherits:

* ``STANDIN_READS`` — comma-separated skill names, read in order (repeat a name to read
  it twice); ``file:NAME`` reads the projected file instead of using the Skill tool;
* ``STANDIN_EXIT`` — the exit status (default 0);
* ``STANDIN_CALLS`` — ``;``-separated ``viva`` command lines run under the grant; their
  exit codes and output are logged;
* ``STANDIN_WAIT`` — after writing the transcript, write ``$STANDIN_LOG.ready`` and
  sleep this many seconds (the signal tests stop it);
* ``STANDIN_MCP`` — find the ``viva`` MCP server registered on the command line (Claude
  Code: ``--mcp-config``; Codex: ``-c mcp_servers.viva.*``), start it as that harness
  would — Claude Code with its whole environment, Codex with its default few variables
  plus the server's ``env_vars`` — and, through the SDK's stdio client, list its tools
  and call ``state_get``; what the server answered is logged under ``mcp``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

SCRIPT = r"""
import json, os, re, shlex, subprocess, sys, time, uuid
from datetime import datetime, timezone
from pathlib import Path

HARNESS = __HARNESS__
now = datetime.now(timezone.utc)
cwd = os.getcwd()


def iso(at):
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def projected(name):
    folder = ".claude/skills" if HARNESS == "claude-code" else ".codex/skills"
    path = Path(cwd) / folder / name / "SKILL.md"
    return path, path.read_text(encoding="utf-8") if path.is_file() else None


reads = [r for r in os.environ.get("STANDIN_READS", "").split(",") if r]
instruction = "CLAUDE.md" if HARNESS == "claude-code" else "AGENTS.md"
seen = {
    "argv": sys.argv[1:],
    "cwd": cwd,
    "pid": os.getpid(),
    "env": {k: v for k, v in os.environ.items() if k.startswith("VIVA_")},
    "instruction": (Path(cwd) / instruction).read_text(encoding="utf-8")
    if (Path(cwd) / instruction).exists()
    else None,
    "skills": {},
    "calls": [],
}
lines = []
if HARNESS == "claude-code":
    args = sys.argv[1:]
    sid = args[args.index("--session-id") + 1] if "--session-id" in args else str(uuid.uuid4())
    base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid,
            "version": "2.1.80", "gitBranch": "main", "entrypoint": "cli"}
    parent = None
    def add(kind, message, **extra):
        global parent
        uid = str(uuid.uuid4())
        lines.append({**base, "parentUuid": parent, "type": kind, "uuid": uid,
                      "timestamp": iso(datetime.now(timezone.utc)), "message": message, **extra})
        parent = uid
    add("user", {"role": "user", "content": "fix the flaky test"})
    for n, read in enumerate(reads):
        name = read.removeprefix("file:")
        path, text = projected(name)
        seen["skills"][read] = text is not None
        tool = "toolu_%022d" % n
        if read.startswith("file:"):
            call = {"name": "Read", "input": {"file_path": str(path)}}
            output = text or "File does not exist."
        else:
            call = {"name": "Skill", "input": {"skill": name}}
            output = f"Launching skill: {name}"
        add("assistant", {"id": f"msg_{n:024d}", "type": "message", "role": "assistant",
                          "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
                          "content": [{"type": "tool_use", "id": tool, **call}],
                          "usage": {"input_tokens": 10, "output_tokens": 5}},
            requestId=f"req_{n:024d}")
        add("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool, "content": output}]})
    add("assistant", {"id": "msg_end", "type": "message", "role": "assistant",
                      "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
                      "content": [{"type": "text", "text": "Done."}],
                      "usage": {"input_tokens": 10, "output_tokens": 5}}, requestId="req_end")
    folder = re.sub(r"[^A-Za-z0-9]", "-", cwd)
    out = Path(os.environ["HOME"]) / ".claude" / "projects" / folder / f"{sid}.jsonl"
else:
    sid = str(uuid.uuid4())
    stamp = iso(now)
    lines.append({"timestamp": stamp, "type": "session_meta", "payload": {
        "id": sid, "timestamp": stamp, "cwd": cwd, "originator": "codex_cli_rs",
        "cli_version": "0.146.0", "source": "cli", "model_provider": "openai"}})
    lines.append({"timestamp": stamp, "type": "turn_context",
                  "payload": {"cwd": cwd, "model": "gpt-5-codex", "approval_policy": "on-request"}})
    lines.append({"timestamp": stamp, "type": "response_item", "payload": {
        "type": "message", "role": "user",
        "content": [{"type": "input_text", "text": "fix the flaky test"}]}})
    for n, read in enumerate(reads):
        name = read.removeprefix("file:")
        path, text = projected(name)
        seen["skills"][read] = text is not None
        script = f"cat .codex/skills/{name}/SKILL.md"
        lines.append({"timestamp": stamp, "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "call_id": f"call_{n}",
            "arguments": json.dumps({"command": ["bash", "-lc", script], "workdir": cwd})}})
        lines.append({"timestamp": stamp, "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"call_{n}",
            "output": json.dumps({"output": text or "No such file", "metadata": {
                "exit_code": 0 if text else 1}})}})
    lines.append({"timestamp": stamp, "type": "response_item", "payload": {
        "type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": "Done."}]}})
    home = Path(os.environ.get("CODEX_HOME") or Path(os.environ["HOME"]) / ".codex")
    out = home / "sessions" / now.strftime("%Y/%m/%d") / (
        f"rollout-{now.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl")
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
seen["transcript"] = str(out)
seen["session"] = sid
for call in [c for c in os.environ.get("STANDIN_CALLS", "").split(";") if c.strip()]:
    done = subprocess.run([sys.executable, "-m", "viva_tui.cli", *shlex.split(call)],
                          capture_output=True, text=True)
    seen["calls"].append({"call": call, "code": done.returncode,
                          "out": done.stdout, "err": done.stderr})
CODEX_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING", "LANG",
             "LC_ALL", "TERM", "TMPDIR", "TZ")


def viva_server():
    args = sys.argv[1:]
    if HARNESS == "claude-code":
        docs = [json.loads(a.split("=", 1)[1]) for a in args if a.startswith("--mcp-config=")]
        conf = {k: v for d in docs for k, v in d["mcpServers"].items()}.get("viva")
        if conf is None:
            return None
        return conf, [conf["command"], *conf.get("args", [])], {**os.environ, **conf.get("env", {})}
    import tomllib
    conf = {}
    for flag, value in zip(args, args[1:]):
        if flag == "-c" and value.startswith("mcp_servers.viva."):
            key, raw = value.removeprefix("mcp_servers.viva.").split("=", 1)
            conf[key] = tomllib.loads(f"v = {raw}")["v"]
    if not conf:
        return None
    keep = [*CODEX_ENV, *conf.get("env_vars", [])]
    env = {k: os.environ[k] for k in keep if k in os.environ} | conf.get("env", {})
    return conf, [conf["command"], *conf.get("args", [])], env


async def ask_viva(argv, env):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        state = await session.call_tool("state_get", {})
        return {"tools": [t.name for t in tools.tools], "is_error": state.is_error,
                "state_get": [c.text for c in state.content]}


if os.environ.get("STANDIN_MCP"):
    found = viva_server()
    seen["mcp"] = None
    if found is not None:
        import anyio
        conf, argv, env = found
        seen["mcp"] = {"config": conf, "env_names": sorted(env), **anyio.run(ask_viva, argv, env)}
log = Path(os.environ["STANDIN_LOG"])
log.write_text(json.dumps(seen), encoding="utf-8")
wait = float(os.environ.get("STANDIN_WAIT", "0"))
if wait:
    Path(str(log) + ".ready").write_text("ready", encoding="utf-8")
    time.sleep(wait)
sys.exit(int(os.environ.get("STANDIN_EXIT", "0")))
"""


def install(bin_dir: Path) -> dict[str, Path]:
    """Write ``claude`` and ``codex`` stand-ins into ``bin_dir``; their paths by harness."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    for harness, name in (("claude-code", "claude"), ("codex", "codex")):
        path = bin_dir / name
        body = SCRIPT.replace("__HARNESS__", repr(harness))
        path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
        path.chmod(0o755)
        out[harness] = path
    return out


def seen(log: Path) -> dict[str, Any]:
    """What the stand-in logged."""
    result: dict[str, Any] = json.loads(log.read_text(encoding="utf-8"))
    return result


def path_with(bin_dir: Path) -> str:
    """``PATH`` with ``bin_dir`` first."""
    return f"{bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
