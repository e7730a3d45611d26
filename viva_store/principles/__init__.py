"""Principles: candidates, the owner's decisions, what is in force."""
