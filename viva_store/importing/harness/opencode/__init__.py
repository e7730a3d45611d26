"""OpenCode's sessions."""
