"""File-store cleanup: keeps the store (``files/`` or the S3 bucket) in bounds,
reading the database only to decide (its one write adds what it removed to the
tallies of ``GET /metrics``).

Rules, in order; each file is counted under the first rule that takes it:

1. ``tmp``: upload leftovers older than an hour (``files/.tmp/``; on S3, objects
   under ``<prefix>/.tmp/`` and abandoned multipart uploads, aborted);
2. ``unnamed``: files that no ``attachment_file`` row names, older than an hour
   (younger ones may be uploads whose ``done`` has not arrived yet);
3. ``gone``: files whose attachments are all gone from ``issue_attachment``;
4. ``old``: files last fetched longer ago than ``HUB_FILES_MAX_AGE_DAYS``;
5. ``quota``: then the least recently fetched, until the store is under
   ``HUB_FILES_QUOTA_BYTES``.

A file a write still to reach Jira names (``write.file`` of a write whose stored status is
``pending``: an ``attach`` asked for and not yet applied) is taken by no rule: it is the upload
the agent will send to Jira (docs/writes.md). Once the write ends, its file is unnamed and
goes by rule 2 like any other.

``attachment_file`` rows are never deleted: a row whose file is gone reads as
state ``none``. Removing a file that is being downloaded is safe: the open file
(on S3, the node's cache file) stays readable until the download closes it.
Times are the store's: a file's mtime, an object's LastModified, a multipart
upload's Initiated.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from hub.clock import Clock, iso
from hub.db import database
from hub.services.files.store import FileStore, StoredFile
from hub.services.tallies import CLEANUP, add_tallies

log = logging.getLogger(__name__)

GRACE_SECONDS = 3600
RULES = ("tmp", "unnamed", "gone", "old", "quota")

# Per stored file: when it was last fetched, and whether any of the attachments
# that name it is still listed on an issue (CASE: PostgreSQL has no max() of booleans).
_FILES_IN_USE = """
SELECT af.file, max(af.fetched_at),
       max(CASE WHEN EXISTS (SELECT 1 FROM issue_attachment ia WHERE ia.attachment_id = af.attachment_id)
           THEN 1 ELSE 0 END)
FROM attachment_file af GROUP BY af.file
"""
# The uploads of writes not yet applied: an agent is still to send them to Jira.
_FILES_OF_OPEN_WRITES = "SELECT DISTINCT file FROM write WHERE file IS NOT NULL AND status = 'pending'"


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
    file: StoredFile
    last_fetched: str | None = None
    named: bool = False
    listed: bool = False
    open_write: bool = False


class CleanupService:
    def __init__(self, store: FileStore, quota_bytes: int, max_age_days: int, clock: Clock):
        self._store = store
        self._quota_bytes = quota_bytes
        self._max_age_days = max_age_days
        self._clock = clock

    def run(self, dry_run: bool = False) -> CleanupReport:
        """Apply the rules in order, removing (unless ``dry_run``) and reporting what each takes."""
        report = CleanupReport(dry_run)
        now = self._clock.now()
        grace_line = now.timestamp() - GRACE_SECONDS
        for upload in self._store.uploads():
            if upload.mtime < grace_line:
                self._remove(report, "tmp", upload)
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
        stored = {entry.name: _Stored(entry) for entry in self._store.files()}
        with database.atomic("DEFERRED"):  # a read: one consistent snapshot
            for name, last_fetched, listed in database.execute_sql(_FILES_IN_USE):
                if name in stored:
                    entry = stored[name]
                    entry.named, entry.last_fetched, entry.listed = True, last_fetched, bool(listed)
            for (name,) in database.execute_sql(_FILES_OF_OPEN_WRITES):
                if name in stored:
                    stored[name].open_write = True
        return list(stored.values())

    def _by_use(self, report: CleanupReport, stored: list[_Stored], grace_line: float,
                age_line: str) -> list[_Stored]:
        """Rules ``unnamed``, ``gone`` and ``old``; the files none of them takes."""
        keep = []
        for entry in stored:
            if entry.open_write:
                keep.append(entry)
            elif not entry.named:
                if entry.file.mtime < grace_line:
                    self._remove(report, "unnamed", entry.file)
                else:
                    keep.append(entry)
            elif not entry.listed:
                self._remove(report, "gone", entry.file)
            # A named file has a fetch time: attachment_file.fetched_at is NOT NULL.
            elif (entry.last_fetched or "") < age_line:
                self._remove(report, "old", entry.file)
            else:
                keep.append(entry)
        return keep

    def _to_quota(self, report: CleanupReport, keep: list[_Stored]) -> int:
        """Rule ``quota``; the bytes the store keeps."""
        total = sum(entry.file.size for entry in keep)
        # Least recently fetched first; young unnamed uploads last of all.
        for entry in sorted(keep, key=lambda e: (e.last_fetched is None, e.last_fetched or "")):
            if total <= self._quota_bytes:
                break
            if entry.open_write:
                continue
            self._remove(report, "quota", entry.file)
            total -= entry.file.size
        return total

    def _remove(self, report: CleanupReport, rule: str, entry: StoredFile) -> None:
        report.removed[rule].append((entry.name, entry.size))
        if not report.dry_run:
            self._store.remove(entry)
