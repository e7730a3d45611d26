"""A member's engagement state: domain, project, counterpart, activity."""
