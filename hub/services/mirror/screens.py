"""Jira's create screens as v19 agents report them (a state page's ``create_meta``).

Each entry is one project's screen for one issue type: its fields in the ``{FIELD}`` shape of
docs/agent-protocol.md. An entry sent replaces the one held of its (project, issue type); the
others are kept, since an agent reads the screens of the projects in its run's scope only. The
issues' own screens (``transitions``, ``edit_fields``) are columns of ``issue``, loaded with the
issue's state (:mod:`hub.services.mirror.loading`).
"""

from __future__ import annotations

from peewee import EXCLUDED

from hub.errors import NotFound
from hub.models import CreateMeta, Issue
from hub.services.mirror.aliases import current_issue


class ScreenService:
    """Keeps and reads the create screens of the projects Jira's agents see."""

    def load(self, entries: list[dict] | None, now: str) -> None:
        """Apply a page's ``create_meta``; call inside the report's transaction."""
        if not entries:
            return
        # The last sending of a (project, issue type) wins, as one entry after another would;
        # rows in key order, so that two pages writing the same rows on PostgreSQL take turns.
        rows = {(entry["project"], entry["issue_type"]): entry["fields"] for entry in entries}
        for (project, issue_type), fields in sorted(rows.items()):
            (CreateMeta.insert(project=project, issue_type=issue_type, fields=fields, updated_at=now)
             .on_conflict(conflict_target=[CreateMeta.project, CreateMeta.issue_type],
                          update={CreateMeta.fields: EXCLUDED.fields, CreateMeta.updated_at: EXCLUDED.updated_at})
             .execute())

    def create_meta(self, project: str | None = None, issue_type: str | None = None) -> list[CreateMeta]:
        """The create screens held, of one project or issue type (a type's name in any case) when
        asked, by project then issue type."""
        query = CreateMeta.select()
        if project is not None:
            query = query.where(CreateMeta.project == project.upper())
        rows = query.order_by(CreateMeta.project, CreateMeta.issue_type)
        if issue_type is None:
            return list(rows)
        return [row for row in rows if row.issue_type.casefold() == issue_type.casefold()]

    def screen(self, project: str, issue_type: str) -> CreateMeta | None:
        """The create screen of ``issue_type`` (any case) in ``project``; None when not known."""
        found = self.create_meta(project, issue_type)
        return found[0] if found else None

    def transitions(self, key: str) -> Issue:
        """The issue ``key`` names (by an old key, the moved one), whose ``transitions`` are those
        Jira offered from its status when an agent last loaded it (None: not known yet)."""
        issue = current_issue(key)
        if issue is None:
            raise NotFound(f"no issue {key!r} in the mirror")
        return issue
