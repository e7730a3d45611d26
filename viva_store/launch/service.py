"""``viva launch``: start a member in a harness and close the loop (DESIGN §1, I5, I6, §3).

projection → session → recovery → attribution → skill uses → weights:

1. the owner launches; the member, harness, folder and executable are checked, and an
   earlier launch that never restored its files blocks the start (``--repair``);
2. the projection is chosen for the task (at most 10 skills, with reasons, and the
   active principles), a grant is minted and an execution recorded — for Claude Code
   with the session id Viva passes as ``--session-id``, so attribution is exact;
3. the projection is written into the harness's places (:mod:`viva_store.launch`) and
   the harness runs in the foreground with ``VIVA_GRANT``, ``VIVA_MEMBER`` and
   ``VIVA_EXECUTION`` in its environment and ``viva mcp`` registered on its command line;
4. on exit, whatever the exit: the user's files are restored, the execution is finished
   (exit status → outcome) and the grant revoked; then that harness's files are
   imported, which attributes the session by the execution record and credits the
   skill uses its transcript shows, valued by the outcome.

:func:`preview` (``--dry-run``) shows all of it and changes nothing.
"""

from __future__ import annotations

import os
import shlex
import shutil
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, select

from viva_store.access import require_owner
from viva_store.db.schema import ATTRIBUTION, CLASSIFICATION, SESSION, SKILL_EVENT
from viva_store.errors import InvalidInput, NotFound
from viva_store.importing.pipeline import ImportSummary, run_import
from viva_store.launch import files
from viva_store.launch.process import Guard
from viva_store.launch.records import LaunchPlan, LaunchResult, Repaired
from viva_store.launch.register import registration, viva_argv, viva_command
from viva_store.launch.render import LAYOUTS, LaunchView, Layout, SkillDoc, command, render
from viva_store.launch.render import shell_line as _shell
from viva_store.members.executions import finish_execution, get_execution, start_execution
from viva_store.members.grants import DEFAULT_TTL, issue_grant, list_grants, parse_ttl, revoke_grant
from viva_store.members.roster import get_member
from viva_store.redact.engine import redact_text
from viva_store.skills.library import get_skill
from viva_store.skills.project import project
from viva_store.skills.records import Projection
from viva_store.skills.uses import credit_execution
from viva_store.store import Context
from viva_store.triage.launched import finish_launched

__all__ = [
    "LaunchPlan",
    "LaunchResult",
    "Repaired",
    "command_line",
    "launch",
    "preview",
    "repair",
]

UNKNOWN_EXIT = 255
"""Recorded by ``--repair`` for a launch that died before seeing its harness exit."""
PLACEHOLDERS = {
    "VIVA_GRANT": "<grant token, minted at launch>",
    "VIVA_MEMBER": "",
    "VIVA_EXECUTION": "<execution id, recorded at launch>",
}
SESSION_PLACEHOLDER = "<session uuid, chosen at launch>"


def layout(harness: str) -> Layout:
    """The launch layout of ``harness`` (Claude Code and Codex are launchable)."""
    if harness not in LAYOUTS:
        raise InvalidInput(
            f"viva launch starts {' and '.join(LAYOUTS)}; {harness!r} is read by "
            "`viva import` but cannot be launched yet"
        )
    return LAYOUTS[harness]


def executable(ctx: Context, lay: Layout, env: Mapping[str, str]) -> tuple[str | None, str]:
    """The harness's program — ``[launch] <harness>`` in config.toml, else its name on
    ``PATH`` — as ``(absolute path or None, why not)``."""
    config = ctx.store.config
    configured = config.section("launch").get(lay.harness)
    if configured is not None and (not isinstance(configured, str) or not configured.strip()):
        raise InvalidInput(f"config.toml [launch] {lay.harness} must be a path string")
    name = os.path.expanduser(configured.strip()) if configured else lay.executable
    found = shutil.which(name, path=env.get("PATH", os.defpath))
    if found:
        return str(Path(found).absolute()), ""
    if configured:
        return (
            None,
            f"{config.config_file} [launch] {lay.harness} = {name!r}: not an executable",
        )
    return None, (
        f"{lay.executable} is not on PATH; install it or set [launch] {lay.harness} = "
        f'"/path/to/{lay.executable}" in {config.config_file}'
    )


