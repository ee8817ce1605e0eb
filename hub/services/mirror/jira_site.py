"""Where people reach Jira in a browser: its base URL, for the links "Open in Jira" follows.

The agent reads Jira's own ``baseUrl`` (``/rest/api/2/serverInfo``) and reports it with its
heartbeats (``jira.base_url``); the hub keeps the last one reported in ``setting``
(``jira_base_url``). ``HUB_JIRA_URL`` overrides it, for a Jira whose own idea of its address is
not what browsers reach (an internal name behind a proxy). With neither, no link is offered.
"""

from __future__ import annotations

from hub.db import database
from hub.models import Setting

SETTING = "jira_base_url"


def remember_base_url(url: str) -> None:
    """Keep the base URL an agent reported (checked by the heartbeat's schema: an http(s) URL),
    without a trailing slash; written only when it differs, so that heartbeats cost no more.
    Called inside the heartbeat's transaction."""
    url = url.rstrip("/")
    (Setting.insert(key=SETTING, value=url)
     .on_conflict(conflict_target=[Setting.key], update={Setting.value: url}, where=(Setting.value != url))
     .execute())


class JiraSite:
    """Jira's base URL in use, read at each ask (an agent may report a new one at any heartbeat)."""

    def __init__(self, configured: str | None = None):
        self._configured = configured.rstrip("/") if configured else None

    def base_url(self) -> str | None:
        """``HUB_JIRA_URL``, else the one the agent last reported, else None."""
        if self._configured is not None:
            return self._configured
        row = database.execute_sql("SELECT value FROM setting WHERE key = ?", (SETTING,)).fetchone()
        return row[0] if row else None

    def issue_url(self, key: str) -> str | None:
        """The issue's page in Jira (``…/browse/KEY``), or None while the base URL is not known."""
        base = self.base_url()
        return None if base is None else f"{base}/browse/{key}"
