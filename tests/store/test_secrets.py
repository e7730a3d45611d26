"""DESIGN I4: planted secrets never reach disk, nor any CLI output.

Fake secrets are built at run time from each rule's example parts; they are
planted in every place a transcript can carry text (prompts, tool commands
and outputs, JSON-in-JSON arguments, titles, unknown record types, lines
that are not JSON at all) and then searched for in every byte of VIVA_HOME
(database, WAL, shared memory, config) and in what the CLI prints.
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import MetaData, select

from tests.cli.runner import run as cli
from tests.store_templates import TEAM, StoreTemplates
from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code, codex
from viva_store.importing.pipeline import run_import
from viva_store.redact import Rule
from viva_store.redact.rules import VIVA_RULES as RULES  # the rules with written examples
from viva_store.store import Context, Store


def secret_parts(rule: Rule) -> list[str]:
    """The secret substrings of a rule's example (context such as 'Bearer ' is not secret)."""
    example = rule.tp_example
    parts = [example[a:b] for a, b in rule.spans(example)]
    assert parts, rule.id
    return parts


def plant(root: Path, secrets: list[str]) -> None:
    """Write Claude Code and Codex sessions carrying each secret in many places."""
    for n, secret in enumerate(secrets):
        start = datetime(2026, 11, 1 + n % 27, 9, tzinfo=UTC)
        turns = (
            Turn(f"here is my key {secret} please use it", "ok"),
            Turn(
                "run it",
                "done",
                "Bash",
                {"command": f"curl -H 'x-api-key: {secret}' host"},
                f"env: {secret}",
            ),
        )
        path = claude_code(
            root / "claude",
            SessionSpec(
                f"{n:08d}-aaaa-4bbb-8ccc-{n:012d}",
                "/src/app",
                start,
                turns,
                "m",
                title=f"t {secret}",
            ),
        )
        with path.open("ab") as fh:
            fh.write(
                orjson.dumps(
                    {"type": "mystery-record", "sessionId": "x", "payload": {"note": secret}}
                )
                + b"\n"
            )
            fh.write(f"not json at all {secret}\n".encode())
        codex(
            root / "codex",
            SessionSpec(f"{n:08d}-dddd-4eee-8fff-{n:012d}", "/src/app", start, turns, "gpt"),
        )


def import_all(ctx: Context, root: Path) -> None:
    events = run_import(
        ctx,
        ["claude-code", "codex"],
        {"claude-code": str(root / "claude"), "codex": str(root / "codex")},
    )
    for _ in events:
        pass


def all_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def all_rows(ctx: Context) -> str:
    meta = MetaData()
    meta.reflect(ctx.store.engine)
    return ctx.store.read(
        lambda c: "".join(str(list(c.execute(select(t)))) for t in meta.sorted_tables)
    )


def test_every_rule_planted_everywhere_never_reaches_the_store_or_the_cli(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: str
) -> None:
    secrets = [part for rule in RULES for part in secret_parts(rule)]
    plant(tmp_path / "src", [rule.tp_example for rule in RULES])
    import_all(ctx, tmp_path / "src")
    rows = all_rows(ctx)
    found_in_rows = [s for s in secrets if s in rows]
    assert found_in_rows == []
    if ctx.store.config.is_sqlite:
        data = all_bytes(ctx.store.config.home)
        assert [s for s in secrets if s.encode() in data] == []
    outputs = [
        cli(["import", "--json"]),
        cli(["sessions", "--all", "--json"]),
        cli(["status", "--json"]),
    ]
    for session in json.loads(outputs[1].out):
        outputs.append(cli(["session", "show", session["id"], "--json"]))
        outputs.append(cli(["session", "show", session["id"]]))
    text = "".join(o.out + o.err for o in outputs)
    assert "REDACTED" in text
    assert [s for s in secrets if s in text] == []


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    rule=st.sampled_from(RULES),
    before=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40),
    # Secrets are delimited in real text; a token run on into more token characters is
    # a different (longer) string, which the rules deliberately do not cut in two.
    after=st.text(alphabet=" \n\t,;()[]{}\"'", max_size=10),
)
def test_a_planted_secret_never_survives_in_the_file_or_its_wal(
    store_templates: StoreTemplates, rule: Rule, before: str, after: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        store_templates.copy_file(TEAM, home / "viva.db")  # a new store with the team loaded
        store = Store.open(Config(home=home, db_url=f"sqlite:///{home / 'viva.db'}"))
        try:
            ctx = Context(store, OWNER)
            plant(Path(tmp) / "src", [before + " " + rule.tp_example + after])
            import_all(ctx, Path(tmp) / "src")
            data = all_bytes(home)
            for part in secret_parts(rule):
                assert part.encode() not in data
        finally:
            store.close()
