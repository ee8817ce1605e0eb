"""Loading issue state from an agent into the mirror.

The rules of the data model: a field the agent does not send is kept; sent
``links`` replace the issue's outward rows (inward ones are added if missing);
sent ``comments`` and ``attachments`` replace the issue's lists; ``changes``
are upserted by ``(key, history_id, item_no)``. ``attachment_file`` is never
touched here, so a fetched file outlives a refreshed attachment list.
Only this module writes the mirror's issue tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from peewee import chunked

from hub.clock import jira_to_utc
from hub.models import Issue, IssueAttachment, IssueChange, IssueComment, IssueLink

# State fields stored under the same name; ``updated`` goes to ``jira_updated``.
FIELDS = (
    "id", "issue_type", "summary", "description", "status", "priority", "assignee",
    "reporter", "duedate", "planned_start", "planned_end", "epic_key", "labels",
    "sprint", "created",
)
NOT_NULL_DEFAULTS = {"summary": "", "labels": []}
# Rows per INSERT: well under SQLite's limit on bound variables.
CHUNK = 500


def _replace(model, rows: list[dict]) -> None:
    for chunk in chunked(rows, CHUNK):
        model.insert_many(chunk).on_conflict_replace().execute()


@dataclass(frozen=True)
class RunContext:
    """What the neighbour rule needs to know about the run a page belongs to."""

    full: bool
    started_at: str
    now: str


class MirrorService:
    def load_page(self, issues: list[dict], neighbors: list[dict], run: RunContext) -> None:
        """Apply one page of states; call inside the report's transaction."""
        in_issues = {state["key"] for state in issues}
        for state in issues:
            self._apply(state, 0 if run.full else None, run.now)
        for state in neighbors:
            if state["key"] in in_issues:
                continue  # the same page loads it as a match
            flag = None
            if run.full:
                flag = 0 if self._loaded_by_run(state["key"], run) else 1
            self._apply(state, flag, run.now)

    @staticmethod
    def _loaded_by_run(key: str, run: RunContext) -> bool:
        # A full run sets neighbor = 0 on what it loads as a match, so a row
        # with 0 fetched since the run began was loaded by it in ``issues``.
        return (Issue.select()
                .where(Issue.key == key, Issue.neighbor == 0, Issue.fetched_at >= run.started_at)
                .exists())

    def _apply(self, state: dict, neighbor: int | None, now: str) -> None:
        key = state["key"]
        values = {name: state[name] for name in FIELDS if name in state}
        if "updated" in state:
            values["jira_updated"] = state["updated"]
        for name, default in NOT_NULL_DEFAULTS.items():
            if name in values and values[name] is None:
                values[name] = default
        values["fetched_at"] = now
        existing = Issue.get_or_none(Issue.key == key)
        if neighbor is None:  # not a full run: a known issue keeps its flag
            neighbor = existing.neighbor if existing is not None else 1
        values["neighbor"] = neighbor
        if existing is None:
            Issue.insert(key=key, **values).execute()
        else:
            Issue.update(**values).where(Issue.key == key).execute()

        if "links" in state:
            self._links(key, state["links"])
        if "comments" in state:
            self._comments(key, state["comments"])
        if "changes" in state:
            self._changes(key, state["changes"])
        if "attachments" in state:
            self._attachments(key, state["attachments"])

    @staticmethod
    def _links(key: str, links: list[dict]) -> None:
        IssueLink.delete().where(IssueLink.source_key == key).execute()
        rows = {(key, link["outward"], link["type"]) for link in links if "outward" in link}
        rows |= {(link["inward"], key, link["type"]) for link in links if "inward" in link}
        fields = [IssueLink.source_key, IssueLink.target_key, IssueLink.link_type]
        for chunk in chunked(sorted(rows), CHUNK):
            IssueLink.insert_many(chunk, fields=fields).on_conflict_ignore().execute()

    @staticmethod
    def _comments(key: str, comments: list[dict]) -> None:
        IssueComment.delete().where(IssueComment.key == key).execute()
        rows = [{
            "key": key, "comment_id": c["id"], "author": c.get("author"),
            "created": c.get("created"), "updated": c.get("updated"),
            "body": c.get("body") or "", "created_at": jira_to_utc(c.get("created")),
        } for c in comments]
        _replace(IssueComment, rows)

    @staticmethod
    def _changes(key: str, changes: list[dict]) -> None:
        rows = [{
            "key": key, "history_id": change["id"], "item_no": item_no,
            "author": change.get("author"), "created": change["created"],
            "created_at": jira_to_utc(change["created"]), "field": item["field"],
            "field_type": item.get("field_type"), "from_value": item.get("from"),
            "from_string": item.get("from_string"), "to_value": item.get("to"),
            "to_string": item.get("to_string"),
        } for change in changes for item_no, item in enumerate(change["items"])]
        _replace(IssueChange, rows)

    @staticmethod
    def _attachments(key: str, attachments: list[dict]) -> None:
        ids = [a["id"] for a in attachments]
        IssueAttachment.delete().where(IssueAttachment.key == key,
                                       IssueAttachment.attachment_id.not_in(ids)).execute()
        rows = [{
            "attachment_id": a["id"], "key": key, "filename": a["filename"], "size": a.get("size"),
            "mime_type": a.get("mime_type"), "author": a.get("author"), "created": a.get("created"),
            "created_at": jira_to_utc(a.get("created")),
        } for a in attachments]
        _replace(IssueAttachment, rows)
