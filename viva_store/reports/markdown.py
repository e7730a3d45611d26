"""The weekly report as Markdown (``viva report weekly --markdown``). Pure text."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from viva_store.reports.records import MemberWeek, WeeklyReport


def _cell(value: Any) -> str:
    text = " ".join(str("" if value is None else value).split())
    return text.replace("|", "\\|")


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def _names(values: Any) -> str:
    return ", ".join(f"`{v}`" for v in values)


def knowledge_line(counts: dict[str, int]) -> str:
    """The week's knowledge in words that follow the evidence (uses are recorded uses)."""
    uses = counts.get("used", 0)
    return (
        f"{counts.get('admitted', 0)} admitted, {counts.get('declined', 0)} declined, "
        f"reused {uses} time{'' if uses == 1 else 's'}, {counts.get('retracted', 0)} retracted"
    )


def member_markdown(section: MemberWeek) -> list[str]:
    """One member's section."""
    out = [f"## {section.member}", ""]
    if section.quiet:
        return [*out, "Nothing this week.", ""]
    out += [
        f"- Sessions recovered: {section.sessions_recovered}; "
        f"triaged into {section.member}: {section.sessions_triaged}",
    ]
    if section.skills_added:
        added = ", ".join(f"`{a['skill']}` ({a['how']})" for a in section.skills_added)
        out.append(f"- Skills added: {added}")
    if section.skill_uses:
        uses = ", ".join(
            f"`{u['skill']}` ×{u['uses']} (value {u['value']:g}"
            + (f", {u['corrected']} corrected by the owner" if u["corrected"] else "")
            + ")"
            for u in section.skill_uses
        )
        out.append(f"- Skill uses: {uses}")
    if section.skills_reclaimed:
        out.append(f"- Reclaimed: {_names(section.skills_reclaimed)}")
    if section.skills_forgotten:
        out.append(f"- Forgotten: {_names(section.skills_forgotten)}")
    if section.skills_would_forget:
        out.append(f"- Would forget (trial month): {_names(section.skills_would_forget)}")
    if section.track_changes:
        tracks = ", ".join(f"`{t['skill']}` → {t['track']}" for t in section.track_changes)
        out.append(f"- Track changes: {tracks}")
    if section.knowledge:
        counts: dict[str, int] = {}
        for e in section.knowledge:
            counts[e["action"]] = counts.get(e["action"], 0) + 1
        out.append(f"- Knowledge: {knowledge_line(counts)}")
    out.append("")
    if section.knowledge:
        out += ["### Knowledge", ""]
        out += _table(
            ["when", "item", "kind", "summary", "event", "by", "reason or session"],
            [
                [f"{e['at']:%Y-%m-%d}", e["item"], e["kind"], e["summary"], e["action"],
                 e["actor"], e["reason"] or e["session"] or ""]
                for e in section.knowledge
            ],
        )  # fmt: skip
    if section.principles_proposed:
        out += ["### Principle candidates", ""]
        out += _table(
            ["candidate", "text", "proposed by", "status"],
            [
                [p["id"], p["text"], p["proposed_by"], p["status"]]
                for p in section.principles_proposed
            ],
        )
    if section.principle_decisions:
        out += ["### Principle decisions", ""]
        out += _table(
            ["when", "principle", "version", "decision", "text", "reason"],
            [
                [
                    f"{d['at']:%Y-%m-%d}",
                    d["principle_id"],
                    d["version"],
                    d["action"].replace("_", " "),
                    d["text"],
                    d["reason"],
                ]
                for d in section.principle_decisions
            ],
        )
    return out


def report_markdown(report: WeeklyReport) -> str:
    """The whole report as one Markdown document."""
    last = report.end - timedelta(days=1)
    out = [f"# Viva weekly report — {report.week} ({report.start:%Y-%m-%d} to {last:%Y-%m-%d})", ""]
    if report.team is not None:
        team = report.team
        out += [
            "## Team",
            "",
            f"- Sessions recovered: {team['sessions_recovered']} "
            f"({team['sessions_unattributed']} still waiting for triage)",
            f"- Sessions triaged: {team['sessions_triaged']} "
            f"({team['sessions_filed_nobody']} filed as nobody's); "
            f"returned to the queue: {team['sessions_unclassified']}",
        ]
        for b in team["principle_batches"]:
            out.append(f"- Principle batch `{b['id']}` ({b['created_by']}): {b['summary']}")
        if "knowledge" in team:
            out.append(f"- Knowledge: {knowledge_line(team['knowledge'])}")
        out.append("")
    for section in report.members:
        out += member_markdown(section)
    return "\n".join(out).rstrip() + "\n"
