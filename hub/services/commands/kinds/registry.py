"""The registry of command kinds: :class:`Kind`, the base each kind's module subclasses,
:data:`KINDS` and the lookups the services and the API make in it (see the package's docstring)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from hub.errors import Conflict
from hub.models import Command
from hub.vocabulary import OPEN_STATUSES

if TYPE_CHECKING:  # for the annotations only: the services are handed in
    from datetime import datetime

    from hub.clock import Clock
    from hub.services.files.attachments import AttachmentService
    from hub.services.files.store import FileStore
    from hub.services.mirror.loading import RunContext
    from hub.services.mirror.projects import ProjectService


class Queue(Protocol):
    """What a kind may use of the queue (:class:`~hub.services.commands.queue.CommandService`)
    to enqueue a command: the token's bound, the services it asks, the signal to agents."""

    @property
    def projects(self) -> ProjectService: ...

    @property
    def attachments(self) -> AttachmentService: ...

    @property
    def clock(self) -> Clock: ...

    def hold_bound(self, token_id: int | None) -> None: ...

    def check_room(self, token_id: int | None, *, queued_now: bool = False) -> None: ...

    def notify(self) -> None: ...

    def get(self, command_id: int) -> Command: ...

    def enqueue(self, type: str, params: dict | None = None, batch_id: int | None = None, *,
                token_id: int | None = None) -> tuple[Command, bool]: ...


@dataclass
class Reporting:
    """What a kind's report hooks may use, handed in by the report service."""

    projects: ProjectService
    store: FileStore
    now: str
    # A full run that owes the neighbour marking: the report service enqueues it after COMMIT.
    marking: int | None = None


@dataclass(frozen=True)
class Kind:
    """One command type: subclass it in a module of this package, and list its instance
    where the package registers its kinds.

    The defaults are those of a kind interfaces enqueue, that takes no state pages and no
    file, and whose ``done`` records the members of its result the schema names.
    """

    name: str
    # Each member of params, by name, as /openapi.json shows it.
    params: dict[str, dict] = field(default_factory=dict)
    # The members a command of this kind must have (a 422 naming the first missing).
    required: tuple[str, ...] = ()
    # The lowest agent protocol version that is given it.
    since: int = 1
    # None when interfaces may enqueue it; else why not, as the 422 naming ``type`` says it.
    refusal: str | None = None
    # What ``done``'s result holds, as /openapi.json shows it, and in the words of
    # its description ("a refresh's {total, history_at?}").
    result_schema: dict = field(default_factory=dict)
    result_words: str = ""
    # Whether a delivery opens a sync run (closed by done, failed or a lost lease).
    opens_run: bool = False
    # Whether its agent uploads a file (PUT /agent/v1/commands/{id}/file).
    files: bool = False

    # Whether its agent sends state pages (:meth:`page` says how they load).
    pages: bool = False
    # Whether HUB_MAX_DELIVERIES bounds its deliveries: a lease run out that many times fails it.
    # A write is not bounded: it waits out a Jira that is away, however long.
    bounded: bool = True

    @property
    def by_interfaces(self) -> bool:
        """Whether interfaces may enqueue it (POST /api/v1/commands)."""
        return self.refusal is None

    @property
    def result_members(self) -> tuple[str, ...]:
        """The members of a result that a ``done`` records and a repeated ``done`` compares."""
        return tuple(self.result_schema.get("properties", {}))

    def checked_params(self, params: dict, now: datetime) -> dict:
        """Params past the kind's own rule on their values, as they are to be kept;
        raises ContractError naming the member. Called after the members were checked."""
        return params

    def enqueue(self, queue: Queue, params: dict, batch_id: int | None,
                token_id: int | None) -> tuple[Command, bool]:
        """Enqueue one for an interface: ``(command, created)``."""
        raise NotImplementedError(f"{self.name} commands are enqueued by the hub itself")

    def retry(self, queue: Queue, command: Command, token_id: int | None) -> tuple[Command, bool]:
        """Enqueue again a failed or cancelled command of this kind: by the rules of
        :meth:`~hub.services.commands.queue.CommandService.enqueue`, unless the kind says otherwise."""
        return queue.enqueue(command.type, dict(command.params or {}), command.batch_id, token_id=token_id)

    def page(self, reporting: Reporting, command: Command, issues: list) -> tuple[RunContext, int]:
        """How a state page of a held command loads: its context and the issues its run
        has loaded so far. Called only when :attr:`pages`."""
        raise NotImplementedError(f"{self.name} commands take no state pages")

    def recorded(self, result: Any) -> Any:
        """What of a ``done``'s result is kept on the command (checked by :meth:`done`)."""
        if not isinstance(result, dict):
            return result
        return {name: result.get(name) for name in self.result_members}

    def done(self, reporting: Reporting, command: Command, result: Any) -> None:
        """Act on a ``done`` inside its transaction, the command finished already; raises
        (ContractError, Conflict) when the result is wrong, which undoes the finish."""


KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    """Add a kind to the registry, after those there; returns it."""
    if kind.name in KINDS:
        raise ValueError(f"a command kind {kind.name!r} is registered already")
    KINDS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Remove a kind from the registry (a test's own kind, once it is done)."""
    del KINDS[name]


def kind(name: str) -> Kind:
    """The kind of this name; KeyError if there is none."""
    return KINDS[name]


def names() -> list[str]:
    """Every kind's name, in the registry's order."""
    return list(KINDS)


def enqueued_by_interfaces() -> list[str]:
    """The kinds interfaces may enqueue, in the registry's order."""
    return [k.name for k in KINDS.values() if k.by_interfaces]


def claimable(version: int, asked: Iterable[str] | None) -> list[str]:
    """The kinds an agent of protocol ``version`` is given: those it ``asked`` for
    (every kind when it named none) that it is new enough for, in its order."""
    return [name for name in (asked or KINDS) if name in KINDS and version >= KINDS[name].since]


def unbounded() -> set[str]:
    """The kinds whose deliveries HUB_MAX_DELIVERIES does not bound."""
    return {k.name for k in KINDS.values() if not k.bounded}


def opening_runs() -> set[str]:
    """The kinds whose delivery opens a sync run."""
    return {k.name for k in KINDS.values() if k.opens_run}


def spoken(words: list[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``: a list of words as a sentence says it."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"


def taking_pages(command: Command) -> Kind:
    """The kind of a command that a state page is about; Conflict if it takes none."""
    return _taking(command, "pages", "state pages")


def taking_files(command: Command) -> Kind:
    """The kind of a command that an upload is about; Conflict if it takes none."""
    return _taking(command, "files", "files")


def _taking(command: Command, flag: str, what: str) -> Kind:
    found = KINDS.get(command.type)
    if found is None or not getattr(found, flag):
        takers = [k.name for k in KINDS.values() if getattr(k, flag)]
        raise Conflict(f"command {command.id} is a {command.type}; {what} belong "
                       f"to {spoken(takers)} commands")
    return found


def open_same(type: str, params: dict) -> Command | None:
    """The oldest open (queued or claimed) command of ``type`` with exactly ``params``:
    the one a kind answers a request for the same with, instead of queuing another."""
    # Compared as values, not as stored text: a command queued by an older hub may spell
    # the same JSON otherwise. Open commands of one type are few (a token's bound).
    for command in (Command.select().where(Command.type == type, Command.status.in_(OPEN_STATUSES))
                    .order_by(Command.id)):
        if command.params == params:
            return command
    return None
