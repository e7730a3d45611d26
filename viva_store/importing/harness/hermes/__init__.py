"""Hermes' sessions."""