def command_line(member: str, harness: str, task: str = "", cwd: str | None = None) -> str:
    """The ``viva launch`` command for a member (the TUI prints or runs it)."""
    argv = ["viva", "launch", member, "--harness", harness]
    if task:
        argv += ["--task", task]
    if cwd:
        argv += ["--cwd", cwd]
    return shlex.join(argv)


def _folder(cwd: str | Path | None) -> Path:
    where = Path(os.path.realpath(Path(cwd).expanduser() if cwd else Path.cwd()))
    if not where.is_dir():
        raise InvalidInput(f"--cwd {cwd}: not a folder")
    return where


def _check_args(lay: Layout, args: Sequence[str]) -> None:
    for arg in args:
        flag = arg.split("=", 1)[0]
        if flag in lay.forbidden_args:
            why = "Viva sets it" if flag == lay.session_flag else "use viva's --cwd"
            raise InvalidInput(f"harness argument {flag}: {why} (attribution depends on it)")


def _journals(ctx: Context) -> Path:
    return ctx.store.config.home / "launches"


def _view(
    ctx: Context, lay: Layout, member: str, p: Projection, execution_id: str, kept: Sequence[str]
) -> LaunchView:
    docs = tuple(
        SkillDoc(s.name, s.description, get_skill(ctx, s.name).body, s.reason)
        for s in p.skills
        if s.name not in kept
    )
    return LaunchView(
        layout=lay,
        member=get_member(ctx, member),
        task=p.task,
        principles=p.principles,
        knowledge=p.knowledge,
        skills=docs,
        unprojected=tuple(kept),
        execution_id=execution_id,
        viva=viva_command(os.environ),
    )


def _plan(
    ctx: Context,
    member: str,
    harness: str,
    task: str,
    cwd: str | Path | None,
    args: Sequence[str],
    record: bool,
    ids: Mapping[str, str],
) -> tuple[LaunchPlan, LaunchView]:
    require_owner(ctx.actor, "launch members")
    lay = layout(harness)
    _check_args(lay, args)
    rec = get_member(ctx, member)
    where = _folder(cwd)
    program, missing = executable(ctx, lay, os.environ)
    warnings = [missing] if missing else []
    if harness not in rec.harnesses:
        warnings.append(f"{member}'s member.yaml does not list {harness} among its harnesses")
    journals = files.pending(_journals(ctx), where)
    blockers = files.problems(where, lay.instruction_file, journals)
    from viva_store.engagement.service import entry_rules

    task_project = entry_rules(ctx).project_of(str(where))  # the folder names the project
    recorded = record and not blockers and program is not None
    p = project(ctx, member, task, record=recorded, project=task_project)
    view = _view(ctx, lay, member, p, ids["VIVA_EXECUTION"], [])
    planned, kept = files.plan(where, render(view))
    if kept:
        view = _view(ctx, lay, member, p, ids["VIVA_EXECUTION"], kept)
        planned, _ = files.plan(where, render(view))
    env = {**ids, "VIVA_MEMBER": member}
    mcp = registration(harness, viva_argv(os.environ))
    argv = command(lay, program or lay.executable, ids.get("session"), mcp.harness_args, args)
    env_shown = {k: env[k] for k in ("VIVA_GRANT", "VIVA_MEMBER", "VIVA_EXECUTION")}
    plan = LaunchPlan(
        member=member,
        harness=harness,
        cwd=str(where),
        task=p.task,
        executable=program or lay.executable,
        found=program is not None,
        command=tuple(argv),
        env=env_shown,
        shell=_shell(env_shown, argv),
        projection=p,
        files=tuple({"path": f.path, "action": f.action, "bytes": f.bytes} for f in planned),
        kept=tuple(kept),
        block=render(view).block,
        warnings=tuple(warnings),
        problems=tuple(blockers),
        mcp=mcp,
    )
    return plan, view


