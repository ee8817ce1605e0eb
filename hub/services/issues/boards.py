"""The projects' agile boards as the mirror can show them: their columns and their cards.

A project may name a board (``project.board_id``, ``board_type``). Its columns are those of the
board's configuration as an agent read it from Jira (a ``board`` entry of ``jira_catalogue``, see
:mod:`hub.services.mirror.catalogues`); until one has, three columns stand in, made of the status
catalogue by category (To Do, In Progress, Done). Its cards are the issues Jira's board would show:
a scrum board's active sprint, a kanban board's project issues whose status is on a column (the
done ones only while recently updated, as Jira's kanban boards drop them after a while).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, NamedTuple

from hub.clock import Clock, iso
from hub.db import database
from hub.errors import NotFound
from hub.models import JiraCatalogue, Project, Sprint
from hub.services.mirror.catalogues import CatalogueService
from hub.services.search.conditions import conditions

# At most this many cards on a board (``total`` counts them all): a board of more is no board to
# read, and the page draws each.
MAX_CARDS = 500
# A kanban board shows a done issue while it was updated in the last this many days.
DONE_DAYS = 14
# The three columns of a board whose configuration no agent has sent: (name, status category key).
FALLBACK_COLUMNS = (("To Do", "new"), ("In Progress", "indeterminate"), ("Done", "done"))
# The custom fields a card reads by name: Jira Software's own.
RANK_FIELD, FLAGGED_FIELD = "Rank", "Flagged"
_RANK_TYPE = "gh-lexo-rank"


class Status(NamedTuple):
    """A status as a column lists it: Jira's id, its name and category (None when the status catalogue
    does not hold the id)."""

    id: str
    name: str | None
    category_key: str | None


class Column(NamedTuple):
    name: str
    statuses: list[Status]


class ListedBoard(NamedTuple):
    """A project's board: its id, name (None until configured), type, project label, and whether an
    agent has sent its configuration."""

    id: int
    name: str | None
    type: str | None
    project: str
    configured: bool


class Card(NamedTuple):
    """An issue on a board: ``column`` is the index of the column its status is on (None: on none)."""

    key: str
    summary: str
    issue_type: str | None
    priority: str | None
    status: str | None
    assignee: str | None
    flagged: bool
    column: int | None
    transitions: list | None
    rank: str | None


@dataclass
class Board:
    """A board with its columns, its active sprint (scrum), its cards (at most :data:`MAX_CARDS`, by
    rank then key), how many there are in all, and the display names of the cards' assignees."""

    board: ListedBoard
    columns: list[Column]
    sprint: Sprint | None
    cards: list[Card]
    total: int
    people: dict[str, str | None] = field(default_factory=dict)


class BoardService:
    """Reads the projects' boards."""

    def __init__(self, clock: Clock, catalogues: CatalogueService):
        self._clock = clock
        self._catalogues = catalogues

    def listed(self) -> list[ListedBoard]:
        """One board per project that names one, by project label."""
        projects = list(Project.select().where(Project.board_id.is_null(False)).order_by(Project.label))
        configured = self._catalogues.boards([p.board_id for p in projects if p.board_id is not None])
        return [_listed(p, configured.get(p.board_id)) for p in projects if p.board_id is not None]

    def get(self, board_id: int) -> Board:
        """The board ``board_id`` (of the first project, by label, that names it); NotFound when no
        project names it."""
        project = (Project.select().where(Project.board_id == board_id).order_by(Project.label).first())
        if project is None:
            raise NotFound(f"no project has board {board_id}; see GET /api/v1/boards")
        configuration = self._catalogues.boards([board_id]).get(board_id)
        listed = _listed(project, configuration)
        statuses = self._catalogues.catalogues()["statuses"]
        columns = _columns(configuration, statuses)
        column_of = _column_of(columns)
        sprint = None
        if listed.type == "kanban":
            rows = self._kanban_rows(project.label, column_of, _done_names(columns))
        else:
            sprint = _active_sprint(board_id, project.label)
            rows = _sprint_rows(sprint.sprint_id) if sprint is not None else []
        cards = sorted((_card(row, column_of) for row in rows), key=_order)
        shown = cards[:MAX_CARDS]
        people = {u.name: u.display_name for u in self._catalogues.users([c.assignee for c in shown if c.assignee])
                  .values()}
        return Board(listed, columns, sprint, shown, len(cards), people)

    def _kanban_rows(self, label: str, column_of: dict[str, int], done: set[str]) -> list[tuple]:
        """The project's issues in scope (not neighbours, not gone) whose status is on a column; those
        in a done-category status only when updated in the last :data:`DONE_DAYS` days."""
        if not column_of:
            return []
        where = conditions(project=label, neighbor=0)
        names = sorted(column_of)
        sql = " AND ".join([*(condition for condition, _ in where), f"issue.status IN ({', '.join('?' * len(names))})"])
        params: list[Any] = [*(p for _, ps in where for p in ps), *names]
        since = iso(self._clock.now() - timedelta(days=DONE_DAYS))
        query = _CARD_COLUMNS.format(where=sql)
        return [row for row in database.execute_sql(query, params).fetchall()
                if row[4] not in done or (row[8] is not None and row[8] >= since)]


