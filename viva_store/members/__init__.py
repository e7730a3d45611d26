"""Members: the team's identities, grants and execution records."""
