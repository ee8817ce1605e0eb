"""What every hub process does before it touches the database."""

from __future__ import annotations

from hub import datadir
from hub.config import Config
from hub.migrations import MigrationResult, migrate


def prepare(config: Config) -> MigrationResult:
    """Make the data dir private and bring the database to the current schema."""
    datadir.prepare(config)
    if config.database_url:
        from hub.migrations.postgres import migrate_postgres

        return migrate_postgres(config.database_url)
    return migrate(config.db_path, config.backups_dir)
