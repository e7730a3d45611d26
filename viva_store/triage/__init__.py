"""Triage: attribution, the owner's classifications, suggestions."""
