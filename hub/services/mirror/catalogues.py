"""Jira's catalogues as agents report them: priorities, statuses, resolutions, issue types,
link types, the custom fields kept in columns of the mirror's own (``jira_catalogue``), and the
users the mirror names (``jira_user``).

Interfaces read them to word links as Jira does ("blocks" / "is blocked by"), to order by
priority in Jira's configured order, and to read the user keys of a changelog as login names.
A catalogue sent replaces the one held (Jira's order is its ``position``); users sent are
upserted by login name and never removed, since the mirror goes on naming them.
"""

from __future__ import annotations

import json

from hub import dialect
from hub.models import JiraCatalogue, JiraUser

# A catalogue of the page (docs/agent-protocol.md) → (its ``kind`` in ``jira_catalogue``,
# the members of an entry kept in ``detail``).
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "priorities": ("priority", ()),
    "statuses": ("status", ("category", "category_key")),
    "resolutions": ("resolution", ()),
    "issue_types": ("issue_type", ("subtask",)),
    "link_types": ("link_type", ("outward", "inward")),
    "fields": ("field", ("column",)),
}
# The mirror's columns that hold a custom field of Jira's (its id is the instance's own, sent in
# the ``fields`` catalogue): JQL's ``cf[N]`` of such a field reads the column.
COLUMN_FIELDS = ("sprint", "epic_key", "planned_start", "planned_end")

class CatalogueService:
    """Keeps and reads Jira's catalogues and users."""

    def load(self, catalogues: dict | None, now: str) -> None:
        """Apply a page's ``catalogues``; call inside the report's transaction."""
        if not catalogues:
            return
        conn, sql = dialect.mirror.connection(), dialect.mirror.mirror_sql()
        # PostgreSQL: a catalogue replaced by two pages at once ends as the later one sent it.
        sql.lock(conn, lambda: [KINDS[name][0] for name in KINDS if catalogues.get(name) is not None], kinds=True)
        for name, (kind, details) in KINDS.items():
            entries = catalogues.get(name)
            if entries is None:
                continue
            conn.execute(sql.delete_kind, (kind,))
            conn.executemany(sql.insert_entry, [
                (kind, entry["id"], entry["name"], position,
                 json.dumps({k: entry.get(k) for k in details if k in entry}, ensure_ascii=False))
                for position, entry in enumerate(entries)])
        users = {user["name"]: user for user in catalogues.get("users") or ()}  # the last sending wins
        if users:
            conn.executemany(sql.upsert_user, sql.ordered([(name, user.get("key"), user.get("display_name"), now)
                                                           for name, user in users.items()], 1))

    def catalogues(self) -> dict[str, list[JiraCatalogue]]:
        """Every catalogue by its name in the page (``priorities``, ...), in Jira's order."""
        rows = JiraCatalogue.select().order_by(JiraCatalogue.kind, JiraCatalogue.position)
        by_kind: dict[str, list[JiraCatalogue]] = {kind: [] for kind, _ in KINDS.values()}
        for row in rows:
            by_kind.setdefault(row.kind, []).append(row)
        return {name: by_kind[kind] for name, (kind, _) in KINDS.items()}

    def users(self, names: list[str]) -> dict[str, JiraUser]:
        """The users the mirror knows among ``names`` (login names), by name."""
        if not names:
            return {}
        return {user.name: user for user in JiraUser.select().where(JiraUser.name.in_(sorted(set(names))))}

    def logins(self, user_keys: list[str]) -> dict[str, str]:
        """The login names of the users the mirror knows among ``user_keys`` (Jira's user keys), by key."""
        if not user_keys:
            return {}
        return {str(user.user_key): user.name for user in
                JiraUser.select(JiraUser.user_key, JiraUser.name).where(JiraUser.user_key.in_(sorted(set(user_keys))))}

    def link_types(self) -> dict[str, dict]:
        """The link types' ``detail`` (``outward``, ``inward``) by type name."""
        return {row.name: row.detail or {} for row in
                JiraCatalogue.select(JiraCatalogue.name, JiraCatalogue.detail).where(JiraCatalogue.kind == "link_type")}
