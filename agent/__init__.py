"""hub-agent: executes the hub's commands against Jira Server/DC."""
