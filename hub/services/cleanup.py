"""File-store cleanup: keeps ``files/`` in bounds, reading the database only to
decide (its one write adds what it removed to the tallies of ``GET /metrics``).

Rules, in order; each file is counted under the first rule that takes it:

1. ``tmp``: upload leftovers in ``files/.tmp/`` older than an hour;
2. ``unnamed``: files that no ``attachment_file`` row names, older than an hour
   (younger ones may be uploads whose ``done`` has not arrived yet);
3. ``gone``: files whose attachments are all gone from ``issue_attachment``;
4. ``old``: files last fetched longer ago than ``HUB_FILES_MAX_AGE_DAYS``;
5. ``quota``: then the least recently fetched, until the store is under
   ``HUB_FILES_QUOTA_BYTES``.

``attachment_file`` rows are never deleted: a row whose file is gone reads as
state ``none``. Removing a file that is being downloaded is safe: the open file
stays readable until the download closes it.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from hub.clock import Clock, iso
from hub.config import Config
from hub.db import database
from hub.services.files import FileStore, is_sha256
from hub.services.tallies import CLEANUP, add_tallies

log = logging.getLogger(__name__)

GRACE_SECONDS = 3600
RULES = ("tmp", "unnamed", "gone", "old", "quota")

# Per stored file: when it was last fetched, and whether any of the attachments
# that name it is still listed on an issue.
_FILES_IN_USE = """
SELECT af.file, max(af.fetched_at),
       max(EXISTS (SELECT 1 FROM issue_attachment ia WHERE ia.attachment_id = af.attachment_id))
FROM attachment_file af GROUP BY af.file
"""


@dataclass
class CleanupReport:
    """What a cleanup removed (or, dry, would remove), by rule."""

    dry_run: bool
    removed: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: {r: [] for r in RULES})
    kept_bytes: int = 0

    @property
    def files(self) -> int:
        return sum(len(items) for items in self.removed.values())

    @property
    def bytes(self) -> int:
        return sum(size for items in self.removed.values() for _, size in items)

    def summary(self) -> dict:
        return {"dry_run": self.dry_run, "files": self.files, "bytes": self.bytes,
                "kept_bytes": self.kept_bytes,
                "by_rule": {rule: {"files": len(items), "bytes": sum(s for _, s in items)}
                            for rule, items in self.removed.items()}}


@dataclass
class _Stored:
    name: str
    size: int
    mtime: float
    last_fetched: str | None = None
    named: bool = False
    listed: bool = False


class CleanupService:
    def __init__(self, store: FileStore, quota_bytes: int, max_age_days: int,
                 clock: Clock | None = None):
        self._store = store
        self._quota_bytes = quota_bytes
        self._max_age_days = max_age_days
        self._clock = clock or Clock()

    @classmethod
    def from_config(cls, config: Config) -> CleanupService:
        """The cleanup the hub's settings describe, for ``hub cleanup`` and the periodic task."""
        return cls(FileStore(config.files_dir), config.files_quota_bytes, config.files_max_age_days)

    def run(self, dry_run: bool = False) -> CleanupReport:
        """Apply the rules in order, removing (unless ``dry_run``) and reporting what each takes."""
        report = CleanupReport(dry_run)
        now = self._clock.now()
        grace_line = now.timestamp() - GRACE_SECONDS
        for path in self._entries(self._store.tmp):
            stat = path.stat()
            if stat.st_mtime < grace_line:
                self._remove(report, "tmp", path, stat.st_size)
        keep = self._by_use(report, self._stored(), grace_line, iso(now - timedelta(days=self._max_age_days)))
        report.kept_bytes = self._to_quota(report, keep)
        if report.files and not dry_run:
            with database.atomic():
                add_tallies({f"{CLEANUP}.{rule}.{unit}": n for rule, items in report.removed.items()
                             for unit, n in (("files", len(items)), ("bytes", sum(s for _, s in items)))})
        if report.files:
            log.info("cleanup%s: %d files, %d bytes", " (dry run)" if dry_run else "",
                     report.files, report.bytes)
        return report

    def _stored(self) -> list[_Stored]:
        """The store's files, each with what the database says of it."""
        stored = {p.name: _Stored(p.name, st.st_size, st.st_mtime)
                  for p in self._entries(self._store.root) if is_sha256(p.name)
                  for st in [p.stat()]}
        with database.atomic("DEFERRED"):  # a read: one consistent snapshot
            for name, last_fetched, listed in database.execute_sql(_FILES_IN_USE):
                if name in stored:
                    entry = stored[name]
                    entry.named, entry.last_fetched, entry.listed = True, last_fetched, bool(listed)
        return list(stored.values())

    def _by_use(self, report: CleanupReport, stored: list[_Stored], grace_line: float,
                age_line: str) -> list[_Stored]:
        """Rules ``unnamed``, ``gone`` and ``old``; the files none of them takes."""
        keep = []
        for entry in stored:
            if not entry.named:
                if entry.mtime < grace_line:
                    self._remove(report, "unnamed", self._store.root / entry.name, entry.size)
                else:
                    keep.append(entry)
            elif not entry.listed:
                self._remove(report, "gone", self._store.root / entry.name, entry.size)
            # A named file has a fetch time: attachment_file.fetched_at is NOT NULL.
            elif (entry.last_fetched or "") < age_line:
                self._remove(report, "old", self._store.root / entry.name, entry.size)
            else:
                keep.append(entry)
        return keep

    def _to_quota(self, report: CleanupReport, keep: list[_Stored]) -> int:
        """Rule ``quota``; the bytes the store keeps."""
        total = sum(entry.size for entry in keep)
        # Least recently fetched first; young unnamed uploads last of all.
        for entry in sorted(keep, key=lambda e: (e.last_fetched is None, e.last_fetched or "")):
            if total <= self._quota_bytes:
                break
            self._remove(report, "quota", self._store.root / entry.name, entry.size)
            total -= entry.size
        return total

    @staticmethod
    def _entries(directory: Path) -> list[Path]:
        try:
            return [p for p in directory.iterdir() if p.is_file()]
        except FileNotFoundError:
            return []

    @staticmethod
    def _remove(report: CleanupReport, rule: str, path: Path, size: int) -> None:
        report.removed[rule].append((path.name, size))
        if not report.dry_run:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