def preview(
    ctx: Context,
    member: str,
    harness: str,
    task: str = "",
    cwd: str | Path | None = None,
    args: Sequence[str] = (),
) -> LaunchPlan:
    """Owner: what ``viva launch`` would project and run. Changes nothing at all."""
    ids = {**PLACEHOLDERS, "session": SESSION_PLACEHOLDER}
    plan, _ = _plan(ctx, member, harness, redact_text(task)[0], cwd, args, False, ids)
    return plan


def launch(
    ctx: Context,
    member: str,
    harness: str,
    task: str = "",
    cwd: str | Path | None = None,
    args: Sequence[str] = (),
    started: Callable[[LaunchPlan], None] | None = None,
) -> LaunchResult:
    """Owner: launch ``member`` in ``harness`` and recover its session when it exits.

    ``started`` is called with the plan just before the harness starts (the CLI prints
    a line). Refuses — before any change — when the harness cannot be found or an
    earlier launch in the folder has not restored its files.
    """
    task = redact_text(task)[0]  # the task is stored and written into the folder (I4)
    session = str(uuid.uuid4()) if layout(harness).session_flag else None
    probe, _ = _plan(ctx, member, harness, task, cwd, args, False, dict(PLACEHOLDERS))
    if probe.problems:
        raise InvalidInput(probe.problems[0])
    if not probe.found:
        raise NotFound(probe.warnings[0])
    ttl_text = ctx.store.config.section("launch").get("grant_ttl")
    ttl = parse_ttl(str(ttl_text)) if ttl_text else DEFAULT_TTL
    status = UNKNOWN_EXIT
    restored = files.Restored()
    with Guard() as guard:  # from the grant's birth to its revocation
        note = f"viva launch {member} --harness {harness} in {probe.cwd}"
        grant = issue_grant(ctx, member, ttl, note=note)
        try:
            execution = start_execution(ctx, member, harness, probe.cwd, task, session, grant.id)
        except BaseException:
            revoke_grant(ctx, grant.id, "the launch could not start")
            raise
        ids = {"VIVA_GRANT": f"<grant {grant.id}>", "VIVA_EXECUTION": execution.id}
        try:
            plan, view = _plan(
                ctx, member, harness, task, cwd, args, True, {**ids, "session": session or ""}
            )
            meta = {"execution_id": execution.id, "grant_id": grant.id, "member": member}
            journal, original = files.apply(
                Path(plan.cwd), render(view), _journals(ctx), {**meta, "harness": harness}
            )
            try:
                if started is not None:
                    started(plan)
                env = {
                    **os.environ,
                    "VIVA_GRANT": grant.token,
                    "VIVA_MEMBER": member,
                    "VIVA_EXECUTION": execution.id,
                }
                status = guard.run(plan.command, env, Path(plan.cwd))
            finally:
                restored = files.restore(journal, original)
        finally:
            _close(ctx, execution.id, grant.id, status)
    return _recover(ctx, execution.id, grant.id, restored)


def _close(ctx: Context, execution_id: str, grant_id: str, status: int) -> None:
    """Finish the execution (exit status → outcome) and revoke its grant, whatever fails."""
    try:
        finish_execution(ctx, execution_id, status)
    except NotFound:
        pass  # already finished (a repair ran meanwhile)
    finally:
        revoke_grant(ctx, grant_id, "the launched session ended")


