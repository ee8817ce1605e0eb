"""``/api/v1/filters``: JQL queries saved in the hub, and the issues each finds."""

from __future__ import annotations

import falcon

from hub import shapes
from hub.api import schemas
from hub.api.auth import INTERFACE
from hub.api.openapi import responds
from hub.api.validation import accepts, query
from hub.services.issues.saved_filters import FilterService, Owner


def _owner(req: falcon.Request) -> Owner:
    principal = req.context.principal
    return Owner(principal.token_id, principal.role)


class FiltersResource:
    roles = INTERFACE

    def __init__(self, filters: FilterService):
        self._filters = filters

    @responds(answers=schemas.FILTER_PAGE)
    @query(schemas.FILTER_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The saved filters, every token's, the newest first."""
        resp.media = shapes.page_of(shapes.saved_filter, self._filters.list(**req.context.query))

    @responds(201, errors=(409,), location="/api/v1/filters/{id}", answers=schemas.SAVED_FILTER)
    @accepts(schemas.NEW_FILTER)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Save a JQL query under a name (its JQL must parse); the calling token owns it."""
        body = req.context.body
        saved = self._filters.create(_owner(req), body["name"], body["jql"])
        resp.media = shapes.saved_filter(saved)
        resp.status = falcon.HTTP_201
        resp.location = f"/api/v1/filters/{saved.id}"


class FilterResource:
    roles = INTERFACE

    def __init__(self, filters: FilterService):
        self._filters = filters

    @responds(answers=schemas.SAVED_FILTER)
    def on_get(self, req: falcon.Request, resp: falcon.Response, filter_id: int) -> None:
        """One saved filter."""
        resp.media = shapes.saved_filter(self._filters.get(filter_id))

    @responds(errors=(409,), answers=schemas.SAVED_FILTER)
    @accepts(schemas.FILTER_EDIT)
    def on_patch(self, req: falcon.Request, resp: falcon.Response, filter_id: int) -> None:
        """Change a filter's name or JQL: its owner's token or an admin token only."""
        resp.media = shapes.saved_filter(self._filters.edit(_owner(req), filter_id, **req.context.body))

    @responds(204)
    def on_delete(self, req: falcon.Request, resp: falcon.Response, filter_id: int) -> None:
        """Delete a filter: its owner's token or an admin token only."""
        self._filters.delete(_owner(req), filter_id)
        resp.status = falcon.HTTP_204


class FilterIssuesResource:
    roles = INTERFACE

    def __init__(self, filters: FilterService):
        self._filters = filters

    @responds(answers=schemas.ISSUE_PAGE)
    @query(schemas.FILTER_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response, filter_id: int) -> None:
        """The issues a saved filter finds now, as GET /api/v1/issues?jql= lists them."""
        resp.media = shapes.page_of(shapes.listed_issue, self._filters.run(filter_id, **req.context.query))
