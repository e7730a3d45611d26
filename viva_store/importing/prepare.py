"""Turning reader output into redacted rows, before any lock is taken.

Everything here is CPU work on plain data: merge the chunks of one session,
redact every string that will reach disk (DESIGN I4), and build the row
dictionaries :mod:`viva_store.importing.write` stores. The redaction
ledger records which rule fired where, never the value.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from viva_store.importing.harness.model import Message, ParsedChunk, SessionMeta, Usage
from viva_store.redact import (
    RULESET_VERSION,
    FolderNames,
    may_hold_secret,
    redact_obj,
    redact_path,
    redact_text,
)
from viva_store.redact.gate import flagged

_META_TEXT = (
    "parent_native_id",
    "project",
    "cwd",
    "git_branch",
    "title",
    "entrypoint",
    "originator",
)


def session_id(harness: str, native_id: str) -> str:
    """Viva's id of a session: stable across imports and machines."""
    digest = hashlib.blake2b(f"{harness}\0{native_id}".encode(), digest_size=6).hexdigest()
    return "s" + digest


def project_name(cwd: str) -> str | None:
    """``viva`` for ``/home/h/src/viva`` (and ``C:\\src\\viva``)."""
    parts = [p for p in cwd.replace("\\", "/").split("/") if p]
    return parts[-1] if parts else None


def clean(text: str) -> str:
    """Text as every engine can store it (PostgreSQL refuses NUL)."""
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


@dataclass(slots=True)
class Ledger:
    """Redaction hits of a batch, as ``redaction`` rows without ``run_id``."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def text(
        self,
        value: str | None,
        where: dict[str, Any],
        name: str,
        *,
        folders: FolderNames | None = None,
    ) -> str | None:
        """``value`` redacted (given ``folders``, as a file path: :func:`redact_path`),
        its hits recorded."""
        if value is None:
            return None
        text = clean(value)
        out, hits = redact_path(text, folders) if folders is not None else redact_text(text)
        for hit in hits:
            self.rows.append(
                {
                    **where,
                    "field": name,
                    "rule": hit.rule,
                    "position": hit.start,
                    "ruleset": RULESET_VERSION,
                }
            )
        return out

    def obj(self, value: Any, where: dict[str, Any], name: str) -> Any:
        if value is None:
            return None
        out, hits = redact_obj(value)
        for hit in hits:
            self.rows.append(
                {
                    **where,
                    "field": f"{name}.{hit.path}",
                    "rule": hit.rule,
                    "position": hit.start,
                    "ruleset": RULESET_VERSION,
                }
            )
        return out


@dataclass(slots=True)
class PreparedSession:
    """One session's redacted metadata, messages and usage from one batch."""

    id: str
    meta: SessionMeta
    source_path: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)
    message_keys: set[str] = field(default_factory=set)
    usage: list[dict[str, Any]] = field(default_factory=list)
    usage_keys: set[str] = field(default_factory=set)
    ledger: list[dict[str, Any]] = field(default_factory=list)


def merge_meta(into: SessionMeta, new: SessionMeta) -> None:
    """Fold ``new`` into ``into``: earliest start, latest end, best title, union of models."""
    for name in ("parent_native_id", "relation", "project", "cwd", "git_branch"):
        if getattr(into, name) is None and getattr(new, name) is not None:
            setattr(into, name, getattr(new, name))
    for name in ("entrypoint", "originator"):
        if getattr(into, name) is None and getattr(new, name) is not None:
            setattr(into, name, getattr(new, name))
    into.models |= new.models
    if new.started_at and (into.started_at is None or new.started_at < into.started_at):
        into.started_at = new.started_at
    if new.ended_at and (into.ended_at is None or new.ended_at > into.ended_at):
        into.ended_at = new.ended_at
    if new.title and (into.title is None or new.title_rank >= into.title_rank):
        into.title, into.title_rank = new.title, new.title_rank


def fields_text(message: Message) -> str:
    """The message's key, text, tool, tool input (summary and whole) and tool result
    joined by newlines.

    No rule keyword contains a newline, so a keyword scan of this one string
    decides exactly whether any of the fields needs the full redactor.
    """
    return "\n".join(
        f
        for f in (
            message.key,
            message.text,
            message.tool,
            message.tool_input,
            message.tool_args,
            message.tool_result,
        )
        if f
    )


