"""The reference agent, hub-agent, against a real hub and the fake Jira."""