def _recover(
    ctx: Context, execution_id: str, grant_id: str, restored: files.Restored
) -> LaunchResult:
    """Import the harness's files now; the session is attributed and its uses credited."""
    execution = get_execution(ctx, execution_id)
    summary = _import(ctx, execution.harness)
    credit_execution(ctx, execution_id)  # a session imported while it ran (a watcher)

    def work(conn: Connection) -> tuple[Any, list[dict[str, Any]]]:
        row = conn.execute(
            select(ATTRIBUTION.c.session_id, ATTRIBUTION.c.member, ATTRIBUTION.c.status)
            .join_from(
                CLASSIFICATION, ATTRIBUTION, ATTRIBUTION.c.session_id == CLASSIFICATION.c.session_id
            )
            .where(
                CLASSIFICATION.c.execution_id == execution_id,
                CLASSIFICATION.c.action == "execution",
            )
            .order_by(CLASSIFICATION.c.id.desc())
        ).first()
        uses = [
            {"skill": r.skill, "value": r.value, "outcome": r.outcome}
            for r in conn.execute(
                select(SKILL_EVENT.c.skill, SKILL_EVENT.c.value, SKILL_EVENT.c.outcome)
                .where(SKILL_EVENT.c.execution_id == execution_id, SKILL_EVENT.c.kind == "used")
                .order_by(SKILL_EVENT.c.id)
            )
        ]
        return row, uses

    row, uses = ctx.store.read(work)
    native = execution.native_session_id
    if row is not None:
        native = ctx.store.read(lambda c: _native_id(c, row.session_id)) or native
    return LaunchResult(
        execution=execution,
        session_id=row.session_id if row else None,
        native_session_id=native,
        attributed_to=row.member if row and row.status == "attributed" else None,
        uses=tuple(uses),
        grant_revoked=_revoked(ctx, grant_id),
        restored=tuple(restored.paths),
        notes=tuple(restored.notes),
        imported=summary.to_json(),
    )


def _native_id(conn: Connection, session_id: str) -> str | None:
    value = conn.execute(select(SESSION.c.native_id).where(SESSION.c.id == session_id)).scalar()
    return None if value is None else str(value)


def _revoked(ctx: Context, grant_id: str) -> bool:
    return any(g.id == grant_id and g.revoked_at is not None for g in list_grants(ctx))


def _import(ctx: Context, harness: str) -> ImportSummary:
    run = run_import(ctx, [harness])
    while True:
        try:
            next(run)
        except StopIteration as done:
            summary: ImportSummary = done.value
            return summary


def repair(ctx: Context, cwd: str | Path | None = None) -> list[Repaired]:
    """Owner: restore the files of launches that died (their journals), close them.

    A launch still running is left alone. Its execution is finished with exit status
    255 (a failure: Viva never saw the harness exit), its grant revoked, and the
    harness imported. With no journal for ``cwd``, a Viva block left in its
    ``CLAUDE.md`` / ``AGENTS.md`` and the projected skill folders are removed (best effort).
    Stored sessions an unclaimed execution record attributes are matched in any case
    (what a killed import of an older Viva left).
    """
    require_owner(ctx.actor, "repair launches")
    where = _folder(cwd) if cwd is not None else None
    out: list[Repaired] = []
    journals = files.pending(_journals(ctx), where)
    for j in journals:
        if j.running:
            note = f"still running (pid {j.pid}); left alone"
            out.append(Repaired(j.execution_id, j.member, j.cwd, (), (note,), None))
            continue
        restored = files.restore(j)
        _close(ctx, j.execution_id, j.grant_id, UNKNOWN_EXIT)
        result = _recover(ctx, j.execution_id, j.grant_id, restored)
        out.append(Repaired(j.execution_id, j.member, j.cwd, result.restored, result.notes, result))
    if where is not None and not journals:
        places = [(lay.instruction_file, lay.skills_dir) for lay in LAYOUTS.values()]
        done = files.strip_orphans(where, places)
        if done.paths or done.notes:
            out.append(Repaired(None, None, str(where), tuple(done.paths), tuple(done.notes), None))
    finish_launched(ctx)
    return out
