"""Backups, migrate-to, health, metrics, the overview and several processes or nodes."""
