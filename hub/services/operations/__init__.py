"""Operations: backups and restores (one module per engine), ``hub migrate-to``, health,
the overview, what ``GET /metrics`` reads at scrape time, and periodic tasks' periods."""
