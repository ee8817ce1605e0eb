"""API tokens: named, with one role each; only their sha256 is stored.

A token is kept in ``setting`` under ``token:<name>`` as JSON
``{"role", "sha256", "created_at"}``. The token itself is shown once, when it
is made, and never stored or logged. Checking a token compares its hash with
every stored hash in constant time, so the answer's timing tells nothing about
how close a guess came.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass

from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, ContractError, NotFound
from hub.models import Setting

ROLES = ("agent", "interface", "admin")
PREFIX = "token:"
# The same in ECMA-262 (JSON Schema's dialect) and Python: (?![\s\S]) ends the
# string in both, where Python's $ would let a final newline through.
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}(?![\s\S])"
NAME = re.compile(NAME_PATTERN)


@dataclass(frozen=True)
class Principal:
    """Who a request speaks for: the token's name and role."""

    name: str
    role: str


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenService:
    def __init__(self, clock: Clock | None = None):
        self._clock = clock or Clock()

    def add(self, name: str, role: str) -> str:
        """Make a token; returns it — the only time it is ever available."""
        if not NAME.match(name):
            raise ContractError(
                f"token name {name!r} must be 1-64 letters, digits, '.', '_' or '-'", "name")
        if role not in ROLES:
            raise ContractError(f"role must be one of {', '.join(ROLES)}, got {role!r}", "role")
        token = secrets.token_urlsafe(32)
        record = {"role": role, "sha256": _digest(token), "created_at": iso(self._clock.now())}
        with database.atomic():
            if Setting.get_or_none(Setting.key == PREFIX + name) is not None:
                raise Conflict(f"a token named {name!r} exists; revoke it first")
            Setting.create(key=PREFIX + name, value=json.dumps(record))
        return token

    def list(self) -> list[dict]:
        """``[{name, role, created_at}]``, by name; never the hashes."""
        return [
            {"name": name, "role": record["role"], "created_at": record["created_at"]}
            for name, record in self._records()
        ]

    def revoke(self, name: str) -> None:
        with database.atomic():
            deleted = Setting.delete().where(Setting.key == PREFIX + name).execute()
        if not deleted:
            raise NotFound(f"no token named {name!r}")

    def create_first_admin(self) -> str | None:
        """On a hub with no tokens at all, make an ``admin`` token named ``admin``.

        Returns the token, or None when tokens exist. Check and insert share one
        write transaction, so two hubs starting at once make one token.
        """
        token = secrets.token_urlsafe(32)
        record = {"role": "admin", "sha256": _digest(token), "created_at": iso(self._clock.now())}
        with database.atomic():
            if Setting.select().where(Setting.key.startswith(PREFIX)).exists():
                return None
            Setting.create(key=PREFIX + "admin", value=json.dumps(record))
        return token

    def authenticate(self, token: str) -> Principal | None:
        """The principal a presented token stands for, or None."""
        digest = _digest(token)
        found = None
        for name, record in self._records():
            # No early exit: every stored hash is compared.
            if hmac.compare_digest(digest, record["sha256"]):
                found = Principal(name, record["role"])
        return found

    def _records(self) -> list[tuple[str, dict]]:
        rows = (
            Setting.select()
            .where(Setting.key.startswith(PREFIX))
            .order_by(Setting.key)
        )
        return [(row.key[len(PREFIX):], json.loads(row.value)) for row in rows]
