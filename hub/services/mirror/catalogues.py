"""Jira's catalogues as agents report them: priorities, statuses, resolutions, issue types,
link types, the custom fields kept in columns of the mirror's own, the agile boards' configurations
(``jira_catalogue``), and the users the mirror names (``jira_user``).

Interfaces read them to word links as Jira does ("blocks" / "is blocked by"), to order by
priority in Jira's configured order, and to read the user keys of a changelog as login names.
A catalogue sent replaces the one held (Jira's order is its ``position``); users sent are
upserted by login name and never removed, since the mirror goes on naming them. A board sent
replaces the one held of its id (kind ``board``, its type and columns in ``detail``); the others are
kept, since an agent leaves out a board Jira refused it, and a refusal is no new configuration.
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
# The kind of a board's configuration in ``jira_catalogue``: its id is the board's, its detail
# ``{"type", "columns": [{"name", "statuses": [status id, ...]}]}``.
BOARD_KIND = "board"


class CatalogueService:
    """Keeps and reads Jira's catalogues and users."""

    def load(self, catalogues: dict | None, now: str) -> None:
        """Apply a page's ``catalogues``; call inside the report's transaction."""
        if not catalogues:
            return
        conn, sql = dialect.mirror.connection(), dialect.mirror.mirror_sql()
        # PostgreSQL: a catalogue replaced by two pages at once ends as the later one sent it.
        sql.lock(conn, lambda: [*(KINDS[name][0] for name in KINDS if catalogues.get(name) is not None),
                                *([BOARD_KIND] if catalogues.get("boards") else [])], kinds=True)
        for name, (kind, details) in KINDS.items():
            entries = catalogues.get(name)
            if entries is None:
                continue
            conn.execute(sql.delete_kind, (kind,))
            conn.executemany(sql.insert_entry, [
                (kind, entry["id"], entry["name"], position,
                 json.dumps({k: entry.get(k) for k in details if k in entry}, ensure_ascii=False))
                for position, entry in enumerate(entries)])
        self._load_boards(conn, sql, catalogues.get("boards"))
        users = {user["name"]: user for user in catalogues.get("users") or ()}  # the last sending wins
        if users:
            conn.executemany(sql.upsert_user, sql.ordered([(name, user.get("key"), user.get("display_name"), now)
                                                           for name, user in users.items()], 1))

    @staticmethod
    def _load_boards(conn, sql, boards: list[dict] | None) -> None:
        """Each board sent replaces the one held of its id; the last sending of an id wins."""
        if not boards:
            return
        sent = {str(board["id"]): board for board in boards}
        conn.executemany(sql.insert_entry, sql.ordered([
            (BOARD_KIND, board_id, board.get("name") or "", 0,
             json.dumps({"type": board.get("type"),
                         "columns": [{"name": column["name"], "statuses": [str(sid) for sid in column["statuses"]]}
                                     for column in board.get("columns") or ()]}, ensure_ascii=False))
            for board_id, board in sent.items()], 2))

    def boards(self, ids: list[int]) -> dict[int, JiraCatalogue]:
        """The configurations agents sent of the boards ``ids``, by board id."""
        if not ids:
            return {}
        rows = JiraCatalogue.select().where(JiraCatalogue.kind == BOARD_KIND,
                                            JiraCatalogue.jira_id.in_(sorted({str(i) for i in ids})))
        return {int(row.jira_id): row for row in rows}

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

    def find_users(self, q: str | None = None, limit: int = 20) -> list[JiraUser]:
        """The Jira users the mirror knows whose login or display name holds ``q`` (in any case,
        in any script), best first: a login or display name that is ``q``, then one that starts
        with it, then one with a word that starts with it, then the rest; each rank by display
        name, then login. No ``q``: every user, by display name. At most ``limit``.

        The users are compared in Python: SQLite's ``lower`` folds ASCII alone, and a team's
        users (the mirror keeps only those its issues name) are read in a few milliseconds."""
        folded = (q or "").strip().casefold()
        ranked = []
        for user in JiraUser.select(JiraUser.name, JiraUser.display_name):
            rank = _user_rank(user, folded)
            if rank is not None:
                ranked.append(((rank, (user.display_name or user.name).casefold(), user.name), user))
        ranked.sort(key=lambda pair: pair[0])
        return [user for _, user in ranked[:limit]]


def _user_rank(user: JiraUser, folded: str) -> int | None:
    """How well a user matches the folded text: 0 (best) to 3, or None when it does not."""
    if not folded:
        return 0
    login, display = user.name.casefold(), (user.display_name or "").casefold()
    if folded in (login, display):
        return 0
    if login.startswith(folded) or display.startswith(folded):
        return 1
    if any(word.startswith(folded) for word in display.split()):
        return 2
    if folded in login or folded in display:
        return 3
    return None
