"""Jira's wiki markup rendered."""
