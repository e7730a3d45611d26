"""Recall over skills, principles and knowledge items: nothing is deleted, so nothing stops
being findable.

Besides sessions, :func:`viva_store.recall.search.recall` finds a member's
skills — forgotten ones too (DESIGN I2) — and its principles, superseded,
retired and rejected versions too (DESIGN I8), each marked with its status.
Both sets are small (tens to hundreds per member), so they are matched here,
token by token, rather than through the full-text index.

* A skill matches on its name, description and tags (team knowledge); its
  body is not searched here — reading a body is what ``viva skill show`` is
  for, and a member's read of it is a recorded use.
* A principle version matches on its wording, approved wording and rationale.
* A knowledge item matches on its summary and body; its importance is the item's, its
  recency its last use (or when it was proposed); ``marked`` says its status in words.

Scope: a member sees its own skill set and principles, and of knowledge its own items
and the team's admitted ones (project knowledge only in a task brief of that project);
the owner one member's or everyone's — the same :func:`viva_store.access.member_scope`
as everywhere else, inside the queries. The rows read are remembered per
connection and actor until anything is committed
(:func:`viva_store.recall.changes.remembered`): the next search only matches.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, select

from viva_store.access import member_scope
from viva_store.clock import as_utc
from viva_store.db.schema import MEMBER_SKILL, SKILL
from viva_store.knowledge.load import load as knowledge_load
from viva_store.knowledge.model import SHARED_KINDS, Item, live, words
from viva_store.principles.load import candidates, load
from viva_store.principles.state import APPROVED
from viva_store.recall import changes
from viva_store.recall.query import ParsedQuery, normalize
from viva_store.recall.ranking import RecallParams, combine, recency
from viva_store.recall.records import RecallItem
from viva_store.recall.snippet import Snippet, make_snippet
from viva_store.store import Context

_TOKEN = re.compile(r"(?:[^\W_]|[\ue000-\uf8ff])+")


@lru_cache(maxsize=4096)
def _terms_of(text: str) -> frozenset[str]:
    """The normalized tokens of ``text`` (skills and principles rarely change: cached)."""
    return frozenset(t.lower() if t.isascii() else normalize(t) for t in _TOKEN.findall(text))


def _coverage(terms: frozenset[str], texts: Iterable[str]) -> float:
    """The share of the query's terms found in ``texts``."""
    found = frozenset().union(*(_terms_of(text) for text in texts))
    return len(terms & found) / len(terms) if terms else 0.0


def _matches(coverage: float, any_token: bool) -> bool:
    return coverage > 0 if any_token else coverage >= 1.0


def _age(now: datetime, at: datetime | None) -> float | None:
    return (now - as_utc(at)).total_seconds() / 86400 if at is not None else None


def _ranked(
    kind: str,
    item_id: str,
    member: str,
    marked: str,
    at: datetime | None,
    snippet: Snippet,
    factors: tuple[float, float, float],
    params: RecallParams,
) -> RecallItem:
    """A skill, principle or knowledge hit, scored by the same three factors as a
    session's (relevance, recency, importance)."""
    rel, rec, imp = factors
    return RecallItem(
        kind=kind,
        id=item_id,
        member=member,
        marked=marked,
        at=at,
        score=round(combine(rel, rec, imp, params), 6),
        snippet=snippet.text,
        highlights=snippet.highlights,
        factors={"relevance": rel, "recency": round(rec, 6), "importance": imp},
    )


def _skill_rows(ctx: Context, conn: Connection, target: str | None) -> list[Any]:
    query = (
        select(
            MEMBER_SKILL.c.member,
            MEMBER_SKILL.c.status,
            MEMBER_SKILL.c.w_ref,
            MEMBER_SKILL.c.last_used_at,
            MEMBER_SKILL.c.updated_at,
            SKILL,
        )
        .join(SKILL, SKILL.c.name == MEMBER_SKILL.c.skill)
        .where(member_scope(ctx.actor, MEMBER_SKILL.c.member))
    )
    if target is not None:
        query = query.where(MEMBER_SKILL.c.member == target)
    return list(conn.execute(query))


