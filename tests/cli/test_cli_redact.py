"""The `viva redact` contract: the upgrade's JSON report, idempotence, owner only."""

from __future__ import annotations

import json

import pytest

from tests.cli.runner import run
from tests.redact.support import secret_of
from tests.store.test_redaction_upgrade import plant_old_records
from viva_store.members.grants import issue_grant
from viva_store.redact import RULES_BY_ID, RULESET_VERSION
from viva_store.store import Context


@pytest.fixture
def old_records(recall_history: dict[str, str], ctx: Context, cli_env: str) -> Context:
    plant_old_records(ctx, secret_of(RULES_BY_ID["github-pat"]))
    return ctx


def test_upgrade_json_reports_records_rechecked_and_redactions_added(old_records: Context) -> None:
    status = run(["redact", "--json"])
    assert status.code == 0, status.err
    assert json.loads(status.out)["upgrade_due"] is True

    first = run(["redact", "--upgrade", "--json"])
    assert first.code == 0, first.err
    report = json.loads(first.out)
    assert report["ruleset"] == RULESET_VERSION
    assert report["records_checked"] >= report["records_changed"] >= 3
    assert report["redactions_added"] >= 4
    assert {t["table"] for t in report["tables"]} >= {"message", "recall_mark", "engagement_event"}

    again = json.loads(run(["redact", "--upgrade", "--json"]).out)
    assert (again["records_checked"], again["records_changed"], again["redactions_added"]) == (
        0,
        0,
        0,
    )
    assert json.loads(run(["redact", "--json"]).out)["upgrade_due"] is False


def test_upgrade_human_output_and_owner_only(
    old_records: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIVA_GRANT", issue_grant(old_records, "deven").token)
    refused = run(["redact", "--upgrade"])
    assert refused.code == 1 and "only the owner" in refused.err
    assert "only the owner" in run(["redact"]).err
    monkeypatch.delenv("VIVA_GRANT")

    done = run(["redact", "--upgrade"])
    assert done.code == 0, done.err
    assert done.out.startswith("re-checked ") and "redactions added" in done.out
