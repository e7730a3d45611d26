"""Looking after a store: backups, restores and the ``viva doctor`` report."""
