"""An HTML rendering of an :class:`ExportTranscript`: one self-contained file (inline
style, no script, nothing fetched) that reads well in a browser.

Every piece of text is escaped: a transcript is untrusted text. Tool calls fold into
``<details>`` with their whole input and result; sub-agent turns nest under their parent.
"""

from __future__ import annotations

from html import escape

from viva_store.export.model import ExportTranscript, SubAgent, header_facts, shown_kind
from viva_store.export.render import runs, whole_input
from viva_store.records import MessageRecord

STYLE = """
:root { color-scheme: light dark; --bg: #fbfaf7; --fg: #1f2328; --muted: #6b7280;
  --line: #d9d6cf; --user: #1d4ed8; --assistant: #047857; --tool: #92400e; --sub: #f2efe8; }
@media (prefers-color-scheme: dark) { :root { --bg: #16181d; --fg: #e6e6e6; --muted: #9ca3af;
  --line: #343842; --user: #7aa2f7; --assistant: #4fd6a5; --tool: #e0af68; --sub: #1e2128; } }
body { background: var(--bg); color: var(--fg); margin: 0 auto; max-width: 60rem;
  padding: 2rem 1.5rem; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .75rem; } h2 { font-size: 1.15rem; margin: 0 0 .5rem; }
table.facts { border-collapse: collapse; margin-bottom: 1.5rem; font-size: .9rem; }
table.facts th { text-align: left; color: var(--muted); font-weight: 500;
  padding: .1rem 1rem .1rem 0; }
table.facts td { padding: .1rem 0; word-break: break-all; }
.msg { border-top: 1px solid var(--line); padding: .6rem 0; }
.head { font-size: .85rem; color: var(--muted); margin-bottom: .25rem; }
.role { font-weight: 600; margin-right: .5rem; } .role.user { color: var(--user); }
.role.assistant { color: var(--assistant); } .role.tool { color: var(--tool); }
.text { white-space: pre-wrap; word-wrap: break-word; }
pre { background: var(--sub); border: 1px solid var(--line); border-radius: 4px; padding: .5rem;
  overflow-x: auto; white-space: pre-wrap; word-wrap: break-word; font-size: .85rem; }
details { margin: .3rem 0; } summary { cursor: pointer; color: var(--tool); font-weight: 500; }
.sub { background: var(--sub); border-left: 3px solid var(--assistant); margin: .6rem 0;
  padding: .5rem 1rem; border-radius: 0 4px 4px 0; }
.sub > .label { font-size: .85rem; color: var(--muted); font-weight: 600; }
"""


def _pre(text: str) -> str:
    return f"<pre>{escape(text.rstrip())}</pre>"


def _message(msg: MessageRecord) -> str:
    stamp = f"{msg.at:%Y-%m-%d %H:%M:%S}" if msg.at else ""
    extra = " · ".join(x for x in (msg.model or "", "synthetic" if msg.synthetic else "") if x)
    role = escape(msg.role)
    kind = escape(shown_kind(msg))
    head = (
        f'<div class="head"><span class="role {role}">{role}{kind}</span>{escape(stamp)}'
        f"{' · ' + escape(extra) if extra else ''}</div>"
    )
    body: list[str] = []
    if msg.role == "tool":
        output = msg.tool_result or msg.text
        lines = len(output.splitlines())
        given = f"<div>input</div>{_pre(whole_input(msg))}" if msg.tool_args is not None else ""
        body.append(
            f"<details><summary>{escape(msg.tool or 'tool')} output · {lines} lines</summary>"
            f"{given}<div>output</div>{_pre(output)}</details>"
        )
    else:
        if msg.tool:
            summary = escape(" ".join((msg.tool_input or "").split())[:120])
            result = f"<div>output</div>{_pre(msg.tool_result)}" if msg.tool_result else ""
            body.append(
                f"<details><summary>⚙ {escape(msg.tool)} <small>{summary}</small></summary>"
                f"<div>input</div>{_pre(whole_input(msg))}{result}</details>"
            )
        if msg.text.strip():
            body.append(f'<div class="text">{escape(msg.text.rstrip())}</div>')
    return f'<div class="msg">{head}{"".join(body)}</div>'


def _facts(t: ExportTranscript) -> str:
    rows = "".join(
        f"<tr><th>{escape(label)}</th><td>{escape(value)}</td></tr>"
        for label, value in header_facts(t.session)
    )
    return f'<table class="facts">{rows}</table>'


def _body(t: ExportTranscript, depth: int) -> str:
    tag = "h1" if depth == 0 else "h2"
    parts = [f"<{tag}>{escape(t.session.title or '(untitled)')}</{tag}>", _facts(t)]
    for kind, item in runs(t):
        if isinstance(item, SubAgent):
            sid = escape(item.transcript.session.id)
            parts.append(
                f'<section class="sub"><div class="label">sub-agent session {sid}</div>'
                f"{_body(item.transcript, depth + 1)}</section>"
            )
        elif kind == "sidechain":
            inner = "".join(_message(m) for m in item)
            parts.append(
                f'<section class="sub"><div class="label">sub-agent turns</div>{inner}</section>'
            )
        else:
            parts.append(_message(item[0]))
    return "".join(parts)


def to_html(t: ExportTranscript) -> str:
    """The transcript as one HTML document."""
    title = escape(f"{t.session.title or '(untitled)'} · {t.session.harness}")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        f"<title>{title}</title><style>{STYLE}</style></head>"
        f"<body>{_body(t, 0)}</body></html>\n"
    )
