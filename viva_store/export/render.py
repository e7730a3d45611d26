"""Markdown, JSON and JSON-lines renderings of an :class:`ExportTranscript` (pure).

Every message is rendered whole: its text, a tool call's whole input and its result.
The text is what the store holds, redacted at import; nothing here reads the store.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from viva_store.errors import InvalidInput
from viva_store.export.model import (
    FORMATS,
    ExportTranscript,
    SubAgent,
    header_facts,
    shown_kind,
)
from viva_store.records import MessageRecord


def whole_input(msg: MessageRecord) -> str:
    """A tool call's whole input as text: indented JSON, or the stored text as it is
    (the one-line summary when no whole input was stored)."""
    if msg.tool_args is None:
        return msg.tool_input or ""
    if isinstance(msg.tool_args, str):
        return msg.tool_args
    return json.dumps(msg.tool_args, indent=2, ensure_ascii=False)


def runs(
    t: ExportTranscript,
) -> Iterator[tuple[str, list[MessageRecord]] | tuple[str, SubAgent]]:
    """The transcript's items with consecutive inline sidechain messages grouped:
    ``("message", [m])``, ``("sidechain", [m, ...])`` or ``("subagent", s)``."""
    group: list[MessageRecord] = []
    for item in t.items():
        if isinstance(item, MessageRecord) and item.sidechain:
            group.append(item)
            continue
        if group:
            yield ("sidechain", group)
            group = []
        if isinstance(item, SubAgent):
            yield ("subagent", item)
        else:
            yield ("message", [item])
    if group:
        yield ("sidechain", group)


def _fence(text: str, lang: str = "") -> str:
    """``text`` in a fenced block whose fence no line of it can close."""
    longest = max((len(run) for run in _backtick_runs(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def _backtick_runs(text: str) -> Iterator[str]:
    run = ""
    for char in text:
        if char == "`":
            run += char
        elif run:
            yield run
            run = ""
    if run:
        yield run


def _md_message(msg: MessageRecord, quote: str) -> list[str]:
    stamp = f"{msg.at:%Y-%m-%d %H:%M:%S}" if msg.at else "--"
    flags = "".join(
        f" · {flag}"
        for flag, on in (("synthetic", msg.synthetic), (msg.model or "", msg.model))
        if on
    )
    out = [f"### {msg.role}{shown_kind(msg)} · {stamp}{flags}", ""]
    if msg.tool and msg.role != "tool":
        out += [f"**tool call: `{msg.tool}`**", "", _fence(whole_input(msg), "json"), ""]
    if msg.role == "tool":
        if msg.tool_args is not None:
            out += [f"**{msg.tool} input**", "", _fence(whole_input(msg), "json"), ""]
        out += [f"**{msg.tool or 'tool'} output**", "", _fence(msg.tool_result or msg.text), ""]
    else:
        if msg.tool_result:
            out += [f"**{msg.tool} output**", "", _fence(msg.tool_result), ""]
        if msg.text.strip():
            out += [msg.text.rstrip(), ""]
    return [quote + line if line else quote.rstrip() for line in out]


def _md(t: ExportTranscript, depth: int) -> list[str]:
    quote = "> " * depth
    title = t.session.title or "(untitled)"
    lines = [f"{quote}{'#' if depth == 0 else '##'} {title}", quote.rstrip()]
    lines += [f"{quote}- **{label}**: {value}" for label, value in header_facts(t.session)]
    lines.append(quote.rstrip())
    for kind, item in runs(t):
        if kind == "subagent":
            assert isinstance(item, SubAgent)
            lines += [f"{quote}> **sub-agent session** {item.transcript.session.id}", ">"]
            lines += _md(item.transcript, depth + 1)
        elif kind == "sidechain":
            assert isinstance(item, list)
            lines += [f"{quote}> **sub-agent turns**", f"{quote}>"]
            for msg in item:
                lines += _md_message(msg, quote + "> ")
        else:
            assert isinstance(item, list)
            lines += _md_message(item[0], quote)
    return lines


def to_markdown(t: ExportTranscript) -> str:
    """The transcript as Markdown; sub-agent turns are block quotes under their parent."""
    return "\n".join(_md(t, 0)).rstrip() + "\n"


def to_json(t: ExportTranscript) -> str:
    """The transcript as one JSON document (:meth:`ExportTranscript.to_json`)."""
    return json.dumps(t.to_json(), ensure_ascii=False, indent=2) + "\n"


def _lines(t: ExportTranscript, depth: int, parent: str | None) -> Iterator[dict[str, Any]]:
    head = t.session.to_json()
    yield {"type": "session", "depth": depth, "parent_session_id": parent, **head}
    for item in t.items():
        if isinstance(item, SubAgent):
            yield from _lines(item.transcript, depth + 1, t.session.id)
        else:
            yield {"type": "message", "depth": depth, "session_id": t.session.id, **item.to_json()}


def to_jsonl(t: ExportTranscript) -> str:
    """One JSON object a line: a ``session`` line, then its ``message`` lines, each
    sub-agent's lines (``depth`` one more) right after the message it follows."""
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in _lines(t, 0, None))


def render(t: ExportTranscript, fmt: str) -> str:
    """The transcript in ``fmt`` (one of :data:`FORMATS`)."""
    from viva_store.export.html import to_html

    renderers = {"md": to_markdown, "html": to_html, "json": to_json, "jsonl": to_jsonl}
    if fmt not in renderers:
        raise InvalidInput(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    return renderers[fmt](t)
