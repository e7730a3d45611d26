"""Words a shell may complete on the ``viva`` command line."""
