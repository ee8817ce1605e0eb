"""Access: API tokens (named, one role each, stored as their sha256) and the web interface's sessions."""
