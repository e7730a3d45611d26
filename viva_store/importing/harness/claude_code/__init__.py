"""Claude Code's transcripts."""
