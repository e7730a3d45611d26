"""Usage: the stored token totals of the sessions an actor may see, grouped and priced."""
