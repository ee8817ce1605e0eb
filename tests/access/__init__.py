"""Tokens and the web page's sessions."""
