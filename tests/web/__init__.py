"""The web interface in a real browser."""
