"""Codex rollouts."""
