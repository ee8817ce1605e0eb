"""Saved filters: JQL queries kept in the hub under a name, by the token that saved them.

A filter is read and run by every interface token (a team's filters are the team's, as a
Jira filter shared with a group is); only the token that saved it, or an admin token, may
change or delete it. One token keeps at most ``per_token`` filters (a new one past it is a
Conflict, as a token's agent ids past their bound are). Its JQL is parsed when it is saved,
so a filter that is kept always parses; what it means (fields, functions, dates) is decided
each time it runs, against the mirror as it is then.
"""

from __future__ import annotations

from dataclasses import dataclass

from peewee import JOIN

from hub import dialect
from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, Forbidden, InvalidQuery, NotFound
from hub.models import SavedFilter, Token
from hub.services.issues.reading import IssueService
from hub.services.pagination import page
from hub.services.search.jql.parser import parse
from hub.services.search.jql.tree import JqlError
from hub.vocabulary import ADMIN


@dataclass(frozen=True)
class Owner:
    """Who asks: the token's id and role (an admin may change any filter)."""

    token_id: int | None
    role: str


@dataclass(frozen=True)
class Filter:
    """A saved filter with its owner's token name (None once that token is revoked)."""

    id: int
    name: str
    jql: str
    owner_token_id: int | None
    owner: str | None
    created_at: str
    updated_at: str


def checked_jql(jql: str) -> str:
    """``jql`` if it parses; else the 422 that names ``jql`` and says where it does not, as
    ``GET /api/v1/issues?jql=`` does (InvalidQuery: its ``position``)."""
    try:
        parse(jql)
    except JqlError as exc:
        raise InvalidQuery(exc.message, exc.at) from None
    return jql


# The default of HUB_SAVED_FILTERS_PER_TOKEN (hub.config).
FILTERS_PER_TOKEN = 200


class FilterService:
    def __init__(self, issues: IssueService, clock: Clock, *, per_token: int = FILTERS_PER_TOKEN):
        self._issues = issues
        self._clock = clock
        self._per_token = per_token

    def list(self, *, cursor: int | None = None, limit: int = 50) -> dict:
        """Every saved filter, the newest first, as :class:`Filter` items (keyset-paged by id)."""
        return page(_with_owner(), SavedFilter.id, cursor, limit, _filter)

    def get(self, filter_id: int) -> Filter:
        row = _with_owner().where(SavedFilter.id == filter_id).first()
        if row is None:
            raise NotFound(f"no saved filter {filter_id}")
        return _filter(row)

    def create(self, owner: Owner, name: str, jql: str) -> Filter:
        """Save ``jql`` under ``name`` for ``owner``; a name the owner already uses, or one
        filter more than the owner may keep, is a conflict."""
        checked_jql(jql)
        now = iso(self._clock.now())
        with database.atomic():
            self._room_for_one_more(owner.token_id)
            self._name_is_free(owner.token_id, name)
            row = SavedFilter.create(name=name, jql=jql, owner_token_id=owner.token_id,
                                     created_at=now, updated_at=now)
        return self.get(row.id)

    def edit(self, owner: Owner, filter_id: int, *, name: str | None = None, jql: str | None = None) -> Filter:
        """Change a filter's name and/or JQL; only its owner or an admin may."""
        if jql is not None:
            checked_jql(jql)
        with database.atomic():
            row = self._owned(owner, filter_id)
            if name is not None and name != row.name:
                self._name_is_free(row.owner_token_id, name)
                row.name = name
            if jql is not None:
                row.jql = jql
            row.updated_at = iso(self._clock.now())
            row.save()
        return self.get(filter_id)

    def delete(self, owner: Owner, filter_id: int) -> None:
        """Delete a filter; only its owner or an admin may."""
        with database.atomic():
            self._owned(owner, filter_id).delete_instance()

    def run(self, filter_id: int, *, cursor: int | None = None, limit: int = 50) -> dict:
        """The issues the filter's JQL finds now, as ``GET /api/v1/issues?jql=`` lists them."""
        return self._issues.list(jql=self.get(filter_id).jql, cursor=cursor, limit=limit)

    @staticmethod
    def _owned(owner: Owner, filter_id: int) -> SavedFilter:
        # Its row locked to the end of the write: an edit and a delete at once take turns.
        database.execute_sql(f"SELECT 1 FROM saved_filter WHERE id = ?{dialect.current().for_update}", (filter_id,))
        row = SavedFilter.get_or_none(SavedFilter.id == filter_id)
        if row is None:
            raise NotFound(f"no saved filter {filter_id}")
        if owner.role != ADMIN and row.owner_token_id != owner.token_id:
            raise Forbidden(f"saved filter {filter_id} belongs to another token; only its owner "
                            "or an admin token may change or delete it")
        return row

    def _room_for_one_more(self, owner_token_id: int | None) -> None:
        if owner_token_id is None:
            return
        # Counted and taken as one (locks in one order: the owner's count, then the name):
        # two saves at once past the bound, one wins.
        dialect.hold(f"saved filters of token {owner_token_id}")
        kept = (SavedFilter.select().where(SavedFilter.owner_token_id == owner_token_id)
                .limit(self._per_token).count())
        if kept >= self._per_token:
            raise Conflict(f"this token keeps {kept} saved filters, as many as one token may "
                           f"(HUB_SAVED_FILTERS_PER_TOKEN = {self._per_token}); delete one it no "
                           "longer needs, or change one, to save another")

    @staticmethod
    def _name_is_free(owner_token_id: int | None, name: str) -> None:
        # Checked and taken as one (no row to lock yet): two saves of one name at once, one wins.
        dialect.hold(f"saved filter name {owner_token_id} {name}")
        taken = SavedFilter.get_or_none((SavedFilter.owner_token_id == owner_token_id) & (SavedFilter.name == name))
        if taken is not None:
            raise Conflict(f"a saved filter named {name!r} exists already (id {taken.id})", id=taken.id)


def _with_owner():
    return (SavedFilter.select(SavedFilter, Token.name.alias("owner"))
            .join(Token, JOIN.LEFT_OUTER, on=(Token.id == SavedFilter.owner_token_id)).objects())


def _filter(row) -> Filter:
    return Filter(row.id, row.name, row.jql, row.owner_token_id, row.owner, row.created_at, row.updated_at)
