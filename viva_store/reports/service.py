"""The weekly report (DESIGN §4): one ISO week, per member, as records or Markdown."""

from __future__ import annotations

from viva_store.reports.markdown import report_markdown
from viva_store.reports.records import MemberWeek, WeeklyReport
from viva_store.reports.weekly import weekly_report

__all__ = ["MemberWeek", "WeeklyReport", "report_markdown", "weekly_report"]
