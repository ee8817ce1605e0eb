"""Projects (one Jira label each) and the base JQL computed from them."""

from __future__ import annotations

import json
import re

from hub import dialect
from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, ContractError, NotFound
from hub.models import Batch, Project, Setting
from hub.vocabulary import BOARD_TYPES

# One word: no whitespace (what str.isspace() calls space) and no control
# characters. Written so that it means the same in ECMA-262, the dialect of
# JSON Schema, and in Python's re: explicit code points instead of \s, and
# (?![\s\S]) for the end of the string, since Python's $ also matches
# before a final newline.
ONE_WORD_PATTERN = (r"^[^\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029"
                    r"\u202f\u205f\u3000]+(?![\s\S])")
LABEL_PATTERN = ONE_WORD_PATTERN
_LABEL = re.compile(LABEL_PATTERN)


def lock_project(label: str) -> bool:
    """Inside a write transaction: lock the project's row to its end; whether it exists."""
    return database.execute_sql(f"SELECT 1 FROM project WHERE label = ?{dialect.current().for_update}",
                                (label,)).fetchone() is not None


def compose_base_jql(scope: str, labels: list[str]) -> str | None:
    """``<scope> AND labels in ("L1", "L2", …)``: labels ascending, each double-quoted
    with ``"`` and ``\\`` escaped; just the labels clause for an empty scope; None
    without labels."""
    if not labels:
        return None
    quoted = ", ".join(
        '"' + label.replace("\\", "\\\\").replace('"', '\\"') + '"' for label in sorted(labels)
    )
    clause = f"labels in ({quoted})"
    return f"{scope} AND {clause}" if scope else clause


class ProjectService:
    def __init__(self, clock: Clock):
        self._clock = clock

    def add(self, label: str, name: str, board_id: int | None = None,
            board_type: str | None = None) -> Project:
        """Add a project: one Jira label, shown under ``name``."""
        label, name = label.strip(), name.strip()
        if not _LABEL.match(label):
            raise ContractError(f"label {label!r} must be one Jira label: no spaces or control characters", "label")
        if not name:
            raise ContractError("name must not be empty", "name")
        if board_type is not None and board_type not in BOARD_TYPES:
            raise ContractError(f"board_type must be scrum or kanban, got {board_type!r}", "board_type")
        if (board_id is None) != (board_type is None):
            raise ContractError("board_id and board_type go together", "board_type")
        with database.atomic():
            if Project.get_or_none(Project.label == label) is not None:
                raise Conflict(f"project {label!r} exists")
            project = Project.create(label=label, name=name, board_id=board_id,
                                     board_type=board_type, created_at=iso(self._clock.now()))
        return project

    def list(self) -> list[Project]:
        """The projects (the rows), by label."""
        return list(Project.select().order_by(Project.label))

    def remove(self, label: str) -> None:
        """Remove a project that no batch names; the base JQL loses its label."""
        with database.atomic():
            # Locked first: a batch being made for it meanwhile is counted, or finds it gone.
            if not lock_project(label):
                raise NotFound(f"no project {label!r}")
            batches = Batch.select().where(Batch.project == label).count()
            if batches:
                raise Conflict(f"project {label!r} is named by {batches} batches; it stays")
            Project.delete().where(Project.label == label).execute()

    def scope(self) -> str:
        row = Setting.get_or_none(Setting.key == "jql_scope")
        return row.value.strip() if row else ""

    def set_scope(self, jql: str) -> None:
        """Set the part of the base JQL before its labels clause (may be empty)."""
        with database.atomic():
            (Setting.insert(key="jql_scope", value=jql.strip())
             .on_conflict(conflict_target=[Setting.key], preserve=[Setting.value]).execute())

    def base_jql(self) -> str | None:
        """The base JQL now; a ``refresh`` with exactly this JQL is a full run."""
        # One statement: asked on every state page of a refresh.
        scope, labels = database.execute_sql(
            "SELECT (SELECT value FROM setting WHERE key = 'jql_scope'), "
            f"(SELECT {dialect.current().json_group_array('label')} FROM project)").fetchone()
        return compose_base_jql((scope or "").strip(), json.loads(labels or "[]"))
