"""Whether the hub can read its database."""

from __future__ import annotations

from hub.models import Setting


class HealthService:
    def check(self) -> dict:
        """``{status, schema_version}``; reading the version proves the database answers."""
        version = Setting.get_by_id("schema_version").value
        return {"status": "ok", "schema_version": int(version)}
