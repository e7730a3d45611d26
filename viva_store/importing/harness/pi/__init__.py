"""pi's sessions."""
