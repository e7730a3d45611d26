"""Gemini CLI's chats."""
