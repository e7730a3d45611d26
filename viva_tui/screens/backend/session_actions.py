"""The store calls behind the transcript dialog's export, pager and resume keys."""

from __future__ import annotations

from viva_store.export.service import (
    ExportedFile,
    export_transcript,
    render,
    write_export,
)
from viva_store.sessions.service import ResumeCommand, resume_command
from viva_store.store import Context

APP_FORMAT = "html"
"""What ``e`` writes: the format that reads best without Viva."""


class SessionActions:
    """Export, the transcript as text, and the resume command, for the owner's app."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def export(self, session_id: str, fmt: str = APP_FORMAT) -> ExportedFile:
        """Write the session to ``$VIVA_HOME/exports/``."""
        folder = self.ctx.store.config.home / "exports"
        return write_export(self.ctx, session_id, fmt, folder, folder=True)

    def text(self, session_id: str) -> str:
        """The whole transcript as Markdown (what the pager shows)."""
        return render(export_transcript(self.ctx, session_id), "md")

    def resume(self, session_id: str) -> ResumeCommand:
        """The command that reopens the session in its harness."""
        return resume_command(self.ctx, session_id)
