"""Looking after a store: ``viva doctor``, ``viva backup``, ``viva restore``."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from viva_store.access import Actor, require_owner
from viva_store.clock import now as clock_now
from viva_store.config import Config
from viva_store.errors import VivaError
from viva_store.maintenance import doctor as checks
from viva_store.maintenance.backup import BackupRecord, RestoreRecord, backup, restore

__all__ = ["BackupRecord", "RestoreRecord", "backup", "doctor", "restore"]

NEAR_RETENTION_DAYS = 7
"""How close to a harness's retention the oldest file must be to be worth a warning."""


def store_report(config: Config) -> tuple[dict[str, Any], str | None]:
    """The store's engine, schema and last import, read without creating, upgrading or
    touching it (a SQLite file is opened read-only); and the PostgreSQL server's version
    when it is one."""
    from viva_store.db import engine as db_engine
    from viva_store.db.migrate import current_revision, head_revision
    from viva_store.db.schema import IMPORT_RUN

    url = make_url(config.db_url)
    report: dict[str, Any] = {
        "url": url.render_as_string(hide_password=True),
        "engine": url.get_backend_name(),
        "exists": True,
        "schema": None,
        "head": head_revision(),
        "last_import": None,
        "error": None,
    }
    if config.is_sqlite and url.database and not os.path.exists(url.database):
        report["exists"] = False
        return report, None
    server: str | None = None
    try:
        engine = (
            create_engine(f"sqlite:///file:{url.database}?mode=ro&uri=true")
            if config.is_sqlite
            else db_engine.make_engine(config.db_url)
        )
        try:

            def read(conn: Any) -> tuple[Any, ...]:
                version = (
                    conn.execute(text("SHOW server_version")).scalar()
                    if conn.dialect.name == "postgresql"
                    else None
                )
                schema = current_revision(conn)
                last = None
                if schema is not None:
                    last = conn.execute(
                        select(IMPORT_RUN).order_by(IMPORT_RUN.c.finished_at.desc()).limit(1)
                    ).first()
                return version, schema, last

            server, report["schema"], last = db_engine.read(engine, read)
        finally:
            engine.dispose()
    except (SQLAlchemyError, VivaError, OSError) as exc:
        report["error"] = str(exc).splitlines()[0]
        return report, None
    if last is not None:
        report["last_import"] = {
            "id": last.id,
            "finished_at": _utc(last.finished_at),
            "problems": len(last.problems),
        }
    return report, server


def doctor(config: Config, actor: Actor) -> dict[str, Any]:
    """The whole report, JSON-ready (owner only: it shows every path and root)."""
    require_owner(actor, "read the doctor's report")
    now = clock_now()
    versions = checks.versions()
    found = checks.paths(config)
    store, versions["postgresql"] = store_report(config)
    report: dict[str, Any] = {
        "versions": versions,
        "hyperscan": checks.hyperscan(),
        "store": store,
        "paths": found,
        "config": {
            "file": str(config.config_file),
            "exists": config.config_file.is_file(),
            "errors": checks.config_errors(config),
        },
        "roots": checks.roots(config, now),
        "launch_journals": checks.launch_journals(config),
    }
    report["problems"] = problems(report)
    jsonable: dict[str, Any] = _jsonable(report)
    return jsonable


def problems(report: dict[str, Any]) -> list[str]:
    """What in the report needs the user's attention, one line each."""
    out: list[str] = []
    store = report["store"]
    if store["error"]:
        out.append(f"the store does not open: {store['error']}")
    elif store["schema"] and store["schema"] > store["head"]:
        out.append(f"the store's schema {store['schema']} is newer than this Viva's")
    if not report["versions"]["sqlite_fts5"]:
        out.append("this Python's SQLite has no FTS5: `viva recall` on SQLite cannot search")
    for entry in report["paths"]:
        mode = entry["mode"]
        private = "0600" if entry["name"] in ("database", "config") else "0700"
        if mode and int(mode, 8) & 0o077:
            out.append(f"{entry['path']} is open to other users (mode {mode}; chmod {private} it)")
    out.extend(report["config"]["errors"])
    for root in report["roots"]:
        if "error" in root:
            out.append(root["error"])
            continue
        days, keep = root["oldest_days"], root["retention_days"]
        if days is not None and keep is not None and days >= keep - NEAR_RETENTION_DAYS:
            out.append(
                f"{root['harness']} keeps files {keep} days; the oldest in {root['path']} is "
                f"{days:g} days old: `viva import` keeps what is not recovered"
            )
    for journal in report["launch_journals"]:
        if "error" in journal:
            out.append(journal["error"])
        elif not journal["running"]:
            out.append(
                f"a launch in {journal['cwd']} died: `viva launch --repair --cwd {journal['cwd']}`"
            )
    return out


def _utc(at: datetime) -> datetime:
    """SQLite hands back the UTC instants Viva stores without their zone."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def backup_now(config: Config, actor: Actor, target: Any) -> BackupRecord:
    """:func:`backup` at the store clock's now (names a backup put in a folder)."""
    return backup(config, actor, target, clock_now())
