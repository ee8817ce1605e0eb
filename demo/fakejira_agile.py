"""Jira Software's agile boards in the fake Jira: ``GET /rest/agile/1.0/board/{id}`` and
``GET /rest/agile/1.0/board/{id}/configuration``, in the shapes Jira Server/DC 8 and 9 answer.

A board is added with :meth:`Boards.add` (``FakeJira.add_board``): its id, name, type (``scrum`` or
``kanban``) and columns, each a name and the NAMES of the statuses mapped to it, which the fake turns
into its status ids as Jira's configuration lists them (``{"id", "self"}``). A board not added answers
404 with Jira's words; ``refused`` (board id -> status) makes one answer 403 or 404 to the user, as a
board whose filter is not shared with it does.
"""

from __future__ import annotations

import re
from typing import Any

from demo.jirashapes import CUSTOM, STATUSES

_STATUS_IDS = {status["name"]: status["id"] for status in STATUSES}
_BOARD_PATH = re.compile(r"/rest/agile/1\.0/board/(\d+)(/configuration)?")
BOARD_TYPES = ("scrum", "kanban")
NOT_VIEWABLE = ("The requested board cannot be viewed because it either does not exist or you do not have "
                "permission to view it.")


class Boards:
    """The fake's boards, by id; ``refused`` answers a board's requests with that status instead."""

    def __init__(self, base_url: Any):
        self._base_url = base_url  # called for the fake's URL, known once it is started
        self.boards: dict[int, dict] = {}
        self.refused: dict[int, int] = {}

    def add(self, board_id: int, name: str, type: str, columns: list[tuple[str, list[str]]],
            project: str = "AURORA") -> dict:
        """A board of ``project`` with ``columns`` ``(name, [status name, ...])``; a status name the fake
        does not know is a KeyError (a test's mistake, not a board Jira could have)."""
        if type not in BOARD_TYPES:
            raise ValueError(f"a board is scrum or kanban, not {type!r}")
        self.boards[board_id] = {"id": board_id, "name": name, "type": type, "project": project,
                                 "columns": [(column, [_STATUS_IDS[status] for status in statuses])
                                             for column, statuses in columns]}
        return self.boards[board_id]

    def route(self, method: str, path: str) -> tuple[int, Any, list]:
        """The answer to an agile request; a KeyError (the fake's 404) for a path it does not serve."""
        match = _BOARD_PATH.fullmatch(path)
        if match is None or method != "GET":
            raise KeyError(path)
        board_id = int(match[1])
        if board_id in self.refused:
            status = self.refused[board_id]
            words = NOT_VIEWABLE if status == 404 else "You do not have permission to view this board."
            return status, {"errorMessages": [words], "errors": {}}, []
        board = self.boards.get(board_id)
        if board is None:
            return 404, {"errorMessages": [NOT_VIEWABLE], "errors": {}}, []
        return 200, self._configuration(board) if match[2] else self._board(board), []

    def _self(self, tail: str) -> str:
        return f"{self._base_url()}/rest/agile/1.0/{tail}"

    def _location(self, board: dict) -> dict:
        return {"type": "project", "key": board["project"], "id": "10000",
                "self": f"{self._base_url()}/rest/api/2/project/10000", "name": board["project"]}

    def _board(self, board: dict) -> dict:
        return {"id": board["id"], "self": self._self(f"board/{board['id']}"), "name": board["name"],
                "type": board["type"],
                "location": {"projectId": 10000, "displayName": f"{board['project']} ({board['project']})",
                             "projectName": board["project"], "projectKey": board["project"],
                             "projectTypeKey": "software", "name": f"{board['project']} ({board['project']})"}}

    def _configuration(self, board: dict) -> dict:
        """As Jira Server answers it: the type is not named, a kanban board has its sub-query, a scrum
        board its estimation."""
        config: dict[str, Any] = {
            "id": board["id"], "name": board["name"], "self": self._self(f"board/{board['id']}/configuration"),
            "location": self._location(board),
            "filter": {"id": str(10000 + board["id"]),
                       "self": f"{self._base_url()}/rest/api/2/filter/{10000 + board['id']}"},
            "columnConfig": {"columns": [
                {"name": column, "statuses": [{"id": sid, "self": f"{self._base_url()}/rest/api/2/status/{sid}"}
                                              for sid in ids]}
                for column, ids in board["columns"]], "constraintType": "issueCount"},
            "ranking": {"rankCustomFieldId": int(CUSTOM["rank"]["id"].split("_")[1])},
        }
        if board["type"] == "kanban":
            config["subQuery"] = {"query": "fixVersion in unreleasedVersions() OR fixVersion is EMPTY"}
        else:
            config["estimation"] = {"type": "field", "field": {"fieldId": CUSTOM["story_points"]["id"],
                                                                "displayName": "Story Points"}}
        return config
