"""A session's redacted transcript: roles styled by theme, tool calls folded to one line
(unfolded: the whole input the harness gave the tool, and its output).

Rendering is a pure function of the records (:func:`render_transcript`), so the
preview and the dialog draw the same thing and tests can check it without an app.
"""

from __future__ import annotations

import json
import re
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import var
from textual.widgets import Static

from viva_store.records import MessageRecord, SessionRecord
from viva_tui.views import Transcript
from viva_tui.widgets.format import local, when

ROLE_STYLE = {
    "user": "bold $role-user",
    "assistant": "bold $role-assistant",
    "tool": "$role-tool",
    "system": "italic $text-muted",
    "summary": "italic $text-muted",
    "event": "$text-muted",
}
FOLDED_WIDTH = 90


def _one_line(text: str | None, width: int = FOLDED_WIDTH) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _lines(text: str | None) -> int:
    return len((text or "").splitlines())


def whole_input(msg: MessageRecord) -> str:
    """A tool call's whole input for reading: an object as one ``name: value`` per
    argument (text arguments as they are, so an edit's old and new text read as
    code), anything else as indented JSON; the one-line summary when nothing more
    was stored."""
    args: Any = msg.tool_args
    if args is None:
        return msg.tool_input or ""
    if not isinstance(args, dict):
        return args if isinstance(args, str) else json.dumps(args, indent=2, ensure_ascii=False)
    lines: list[str] = []
    for name, value in args.items():
        if isinstance(value, str) and "\n" in value:
            lines += [f"{name}:", *("  " + line for line in value.rstrip("\n").split("\n"))]
        elif isinstance(value, str):
            lines.append(f"{name}: {value}")
        else:
            lines.append(f"{name}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines)


def render_message(msg: MessageRecord, folded: bool, hit: bool = False) -> Content:
    """One transcript item as styled content (markup in the text is never interpreted);
    ``hit``: marked as the message a search found."""
    style = ROLE_STYLE.get(msg.role, "$text-muted")
    stamp = f"{local(msg.at):%H:%M}" if msg.at else "--:--"
    head = Content.assemble((f"{stamp} ", "$text-muted"), (msg.role, style))
    if hit:
        head = Content.styled("▶ ", "bold $search-hit") + head
    if msg.sidechain:
        head = head + Content.styled(" (sub-agent)", "$text-muted")
    if msg.role == "tool":
        output = msg.tool_result or msg.text
        name = msg.tool or "tool"
        if folded:
            summary = f"  ↳ {name} output, {_lines(output)} lines"
            return head + Content.styled(summary, "$text-muted")
        body = Content.styled(output.rstrip() or "(no output)", "$role-tool")
        return Content("").join([head, Content.styled(f"  {name} output\n", "$text-muted"), body])
    parts = [head]
    if msg.tool:
        line = _one_line(msg.tool_input) if folded else ""
        parts.append(
            Content.assemble(
                ("  ▸ " if folded else "  ▾ ", "$role-tool"),
                (msg.tool, "bold $role-tool"),
                (f" {line}", "$role-tool"),
            )
        )
        shown = whole_input(msg) if not folded else ""
        if shown.strip():
            parts += [Content("\n"), Content.styled(shown.rstrip(), "$role-tool")]
        if not folded and msg.tool_result:
            parts += [Content("\n"), Content.styled(msg.tool_result.rstrip(), "$role-tool")]
        if msg.text.strip():
            parts += [Content("\n"), Content(msg.text.rstrip())]
        return Content("").join(parts)
    parts += [Content("\n"), Content(msg.text.rstrip() or "(empty)")]
    return Content("").join(parts)


def render_header(session: SessionRecord) -> Content:
    """The session's facts above its transcript."""
    owner = session.member or ("nobody's" if session.status == "nobody" else "unattributed")
    title = session.title or "(untitled)"
    facts = (
        f"{session.harness} · {session.project or session.cwd or 'no project'} · "
        f"{when(session.started_at)} · {session.message_count} messages · {owner}"
    )
    return Content.assemble((title, "bold"), "\n", (facts, "$text-muted"))


def _parts(t: Transcript, folded: bool, at_seq: int | None, upto: bool = False) -> list[Content]:
    """The header and the messages (``upto``: only those before message ``at_seq``)."""
    parts = [render_header(t.session), Content("\n\n")]
    for msg in t.messages:
        if upto and msg.seq == at_seq:
            break
        gap = Content("\n" if msg.role == "tool" else "\n\n")
        parts += [render_message(msg, folded, msg.seq == at_seq), gap]
    return parts


def lines_before(t: Transcript, folded: bool, at_seq: int, width: int) -> int:
    """How many lines, wrapped at ``width``, come before message ``at_seq``."""
    if all(msg.seq != at_seq for msg in t.messages):
        return 0
    before = Content("").join(_parts(t, folded, at_seq, upto=True))
    return len(before.wrap(max(width, 1))) - 1  # the last line is the message's own


def render_transcript(t: Transcript, folded: bool, at_seq: int | None = None) -> Content:
    """A whole transcript as one piece of content: the header, then every message
    (message ``at_seq`` marked as a search's hit)."""
    parts = _parts(t, folded, at_seq)
    if not t.messages:
        parts.append(Content.styled("(no messages recovered)", "$text-muted"))
    if t.truncated:
        shown = len(t.messages)
        note = f"… first {shown} of {t.session.message_count} messages shown"
        parts.append(Content.styled(note, "$text-muted"))
    return Content("").join(parts)


class TranscriptView(VerticalScroll):
    """A scrolling transcript; :meth:`show` replaces what it shows.

    One :class:`Static` holds the whole rendering (a widget per message would make
    moving through a long list slow).
    """

    DEFAULT_CLASSES = "transcript"

    folded: var[bool] = var(True, init=False)
    """Whether tool calls show as one line each."""

    def __init__(self, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(id=id)
        self._transcript: Transcript | None = None
        self._placeholder = placeholder
        self._at_seq: int | None = None
        self.needle = ""
        """What find looks for ("": nothing; matches are highlighted)."""
        self.found: int | None = None
        """The index of the message the last find stopped at."""

    def compose(self) -> ComposeResult:
        yield Static(Content.styled(self._placeholder, "$text-muted"), classes="transcript-body")

    def show(
        self, transcript: Transcript | None, placeholder: str = "", at_seq: int | None = None
    ) -> None:
        """Draw ``transcript`` (None: show ``placeholder`` instead), scrolled to message
        ``at_seq`` when given."""
        self._transcript = transcript
        self._placeholder = placeholder
        self._at_seq = at_seq
        self._redraw()

    def toggle_fold(self) -> None:
        """Fold or unfold every tool call."""
        self.folded = not self.folded

    def watch_folded(self) -> None:
        self._redraw()

    def _redraw(self, keep_place: bool = False) -> None:
        body = self.query_one(".transcript-body", Static)
        if self._transcript is None:
            body.update(Content.styled(self._placeholder, "$text-muted"))
        else:
            content = render_transcript(self._transcript, self.folded, self._at_seq)
            if self.needle:
                pattern = re.compile(re.escape(self.needle), re.IGNORECASE)
                content = content.highlight_regex(pattern, style="bold reverse $search-hit")
            body.update(content)
        if not keep_place:
            self.scroll_home(animate=False)
            if self._transcript is not None and self._at_seq is not None:
                self.call_after_refresh(self._scroll_to_hit)

    def _scroll_to_hit(self) -> None:
        if self._transcript is None or self._at_seq is None:
            return
        width = self.query_one(".transcript-body", Static).content_region.width
        line = lines_before(self._transcript, self.folded, self._at_seq, width)
        self.scroll_to(y=line, animate=False)

    def message_starts(self, width: int) -> list[int]:
        """The line each message starts on when drawn ``width`` cells wide."""
        t = self._transcript
        if t is None:
            return []
        line = len(render_header(t.session).wrap(width)) + 1
        starts: list[int] = []
        for msg in t.messages:
            starts.append(line)
            line += len(render_message(msg, self.folded).wrap(width))
            line += 0 if msg.role == "tool" else 1
        return starts

    def _width(self) -> int:
        return max(1, self.query_one(".transcript-body", Static).content_size.width)

    def find(self, needle: str, step: int = 1) -> int | None:
        """Move to the next (``step`` 1) or previous (-1) message holding ``needle`` as
        drawn, round the end; highlight every match. None: no message holds it."""
        t = self._transcript
        self.needle = needle.strip()
        if t is None or not self.needle:
            self.found = None
            self._redraw(keep_place=True)
            return None
        wanted = self.needle.casefold()
        count = len(t.messages)
        start = self.current_index() if self.found is None else self.found + step
        hit = next(
            (
                (start + k * step) % count
                for k in range(count)
                if wanted
                in render_message(
                    t.messages[(start + k * step) % count], self.folded
                ).plain.casefold()
            ),
            None,
        )
        self.found = hit
        self._redraw(keep_place=True)
        if hit is not None:
            self.scroll_to(y=self.message_starts(self._width())[hit], animate=False)
        return hit

    def current_index(self) -> int:
        """The message find stopped at, else the first one at or below the top line."""
        if self.found is not None:
            return self.found
        starts = self.message_starts(self._width())
        top = round(self.scroll_y)
        return next((i for i, line in enumerate(starts) if line >= top), max(len(starts) - 1, 0))

    def current_message(self) -> MessageRecord | None:
        """The message copy and the editor act on (see :meth:`current_index`)."""
        t = self._transcript
        return t.messages[self.current_index()] if t is not None and t.messages else None
