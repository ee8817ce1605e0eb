"""Schema creation and migration; see :mod:`hub.migrations.runner` and docs/migrations.md."""

from hub.migrations.runner import (
    CURRENT_VERSION,
    MigrationError,
    MigrationResult,
    migrate,
)

__all__ = ["CURRENT_VERSION", "MigrationError", "MigrationResult", "migrate"]