# A card's columns of ``issue``, then ``jira_updated_at``; ``{where}`` holds the conditions.
_CARD_COLUMNS = ("SELECT issue.key, issue.summary, issue.issue_type, issue.priority, issue.status, issue.assignee, "
                 "issue.custom_fields, issue.transitions, issue.jira_updated_at FROM issue WHERE {where}")


def _listed(project: Project, configuration: JiraCatalogue | None) -> ListedBoard:
    assert project.board_id is not None, "only a project with a board is listed"
    return ListedBoard(project.board_id, configuration.name if configuration is not None else None,
                       project.board_type, project.label, configuration is not None)


def _columns(configuration: JiraCatalogue | None, statuses: list[JiraCatalogue]) -> list[Column]:
    """The configured columns with their statuses named from the catalogue, or the three fallback
    columns of the catalogue's statuses by category."""
    by_id = {row.jira_id: row for row in statuses}
    if configuration is not None:
        return [Column(str(column.get("name") or ""),
                       [_status(sid, by_id.get(sid)) for sid in column.get("statuses") or ()])
                for column in (configuration.detail or {}).get("columns") or ()]
    return [Column(name, [_status(row.jira_id, row) for row in statuses
                          if (row.detail or {}).get("category_key") == category])
            for name, category in FALLBACK_COLUMNS]


def _status(status_id: str, row: JiraCatalogue | None) -> Status:
    return Status(str(status_id), row.name if row is not None else None,
                  (row.detail or {}).get("category_key") if row is not None else None)


def _column_of(columns: list[Column]) -> dict[str, int]:
    """The column index of each status name on the board (a status on two columns: the first)."""
    found: dict[str, int] = {}
    for index, column in enumerate(columns):
        for status in column.statuses:
            if status.name is not None:
                found.setdefault(status.name, index)
    return found


def _done_names(columns: list[Column]) -> set[str]:
    return {s.name for column in columns for s in column.statuses if s.category_key == "done" and s.name}


def _active_sprint(board_id: int, label: str) -> Sprint | None:
    """The board's active sprint, the latest started; without one, any active sprint of the project's
    issues (Jira's sprint field may not name its board)."""
    latest = (Sprint.start_date.is_null(), Sprint.start_date.desc(), Sprint.sprint_id.desc())
    sprint = (Sprint.select().where(Sprint.state == "active", Sprint.board_id == board_id)
              .order_by(*latest).first())
    if sprint is not None:
        return sprint
    where = conditions(project=label, neighbor=0)
    keys = ("SELECT issue.key FROM issue WHERE " + " AND ".join(condition for condition, _ in where))
    params = [p for _, ps in where for p in ps]
    found = database.execute_sql(
        "SELECT sprint.sprint_id FROM sprint WHERE sprint.state = 'active' AND sprint.sprint_id IN "
        f"(SELECT issue_sprint.sprint_id FROM issue_sprint WHERE issue_sprint.key IN ({keys})) "
        "ORDER BY sprint.start_date IS NULL, sprint.start_date DESC, sprint.sprint_id DESC LIMIT 1",
        params).fetchone()
    return Sprint.get_by_id(found[0]) if found else None


def _sprint_rows(sprint_id: int) -> list[tuple]:
    """The issues (not gone) in the sprint."""
    return database.execute_sql(_CARD_COLUMNS.format(
        where="issue.gone_at IS NULL AND issue.key IN (SELECT key FROM issue_sprint WHERE sprint_id = ?)"),
        [sprint_id]).fetchall()


def _card(row: tuple, column_of: dict[str, int]) -> Card:
    key, summary, issue_type, priority, status, assignee, custom, transitions = row[:8]
    custom = _json(custom) or {}
    rank = flagged = None
    for value in custom.values():
        if not isinstance(value, dict):
            continue
        if value.get("name") == RANK_FIELD or str(value.get("custom") or "").endswith(_RANK_TYPE):
            rank = value.get("value") if isinstance(value.get("value"), str) else rank
        elif value.get("name") == FLAGGED_FIELD and value.get("value") not in (None, "", [], {}):
            flagged = True
    return Card(key, summary or "", issue_type, priority, status, assignee, bool(flagged),
                column_of.get(status) if status is not None else None,
                _json(transitions), rank)


def _order(card: Card) -> tuple:
    """By rank (cards without one after those with), then by key as people order keys."""
    project, _, number = card.key.rpartition("-")
    return card.rank is None, card.rank or "", project, int(number) if number.isdigit() else 0


def _json(value: Any) -> Any:
    """A JSON column's value as Python (text on both engines; parsed already by a driver that did)."""
    return json.loads(value) if isinstance(value, str | bytes) else value