def suspects(messages: list[Message]) -> list[bool]:
    """For each message, whether it needs the redactor: a rule keyword in its fields
    (one keyword scan for all of them) or a NUL to clean."""
    texts = [fields_text(m) for m in messages]
    hits = flagged(texts)
    return [i in hits or "\x00" in text for i, text in enumerate(texts)]


@dataclass(frozen=True, slots=True)
class Fields:
    """A message's stored strings (but its key), redacted."""

    text: str
    tool: str | None
    tool_input: str | None
    tool_args: str | None
    tool_result: str | None


def redact_message_fields(
    message: Message, ledger: Ledger, where: dict[str, Any], suspect: bool | None = None
) -> Fields:
    """The message's text, tool, tool input (summary and whole) and result, redacted.

    ``suspect`` is whether :func:`fields_text` holds a rule keyword (a batch
    scan may have decided it already); text with NUL takes the full path too,
    which also cleans it. The whole input is redacted as the JSON value it is.
    """
    if suspect is None:
        joined = fields_text(message)
        suspect = may_hold_secret(joined) or "\x00" in joined
    if not suspect:
        return Fields(
            message.text,
            message.tool,
            message.tool_input,
            message.tool_args,
            message.tool_result,
        )
    return Fields(
        ledger.text(message.text, where, "text") or "",
        ledger.text(message.tool, where, "tool"),
        ledger.text(message.tool_input, where, "tool_input"),
        _redact_args(message.tool_args, ledger, where),
        ledger.text(message.tool_result, where, "tool_result"),
    )


def _redact_args(args: str | None, ledger: Ledger, where: dict[str, Any]) -> str | None:
    """A whole tool input (JSON text), redacted value by value; text that is not
    JSON (a cut record, a NUL) is redacted as text."""
    if args is None:
        return None
    try:
        value = orjson.loads(args)
    except orjson.JSONDecodeError:
        return ledger.text(args, where, "tool_args")
    out = ledger.obj(value, where, "tool_args")
    return args if out is value else orjson.dumps(out).decode()


