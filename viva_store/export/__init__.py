"""Exporting sessions: a typed transcript read through the sessions service, and pure
renderers that turn it into Markdown, HTML, JSON or JSON lines."""