def skills(
    ctx: Context,
    conn: Connection,
    parsed: ParsedQuery,
    target: str | None,
    any_token: bool,
    params: RecallParams,
    now: datetime,
    stamp: Hashable | None = None,
) -> list[RecallItem]:
    """Skills of the member's set (or every member's, for the owner) matching the query.

    Importance is the skill's stored weight, capped at 1; ``marked`` is
    ``forgotten`` for a skill that left the set.
    """
    key = ("recall.skills", ctx.actor, target)
    rows = changes.remembered(conn, key, lambda: _skill_rows(ctx, conn, target), stamp)
    out = []
    for row in rows:
        texts = (row.name.replace("-", " "), row.description, " ".join(row.tags or ()))
        rel = _coverage(parsed.terms, texts)
        if not _matches(rel, any_token):
            continue
        at = row.last_used_at or row.updated_at
        rec = recency(_age(now, at), params.half_life_days)
        imp = min(1.0, max(0.0, float(row.w_ref or 0.0)))
        snippet = make_snippet(f"{row.name}: {row.description}", parsed.terms)
        out.append(
            _ranked(
                "skill",
                row.name,
                row.member,
                row.status,
                as_utc(at) if at is not None else None,
                snippet,
                (rel, rec, imp),
                params,
            )
        )
    return out


def principles(
    ctx: Context,
    conn: Connection,
    parsed: ParsedQuery,
    target: str | None,
    any_token: bool,
    params: RecallParams,
    now: datetime,
    stamp: Hashable | None = None,
) -> list[RecallItem]:
    """Principle versions matching the query, each marked with its status.

    ``marked``: ``active`` (the version in force), ``superseded`` (approved
    once, replaced by another version), ``retired`` (approved once, the
    principle no longer in force), or the candidate's status (``pending``,
    ``deferred``, ``rejected``, ``merged``). Importance: 1 for the version in
    force, 0.5 for any other.
    """
    key = ("recall.principles", ctx.actor, target)
    found = changes.remembered(conn, key, lambda: candidates(load(conn, ctx, member=target)), stamp)
    out = []
    for cand in found:
        active = cand.active_version == cand.version and cand.status == APPROVED
        wording = cand.active_text if active and cand.active_text else cand.text
        rel = _coverage(parsed.terms, (wording, cand.text, cand.rationale))
        if not _matches(rel, any_token):
            continue
        marked = cand.status
        if active:
            marked = "active"
        elif cand.status == APPROVED:  # approved once, not in force now
            marked = "retired" if cand.active_version is None else "superseded"
        rec = recency(_age(now, cand.proposed_at), params.half_life_days)
        imp = 1.0 if active else 0.5
        snippet = make_snippet(wording, parsed.terms)
        out.append(
            _ranked(
                "principle",
                cand.id,
                cand.member,
                marked,
                cand.proposed_at,
                snippet,
                (rel, rec, imp),
                params,
            )
        )
    return out


def knowledge_items(
    ctx: Context,
    conn: Connection,
    parsed: ParsedQuery,
    target: str | None,
    any_token: bool,
    params: RecallParams,
    now: datetime,
    stamp: Hashable | None = None,
) -> list[RecallItem]:
    """Knowledge items matching the query (retracted and superseded ones too, so marked)."""
    key = ("recall.knowledge", ctx.actor, target, parsed.terms)
    found = changes.remembered(
        conn, key, lambda: _knowledge_rows(ctx, conn, target, parsed.terms), stamp
    )
    out = []
    for item in found:
        rel = _coverage(parsed.terms, (item.summary, item.body))
        if not _matches(rel, any_token):
            continue
        last = item.uses[-1].at if item.uses else item.created_at
        rec = recency(_age(now, last), params.half_life_days)
        imp = min(1.0, max(0.0, item.importance))
        snippet = make_snippet(f"{item.summary}: {item.body}" if item.body else item.summary,
                               parsed.terms)  # fmt: skip
        out.append(
            _ranked(
                "knowledge",
                item.id,
                item.member,
                words(item),
                last,
                snippet,
                (rel, rec, imp),
                params,
            )
        )
    return out


def _knowledge_rows(
    ctx: Context, conn: Connection, target: str | None, terms: Iterable[str]
) -> list[Item]:
    """Items mentioning a term — the owner: every one (``target``'s own and the shared
    ones, when one is named); a member: its own and the shared kinds that passed the gate."""
    words = list(terms)
    # the ASCII terms narrow the read in SQL; others (normalized) are matched here only
    items = knowledge_load(conn, ctx, mentioning=words if all(w.isascii() for w in words) else ())
    if ctx.actor.is_owner:
        if target is None:
            return items
        return [i for i in items if i.member == target or i.kind in SHARED_KINDS]
    return [
        i for i in items if i.member == ctx.actor.member or (i.kind in SHARED_KINDS and live(i))
    ]
