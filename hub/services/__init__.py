"""Services: the hub's operations, called by API resources, CLI commands and tasks."""
