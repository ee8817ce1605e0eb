"""Operations: backups and restores (``backup``, the interface, and one module per engine),
``hub migrate-to``, health (its write probe one module per engine), the overview, what
``GET /metrics`` reads at scrape time, and periodic tasks' periods."""
