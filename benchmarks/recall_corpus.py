"""The recall benchmark's store: a deterministic Zipf corpus in sessions of 50, five
members and unattributed sessions, optionally with tool calls and outputs
(:func:`populate`; shared by ``bench_recall``, ``bench_cli``, ``bench_mcp``, ``bench_brief``).
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, insert, text

from viva_store.db.schema import CLASSIFICATION, MESSAGE, SESSION
from viva_store.recall import fts
from viva_store.store import Context
from viva_store.triage import attribution

NOW = datetime(2026, 6, 1, tzinfo=UTC)
DOCUMENT = f"({fts.document()})" if hasattr(fts, "document") else "text"
"""What the message index holds (a Viva before tool fields were searched: the text)."""
NONEMPTY = f"({fts.has_document()})" if hasattr(fts, "has_document") else "text != ''"
EMPTY_TOOL = dict.fromkeys(("tool", "tool_input", "tool_args", "tool_result"))
PER_SESSION = 50
MEMBERS = ("samuel", "deven", "alice", "oliver", "victor")
TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "te",
    "ra",
    "vo",
    "shi",
    "nu",
    "be",
    "do",
    "fa",
    "gri",
    "hu",
    "je",
    "ko",
    "lu",
    "pra",
    "se",
    "to",
    "ux",
    "we",
    "zy",
    "an",
    "el",
    "in",
    "or",
    "us",
    "ba",
    "ce",
    "di",
    "ge",
    "ha",
    "ji",
    "ma",
    "ne",
    "pi",
    "qu",
    "ri",
    "sa",
    "ti",
    "va",
    "xe",
    "yo",
    "zu",
]


# --- the corpus ----------------------------------------------------------------------------


class Corpus:
    """A deterministic Zipf vocabulary and the words of each message."""

    def __init__(self, seed: int, size: int = 50_000) -> None:
        rnd = random.Random(seed)
        words: dict[str, None] = {}
        while len(words) < size:
            words["".join(rnd.choices(SYLLABLES, k=rnd.choice((2, 2, 3, 3, 4))))] = None
        self.vocab = list(words)
        self.cum = list(itertools.accumulate(1 / (i + 1) ** 1.07 for i in range(size)))
        self.rnd = rnd

    def message(self) -> str:
        n = int(self.rnd.gauss(44, 14))
        return " ".join(self.rnd.choices(self.vocab, cum_weights=self.cum, k=max(3, n)))

    def title(self) -> str:
        return " ".join(self.rnd.choices(self.vocab[:3000], k=4))

    def queries(self, ctx: Context, n: int, member: str | None = None) -> list[str]:
        """Typical recall queries: one to three words someone remembers from one message.

        Words are drawn from a stored message (of ``member``'s sessions, when
        given: a member recalls its own experience), by frequency band:
        mid-frequency single words, pairs and triples of common content words,
        and rare words.
        """
        rank = {word: i for i, word in enumerate(self.vocab)}
        rnd = random.Random(n)
        top = int(
            ctx.store.read(lambda c: c.exec_driver_sql("SELECT max(id) FROM message").scalar())
        )
        bands = [((200, 5000), 1)] * 3 + [((50, 2000), 2)] * 4 + [((20, 1000), 3)] * 2
        bands += [((5000, 50_000), 1)]
        out: list[str] = []
        while len(out) < n:
            (lo, hi), k = bands[len(out) % len(bands)]
            mid = rnd.randrange(1, top + 1)
            sql = "SELECT text FROM message WHERE id = :id"
            if member is not None:
                sql = (
                    "SELECT m.text FROM message m JOIN attribution a ON a.session_id = "
                    "m.session_id WHERE m.id = :id AND a.member = :member"
                )
            found = ctx.store.read(
                lambda c, mid=mid, sql=sql: c.execute(
                    text(sql), {"id": mid, "member": member}
                ).scalar()
            )
            words = sorted({w for w in (found or "").split() if lo <= rank.get(w, -1) < hi})
            if len(words) >= k:
                out.append(" ".join(rnd.sample(words, k)))
        return out


def _session_rows(
    corpus: Corpus, n_sessions: int, tool_share: float
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    order = list(range(n_sessions))
    corpus.rnd.shuffle(order)  # a bulk import of history does not arrive in time order
    span = timedelta(days=730).total_seconds()
    for s in order:
        sid = f"s{s:012x}"
        start = NOW - timedelta(seconds=span * (1 - s / n_sessions)) - timedelta(hours=1)
        session = {
            "id": sid,
            "harness": "claude-code",
            "native_id": f"bench-{s}",
            "cwd": f"/work/project{s % 12}",
            "models": [],
            "started_at": start,
            "ended_at": start + timedelta(seconds=40 * PER_SESSION),
            "title": corpus.title(),
            "title_rank": 1,
            "message_count": PER_SESSION,
            "reasoning_tokens": 0,
            "source_path": "/bench",
            "imported_at": NOW,
            "updated_at": NOW,
            **dict.fromkeys(TOKENS, 0),
        }
        messages = []
        for q in range(PER_SESSION):
            error = corpus.rnd.random() < 0.02
            message = {
                "session_id": sid,
                "seq": q,
                "key": f"k{q}",
                "role": "tool" if error else ("user", "assistant")[q % 2],
                "at": start + timedelta(seconds=40 * q),
                "text": corpus.message(),
                "sidechain": False,
                "synthetic": False,
                "kind": "tool_error" if error else "text",
                "ruleset": "bench",
            }
            if not error:
                message.update(_tool_part(corpus, q, tool_share))
            messages.append(message)
        yield session, messages


def _tool_part(corpus: Corpus, q: int, share: float) -> dict[str, Any]:
    """A tool call (half of ``share``: an Edit, its whole input as JSON with line breaks) or a
    tool's output (the other half: three messages' words on three lines), else nothing."""
    roll = corpus.rnd.random()
    if roll < share / 2:
        lines = "\n".join(corpus.message() for _ in range(2))
        args = {"file_path": f"src/mod{q}.py", "old_string": corpus.message(), "new_string": lines}
        return {
            "text": "",
            "role": "assistant",
            "kind": "tool_use",
            "tool": "Edit",
            "tool_input": f"src/mod{q}.py",
            "tool_args": json.dumps(args, ensure_ascii=False),
        }
    if roll < share:
        output = "\n".join(corpus.message() for _ in range(3))
        return {
            "text": "",
            "role": "tool",
            "kind": "tool_result",
            "tool": "Bash",
            "tool_result": output,
        }
    return {}


def populate(ctx: Context, n_messages: int, seed: int, tool_share: float = 0.0) -> None:
    """Sessions, messages and their attribution (classification events, then derived);
    ``tool_share`` of the messages are tool calls or tool outputs."""

    corpus = Corpus(seed)
    m_table = MESSAGE
    n_sessions = max(1, n_messages // PER_SESSION)
    batch_s: list[dict[str, Any]] = []
    batch_m: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []

    def flush(conn: Connection) -> None:
        conn.execute(insert(SESSION), batch_s)
        conn.execute(insert(m_table), batch_m)

    postgres = ctx.store.engine.dialect.name == "postgresql"
    if postgres:  # loading is not what is measured: build the GIN index once at the end
        ctx.store.write(lambda c: c.exec_driver_sql("DROP INDEX ix_message_text_fts"))
    for n, (session, messages) in enumerate(_session_rows(corpus, n_sessions, tool_share)):
        batch_s.append(session)
        batch_m.extend({**EMPTY_TOOL, **m} for m in messages)
        owner = int(session["native_id"].split("-")[1])
        if owner % 10:
            events.append(
                {
                    "session_id": session["id"],
                    "action": "member",
                    "member": MEMBERS[owner % 5],
                    "actor": "owner",
                    "at": NOW,
                    "note": "",
                }
            )
        if len(batch_m) >= 50_000 or n == n_sessions - 1:
            ctx.store.write(flush)
            batch_s, batch_m = [], []
    ctx.store.write(lambda c: c.execute(insert(CLASSIFICATION), events))
    ctx.store.write(lambda c: attribution.rebuild(c, None))
    if postgres:
        ctx.store.write(
            lambda c: c.exec_driver_sql(
                "CREATE INDEX ix_message_text_fts ON message "
                f"USING gin (to_tsvector({fts.PG_CONFIG}, {DOCUMENT}))"
            )
        )
    ctx.store.write(lambda c: c.exec_driver_sql("ANALYZE"))
