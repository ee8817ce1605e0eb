"""Batches: commands an interface submits together, optionally for one project."""

from __future__ import annotations

from dataclasses import dataclass

from peewee import fn

from hub.clock import Clock, iso
from hub.db import database
from hub.errors import ContractError, NotFound
from hub.models import Batch, Command
from hub.services.mirror.projects import lock_project
from hub.services.pagination import page


@dataclass(frozen=True)
class CountedBatch:
    """A batch's row and its commands counted by status."""

    batch: Batch
    commands: dict[str, int]


class BatchService:
    def __init__(self, clock: Clock):
        self._clock = clock

    def create(self, title: str, created_by: str, project: str | None = None) -> CountedBatch:
        with database.atomic():
            # The project's row locked: a removal of it waits for this batch, and counts it.
            if project is not None and not lock_project(project):
                raise ContractError(f"no project {project!r}", "project")
            batch = Batch.create(title=title, created_by=created_by, project=project,
                                 created_at=iso(self._clock.now()))
        return self._counted(batch)

    def get(self, batch_id: int) -> CountedBatch:
        batch = Batch.get_or_none(Batch.id == batch_id)
        if batch is None:
            raise NotFound(f"no batch {batch_id}")
        return self._counted(batch)

    def list(self, cursor: int | None = None, limit: int = 50) -> dict:
        """Batches (each a :class:`CountedBatch`), newest first, one page of ``limit``."""
        return page(Batch.select(), Batch.id, cursor, limit, self._counted)

    @staticmethod
    def _counted(batch: Batch) -> CountedBatch:
        # Peewee's stubs type the rows of .tuples() as models, hence the ignore.
        counts: dict[str, int] = dict(Command.select(Command.status, fn.COUNT(Command.id))  # type: ignore[arg-type]
                                      .where(Command.batch == batch.id).group_by(Command.status).tuples())
        return CountedBatch(batch, counts)