class Batch:
    """Chunks of one source file gathered for one write transaction.

    A session's identity is its redacted native id (a file name can hold a
    secret): redaction is deterministic, so every read of a file, whole or
    resumed from a redacted reader state, names the same session.
    """

    def __init__(self, harness: str) -> None:
        self.harness = harness
        self.sessions: dict[str, PreparedSession] = {}
        self.size = 0  # approximate bytes of text, to bound memory per transaction
        self._natives: dict[str, tuple[str, list[Any]]] = {}  # native id → redacted, hits
        self.cwds: set[str] = set()  # as read: what the folder names are made of

    def _native(self, native: str) -> tuple[str, list[Any]]:
        known = self._natives.get(native)
        if known is None:
            if may_hold_secret(native) or "\x00" in native:
                shown, hits = redact_text(clean(native))
                known = (shown, list(hits))
            else:
                known = (native, [])
            self._natives[native] = known
        return known

    def add(self, chunk: ParsedChunk, source_path: str = "") -> None:
        """Add one parsed chunk read from ``source_path``."""
        native, hits = self._native(chunk.meta.native_id)
        if chunk.meta.cwd:
            self.cwds.add(chunk.meta.cwd)
        sid = session_id(self.harness, native)
        prepared = self.sessions.get(sid)
        if prepared is None:
            meta = SessionMeta(native_id=native)
            prepared = self.sessions[sid] = PreparedSession(sid, meta, source_path)
            where = {"session_id": sid, "message_key": None}
            prepared.ledger += _ledger_rows(hits, where, "native_id")
        merge_meta(prepared.meta, chunk.meta)
        ledger = Ledger(prepared.ledger)
        fresh: list[Message] = []
        for message in chunk.messages:
            if message.key not in prepared.message_keys:
                fresh.append(message)
        # One keyword scan for the whole chunk: only the few messages it flags
        # go through the redactor.
        for message, suspect in zip(fresh, suspects(fresh), strict=True):
            row = self._message_row(sid, message, ledger, suspect)
            if row["key"] not in prepared.message_keys:
                prepared.message_keys.add(row["key"])
                prepared.messages.append(row)
        flagged_keys = flagged([u.usage_key for u in chunk.usage]) if chunk.usage else set()
        for n, usage in enumerate(chunk.usage):
            row = _usage_row(self.harness, sid, usage, n in flagged_keys)
            if row["usage_key"] not in prepared.usage_keys:
                prepared.usage_keys.add(row["usage_key"])
                prepared.usage.append(row)

    def absorb(self, other: Batch) -> None:
        """Merge a batch prepared elsewhere (a worker process) into this one."""
        for sid, theirs in other.sessions.items():
            mine = self.sessions.get(sid)
            if mine is None:
                self.sessions[sid] = theirs
                continue
            merge_meta(mine.meta, theirs.meta)
            for row in theirs.messages:
                if row["key"] not in mine.message_keys:
                    mine.message_keys.add(row["key"])
                    mine.messages.append(row)
            for row in theirs.usage:
                if row["usage_key"] not in mine.usage_keys:
                    mine.usage_keys.add(row["usage_key"])
                    mine.usage.append(row)
            mine.ledger.extend(theirs.ledger)
        self.size += other.size
        self.cwds |= other.cwds

    def _message_row(
        self, sid: str, message: Message, ledger: Ledger, suspect: bool
    ) -> dict[str, Any]:
        key = message.key
        if suspect and may_hold_secret(key):
            key, hits = redact_text(clean(key))
            ledger.rows += _ledger_rows(hits, {"session_id": sid, "message_key": key}, "key")
        where = {"session_id": sid, "message_key": key}
        fields = redact_message_fields(message, ledger, where, suspect)
        self.size += (
            len(fields.text) + len(fields.tool_result or "") + len(fields.tool_args or "") + 200
        )
        row = {
            "session_id": sid,
            "key": key,
            "role": message.role,
            "text": fields.text,
            "sidechain": message.sidechain,
            "synthetic": message.synthetic,
            "kind": message.kind or "",
            "ruleset": RULESET_VERSION,
        }
        # A column left out is stored as SQL NULL, and every value sent costs the
        # insert a little: the optional fields are sent only when they hold something.
        for name, value in (
            ("at", message.at),
            ("tool", fields.tool),
            ("tool_input", fields.tool_input),
            ("tool_args", fields.tool_args),
            ("tool_result", fields.tool_result),
            ("model", message.model),
        ):
            if value is not None:
                row[name] = value
        if message.raw is not None:
            row["raw"] = ledger.obj(message.raw, where, "raw")
        return row

    def finish(self, folders: FolderNames) -> None:
        """Name the project, and redact the merged session metadata (titles and paths
        can hold secrets too); ``folders`` learns the batch's working folders first, so
        that a folder named after one shows its secrets redacted.

        The project is the last folder of the session's cwd whenever the cwd is known,
        so one project has one name across harnesses (pi's folder names, for one,
        encode the whole path); otherwise whatever the reader found.
        """
        for cwd in self.cwds:
            folders.learn(cwd)
        for prepared in self.sessions.values():
            ledger = Ledger(prepared.ledger)
            where = {"session_id": prepared.id, "message_key": None}
            for name in _META_TEXT:
                value = getattr(prepared.meta, name)
                if isinstance(value, str):
                    setattr(prepared.meta, name, ledger.text(value, where, name))
            if prepared.meta.cwd:  # from the redacted folder: a secret's tail is no name
                prepared.meta.project = project_name(prepared.meta.cwd) or prepared.meta.project
            shown = ledger.text(prepared.source_path, where, "source_path", folders=folders)
            prepared.source_path = shown or ""


def _ledger_rows(hits: list[Any], where: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [
        {**where, "field": name, "rule": h.rule, "position": h.start, "ruleset": RULESET_VERSION}
        for h in hits
    ]


def _usage_row(harness: str, sid: str, usage: Usage, suspect: bool) -> dict[str, Any]:
    """``usage`` as a row; ``suspect``: a rule keyword occurs in its key (a batch scan
    decided it), which is then redacted (e.g. a key made of a file name)."""
    key = usage.usage_key
    if suspect:
        key = redact_text(clean(key))[0]
    return {
        "harness": harness,
        "usage_key": key,
        "session_id": sid,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
        "model": usage.model,
    }
