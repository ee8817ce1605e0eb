"""``/api/v1/boards``: the projects' agile boards, their columns and their cards."""

from __future__ import annotations

import falcon

from hub import shapes
from hub.api import schemas
from hub.api.auth import INTERFACE
from hub.api.openapi import responds
from hub.services.issues.boards import BoardService


class BoardsResource:
    roles = INTERFACE

    def __init__(self, boards: BoardService):
        self._boards = boards

    @responds(answers=schemas.BOARDS)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """One board per project that names one, by project label; ``name`` null and ``configured``
        false until an agent has sent the board's configuration."""
        resp.media = {"items": [shapes.listed_board(item) for item in self._boards.listed()]}


class BoardResource:
    roles = INTERFACE

    def __init__(self, boards: BoardService):
        self._boards = boards

    @responds(answers=schemas.BOARD)
    def on_get(self, req: falcon.Request, resp: falcon.Response, board_id: int) -> None:
        """A board: its columns and their statuses (Jira's configuration, or three columns by status
        category until an agent sent it), its active sprint (scrum), and its cards, at most 500 by rank
        then key (``total`` counts them all). 404 for an id no project names."""
        resp.media = shapes.board(self._boards.get(board_id))
