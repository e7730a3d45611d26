"""``viva suggest``: a member per queued session, with a calibrated confidence.

Learned locally from the owner's own past decisions (sessions attributed by
the owner or by an execution record). Below the threshold nothing is
proposed and the reason says so. Nothing here changes attribution except
:func:`accept_suggestions`, which the owner runs explicitly (DESIGN job 1).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from viva_store.access import require_owner
from viva_store.db.schema import ATTRIBUTION, MESSAGE, SESSION
from viva_store.errors import InvalidInput
from viva_store.members.roster import member_names
from viva_store.records import JsonRecord
from viva_store.registry import reader
from viva_store.sessions.service import resolve_many
from viva_store.store import Context
from viva_store.triage.classify import classify
from viva_store.triage.suggest_model import Suggester, features, train

MIN_TRAINING = 20
FIRST_PROMPTS = 3
IN_BATCH = 500


@dataclass(frozen=True, slots=True)
class Suggestion(JsonRecord):
    """A proposal for one queued session (``member`` None: nothing proposed)."""

    session_id: str
    member: str | None
    confidence: float
    best_guess: str | None
    reason: str


def _first_prompts(conn: Connection, ids: list[str]) -> dict[str, list[str]]:
    texts: dict[str, list[str]] = defaultdict(list)
    for start in range(0, len(ids), IN_BATCH):
        part = ids[start : start + IN_BATCH]
        rows = conn.execute(
            select(MESSAGE.c.session_id, MESSAGE.c.text)
            .where(
                MESSAGE.c.session_id.in_(part),
                MESSAGE.c.role == "user",
                MESSAGE.c.synthetic.is_(False),
            )
            .order_by(MESSAGE.c.session_id, MESSAGE.c.seq)
        )
        for row in rows:
            bucket = texts[row.session_id]
            if len(bucket) < FIRST_PROMPTS:
                bucket.append(row.text[:500])
    return texts


def _features(rows: Iterable[Any], prompts: dict[str, list[str]]) -> dict[str, list[str]]:
    return {
        r.id: features(
            r.project, r.cwd, r.harness, r.git_branch, [r.title or "", *prompts.get(r.id, [])]
        )
        for r in rows
    }


def _load(ctx: Context) -> tuple[Suggester, list[tuple[str, list[str]]]]:
    def work(conn: Connection) -> tuple[Suggester, list[tuple[str, list[str]]]]:
        cols = (
            SESSION.c.id,
            SESSION.c.project,
            SESSION.c.cwd,
            SESSION.c.harness,
            SESSION.c.git_branch,
            SESSION.c.title,
        )
        joined = SESSION.outerjoin(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id)
        labelled = list(
            conn.execute(
                select(*cols, ATTRIBUTION.c.member)
                .select_from(joined)
                .where(
                    ATTRIBUTION.c.status == "attributed",
                    ATTRIBUTION.c.source.in_(("owner", "execution")),
                )
                .order_by(SESSION.c.started_at, SESSION.c.id)
            )
        )
        queued = list(
            conn.execute(
                select(*cols)
                .select_from(joined)
                .where((ATTRIBUTION.c.status.is_(None)) | (ATTRIBUTION.c.status == "unattributed"))
                .order_by(SESSION.c.started_at.desc(), SESSION.c.id)
            )
        )
        prompts = _first_prompts(conn, [r.id for r in labelled] + [r.id for r in queued])
        train_feats = _features(labelled, prompts)
        model = train([(train_feats[r.id], r.member) for r in labelled])
        queue_feats = _features(queued, prompts)
        return model, [(r.id, queue_feats[r.id]) for r in queued]

    return ctx.store.read(work)


@reader
def suggest(ctx: Context, min_confidence: float | None = None) -> list[Suggestion]:
    """Owner: a suggested member for every session in the triage queue."""
    require_owner(ctx.actor, "see triage suggestions")
    threshold = (
        float(ctx.store.config.section("triage").get("suggest_min_confidence", 0.6))
        if min_confidence is None
        else min_confidence
    )
    model, queue = _load(ctx)
    out: list[Suggestion] = []
    for sid, feats in queue:
        if model.trained_on < MIN_TRAINING:
            reason = (
                "not enough of your classifications to learn from yet "
                f"({model.trained_on} of {MIN_TRAINING})"
            )
            out.append(Suggestion(sid, None, 0.0, None, reason))
            continue
        guess = model.suggest(feats)
        if guess is None:
            out.append(Suggestion(sid, None, 0.0, None, "no model"))
            continue
        label, confidence = guess
        if confidence < threshold:
            reason = (
                f"not confident enough: best guess {label} at {confidence:.2f} < {threshold:.2f}"
            )
            out.append(Suggestion(sid, None, round(confidence, 3), label, reason))
        else:
            out.append(
                Suggestion(sid, label, round(confidence, 3), label, "similar to sessions you filed")
            )
    return out


@dataclass(frozen=True, slots=True)
class Accepted(JsonRecord):
    """What accepting suggestions did: the sessions filed, and those left with the reason."""

    applied: tuple[Suggestion, ...]
    skipped: tuple[Suggestion, ...]

    def to_json(self) -> dict[str, Any]:
        """Both lists as JSON objects."""
        return {
            "applied": [s.to_json() for s in self.applied],
            "skipped": [s.to_json() for s in self.skipped],
        }


def accept_suggestions(
    ctx: Context,
    min_confidence: float,
    refs: Sequence[str] = (),
    member: str | None = None,
) -> Accepted:
    """Owner: file each queued session as its suggestion says, when the suggestion reaches
    ``min_confidence`` (one event per session).

    ``refs`` (ids or unique prefixes) narrow to those sessions: one not waiting in the queue
    is refused. ``member`` narrows to the suggestions naming that member. A session left
    as it was comes back in ``skipped`` with the suggestion's reason.
    """
    require_owner(ctx.actor, "accept triage suggestions")
    if member is not None and member not in member_names(ctx):
        raise InvalidInput(f"no member named {member!r} (see `viva members`)")
    found = suggest(ctx, min_confidence)
    if refs:
        wanted = ctx.store.read(lambda c: resolve_many(c, ctx, refs))
        queued = {s.session_id: s for s in found}
        missing = [sid for sid in wanted if sid not in queued]
        if missing:
            raise InvalidInput(
                f"not waiting for triage: {', '.join(missing)} (see `viva sessions --unattributed`)"
            )
        found = [queued[sid] for sid in dict.fromkeys(wanted)]
    if member is not None:
        found = [
            s for s in found if s.member == member or (s.member is None and s.best_guess == member)
        ]
    chosen = [s for s in found if s.member is not None]
    by_member: dict[str, list[str]] = defaultdict(list)
    for s in chosen:
        assert s.member is not None
        by_member[s.member].append(s.session_id)
    for name, ids in sorted(by_member.items()):
        classify(ctx, ids, name, note="accepted suggestion")
    return Accepted(tuple(chosen), tuple(s for s in found if s.member is None))
