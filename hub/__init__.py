"""sdlc-hub: a mirror of a team's Jira issues, fed by agents, served to interfaces."""

__version__ = "0.1.0"
