"""``viva status``: the store, the harness roots, the last import, retention warnings.

Retention matters: Claude Code and Gemini CLI delete their own transcripts
after 30 days by default. A file close to that age that Viva has not
recovered (or has changed since) is reported so the owner can import it in
time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from viva_store.access import require_owner
from viva_store.db.migrate import current_revision
from viva_store.db.schema import ATTRIBUTION, IMPORT_RUN, SESSION, SOURCE_FILE
from viva_store.importing.harness import registry
from viva_store.importing.paths import path_keys
from viva_store.store import Context

WARN_BEFORE = timedelta(days=7)


def store_status(ctx: Context) -> dict[str, Any]:
    """A JSON-ready report of the store and every harness root (owner only)."""
    require_owner(ctx.actor, "read the store's status")
    config = ctx.store.config

    def counts(conn: Any) -> dict[str, Any]:
        total = conn.execute(select(func.count()).select_from(SESSION)).scalar() or 0
        by_status = dict(
            conn.execute(
                select(ATTRIBUTION.c.status, func.count()).group_by(ATTRIBUTION.c.status)
            ).all()
        )
        known = {
            (r.harness, r.path_key): (r.size, r.mtime_ns) for r in conn.execute(select(SOURCE_FILE))
        }
        last = conn.execute(
            select(IMPORT_RUN).order_by(IMPORT_RUN.c.finished_at.desc()).limit(1)
        ).first()
        return {
            "schema": current_revision(conn),
            "total": total,
            "by_status": by_status,
            "known": known,
            "keys": path_keys(conn),
            "last": last,
        }

    data = ctx.store.read(counts)
    attributed = int(data["by_status"].get("attributed", 0))
    nobody = int(data["by_status"].get("nobody", 0))
    now = ctx.store.now()
    roots: list[dict[str, Any]] = []
    warnings: list[str] = []
    for harness in registry.names():
        for root in registry.roots(harness, None, config.section("roots")):
            files = pending = at_risk = 0
            exists = root.path.exists()
            if exists:
                for source in registry.discover(root):
                    try:
                        st = source.path.stat()
                    except OSError:
                        continue
                    files += 1
                    seen = data["keys"].lookup(data["known"], harness, str(source.path))
                    if seen != (
                        st.st_size,
                        st.st_mtime_ns,
                    ):
                        pending += 1
                        age = now - datetime.fromtimestamp(st.st_mtime, UTC)
                        days = registry.RETENTION_DAYS.get(harness)
                        if days is not None and age >= timedelta(days=days) - WARN_BEFORE:
                            at_risk += 1
            if at_risk:
                warnings.append(
                    f"{at_risk} {harness} file(s) in {root.path} are within a week of the "
                    f"{registry.RETENTION_DAYS[harness]}-day retention and not recovered: "
                    "run `viva import`"
                )
            roots.append(
                {
                    "harness": harness,
                    "path": str(root.path),
                    "origin": root.origin,
                    "exists": exists,
                    "files": files,
                    "pending": pending,
                }
            )
    last = data["last"]
    return {
        "store": {
            "url": make_url(config.db_url).render_as_string(hide_password=True),
            "home": str(config.home),
            "schema": data["schema"],
        },
        "sessions": {
            "total": data["total"],
            "attributed": attributed,
            "nobody": nobody,
            "unattributed": int(data["total"]) - attributed - nobody,
        },
        "last_import": None
        if last is None
        else {
            "id": last.id,
            "finished_at": last.finished_at.isoformat(),
            "counts": last.counts,
            "problems": len(last.problems),
        },
        "roots": roots,
        "warnings": warnings,
    }
