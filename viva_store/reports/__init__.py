"""The weekly report."""
