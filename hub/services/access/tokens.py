"""API tokens: named, with one role each; only their sha256 is stored.

Tokens live in the ``token`` table (schema v7). The token itself is shown once,
when it is made, and never stored or logged. A request finds its token by the
unique index on ``sha256``: the lookup's timing depends on the hash of what was
presented, which tells nothing about how close a guess came to a real token.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass

from hub import dialect
from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, ContractError, NotFound, Unauthenticated
from hub.models import Token, WebSession
from hub.vocabulary import ADMIN, INTERFACE, TOKEN_ROLES

# The same in ECMA-262 (JSON Schema's dialect) and Python: (?![\s\S]) ends the
# string in both, where Python's $ would let a final newline through.
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}(?![\s\S])"
NAME = re.compile(NAME_PATTERN)


@dataclass(frozen=True)
class Principal:
    """Who a request speaks for: the token's id, name and role, and whether it was granted writes
    to Jira (``hub token add NAME --role interface --write``)."""

    token_id: int
    name: str
    role: str
    may_write: bool = False

    @property
    def can_write(self) -> bool:
        """Whether this principal may ask for writes to Jira: an admin, or a token granted them."""
        return self.role == ADMIN or bool(self.may_write)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """32 random bytes, URL-safe, never starting with ``-``: a token is passed on
    command lines (``hub-agent run --token TOKEN``), where a leading ``-`` reads
    as an option."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


def token_exists(token_id: int) -> bool:
    """Whether the token with this id still exists: one lookup by the primary key."""
    return database.execute_sql("SELECT 1 FROM token WHERE id = ?", (token_id,)).fetchone() is not None


def require_token(token_id: int | None) -> None:
    """Raise Unauthenticated unless the token with this id still exists.

    A long-poll checks this before it hands anything out: its request was
    authenticated when it began, and the token may have been revoked since (by
    the API or by ``hub token revoke`` in another process). ``None`` (a call
    made outside HTTP, with no token) passes.
    """
    if token_id is not None and not token_exists(token_id):
        raise Unauthenticated("The token was revoked while the request waited; nothing was handed out.")


class TokenService:
    def __init__(self, clock: Clock):
        self._clock = clock

    def add(self, name: str, role: str, *, write: bool = False) -> str:
        """Make a token; returns it — the only time it is ever available. ``write`` grants an
        interface token writes to Jira (an admin token may write regardless)."""
        if not NAME.match(name):
            raise ContractError(
                f"token name {name!r} must be 1-64 letters, digits, '.', '_' or '-'", "name")
        if role not in TOKEN_ROLES:
            raise ContractError(f"role must be one of {', '.join(TOKEN_ROLES)}, got {role!r}", "role")
        if write and role not in (INTERFACE, ADMIN):
            raise ContractError(f"write: only an interface token is granted writes to Jira (an admin "
                                f"token may write anyway), not one of role {role!r}", "write")
        token = new_token()
        with database.atomic():
            if Token.select().where(Token.name == name).exists():
                raise Conflict(f"a token named {name!r} exists; revoke it first")
            Token.create(name=name, role=role, sha256=_digest(token),
                         created_at=iso(self._clock.now()), may_write=int(write))
        return token

    def list(self) -> list[Token]:
        """The tokens' rows by name, holding ``name``, ``role``, ``created_at`` and ``may_write``
        alone: never the hashes."""
        return list(Token.select(Token.name, Token.role, Token.created_at, Token.may_write)
                    .order_by(Token.name))

    def revoke(self, name: str) -> None:
        """Delete a token; commands it holds can no longer be reported on by anyone
        (their leases run out and they go back to the queue), and its web sessions
        end with it, in the same transaction."""
        with database.atomic():
            token = Token.get_or_none(Token.name == name)
            if token is None:
                raise NotFound(f"no token named {name!r}")
            WebSession.delete().where(WebSession.token_id == token.id).execute()
            Token.delete().where(Token.id == token.id).execute()

    def create_first_admin(self) -> str | None:
        """On a hub with no tokens at all, make an ``admin`` token named ``admin``.

        Returns the token, or None when tokens exist. Check and insert share one
        write transaction, held alone (SQLite's one writer; on PostgreSQL a lock
        of the transaction's), so however many nodes of a hub start at once, one
        makes the token and the others find it.
        """
        token = new_token()
        with database.atomic():
            dialect.hold("first admin token")
            if Token.select().exists():
                return None
            Token.create(name="admin", role=ADMIN, sha256=_digest(token),
                         created_at=iso(self._clock.now()))
        return token

    def authenticate(self, token: str) -> Principal | None:
        """The principal a presented token stands for, or None."""
        # Every request asks this: plain SQL, since building the same query
        # through the ORM costs more than running it.
        row = database.execute_sql("SELECT id, name, role, may_write FROM token WHERE sha256 = ?",
                                   (_digest(token),)).fetchone()
        return Principal(row[0], row[1], row[2], bool(row[3])) if row else None
