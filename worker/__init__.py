"""Background housekeeping on Huey; the ``command`` table, not Huey, owns agent work."""
