"""File-store cleanup: each rule on its own, dry runs, the command, the periodic task.

The tests with a ``hub`` run on each file store (``[local]``: files/, ``[s3]``: a
bucket of the run's SeaweedFS, see tests/support/s3.py)."""

from __future__ import annotations

import hashlib
import os
import time

import pytest

from hub.models import AttachmentFile, IssueAttachment, Write
from hub.services.files.cleanup import CleanupService
from tests.support import run_hub
from tests.support.s3 import store_fixture  # noqa: F401 -- the fixture `store`

pytestmark = pytest.mark.backends("sqlite", "postgresql")

HOUR = 3600
RECENT = "2999-01-01T00:00:00+00:00"  # fetched "now" as far as the age rule cares


@pytest.fixture
def hub(make_hub, store):
    built = make_hub(**store.settings)
    built.store = store
    return built


def stored(hub, content: bytes, *, age_seconds: float = 0) -> str:
    return hub.store.put(content, age_seconds=age_seconds)


def named(sha: str, attachment_id: str, *, fetched_at: str = RECENT, listed: bool = True,
          size: int = 1) -> None:
    AttachmentFile.create(attachment_id=attachment_id, file=sha, size=size, fetched_at=fetched_at)
    if listed:
        IssueAttachment.create(attachment_id=attachment_id, key="X-1", filename=f"{attachment_id}.bin")


def cleanup(hub, quota: int = 10**12, max_age_days: int = 30) -> CleanupService:
    return CleanupService(hub.built.services.store, quota, max_age_days, hub.store.clock())


def files(hub) -> set[str]:
    return hub.store.names()


def test_tmp_leftovers_older_than_an_hour(hub):
    hub.store.put(b"x" * 10, "old.part", age_seconds=HOUR + 5, upload=True)
    hub.store.put(b"y", "young.part", upload=True)

    report = cleanup(hub).run()

    assert report.removed["tmp"] == [("old.part", 10)]
    assert [entry.name for entry in hub.built.services.store.uploads()] == ["young.part"]


def test_unnamed_files_older_than_an_hour(hub):
    old = stored(hub, b"old", age_seconds=HOUR + 5)
    kept = stored(hub, b"named", age_seconds=10 * HOUR)
    young = stored(hub, b"young")
    named(kept, "1")

    report = cleanup(hub).run()

    assert report.removed["unnamed"] == [(old, 3)]
    assert files(hub) == {young, kept}


def test_files_whose_attachments_are_all_gone(hub):
    gone = stored(hub, b"gone")
    named(gone, "1", listed=False)
    named(gone, "2", listed=False)
    half = stored(hub, b"half")
    named(half, "3", listed=False)
    named(half, "4", listed=True)

    report = cleanup(hub).run()

    assert report.removed["gone"] == [(gone, 4)]
    assert files(hub) == {half}
    assert AttachmentFile.select().count() == 4  # rows are never deleted


def test_files_fetched_too_long_ago(hub):
    old = stored(hub, b"old")
    named(old, "1", fetched_at="2026-01-01T00:00:00+00:00")
    named(old, "2", fetched_at="2026-01-02T00:00:00+00:00")
    fresh = stored(hub, b"fresh")
    named(fresh, "3", fetched_at="2026-01-01T00:00:00+00:00")
    named(fresh, "4", fetched_at=RECENT)  # the newest fetch counts

    report = cleanup(hub, max_age_days=30).run()

    assert report.removed["old"] == [(old, 3)]
    assert files(hub) == {fresh}


def test_least_recently_fetched_go_until_under_quota(hub):
    shas = []
    for n, day in enumerate(["2999-01-03", "2999-01-01", "2999-01-02"]):
        sha = stored(hub, bytes([n]) * 100)
        named(sha, str(n), fetched_at=f"{day}T00:00:00+00:00")
        shas.append(sha)

    report = cleanup(hub, quota=150).run()

    assert report.removed["quota"] == [(shas[1], 100), (shas[2], 100)]
    assert files(hub) == {shas[0]} and report.kept_bytes == 100


def written(sha: str, status: str = "pending") -> None:
    """An attach write to Jira whose upload is ``sha`` (its row alone: no command)."""
    Write.create(op="attach", key="X-1", params={"filename": "a.bin"}, requested_by="alice", status=status,
                 file=sha, created_at=RECENT, updated_at=RECENT)


def test_the_upload_of_a_write_still_to_reach_jira_is_kept_by_every_rule(hub):
    pending = stored(hub, b"p" * 100, age_seconds=10 * HOUR)
    ended = stored(hub, b"e" * 100, age_seconds=10 * HOUR)
    written(pending)
    written(ended, status="done")

    report = cleanup(hub, quota=10).run()

    assert report.removed["unnamed"] == [(ended, 100)] and report.removed["quota"] == []
    assert files(hub) == {pending}
    Write.update(status="done").where(Write.file == pending).execute()
    assert cleanup(hub).run().removed["unnamed"] == [(pending, 100)]


def test_dry_run_removes_nothing(hub):
    old = stored(hub, b"old", age_seconds=HOUR + 5)
    gone = stored(hub, b"gone")
    named(gone, "1", listed=False)
    before = files(hub)

    report = cleanup(hub).run(dry_run=True)

    assert (report.files, report.bytes) == (2, 7)
    assert {name for items in report.removed.values() for name, _ in items} == {old, gone}
    assert files(hub) == before


def test_hub_cleanup_prints_what_it_removed(tmp_path):
    data_dir = tmp_path / "data"
    assert run_hub("migrate", data_dir=data_dir).returncode == 0
    files_dir = data_dir / "files"
    for content in (b"a" * 10, b"b" * 20):
        path = files_dir / hashlib.sha256(content).hexdigest()
        path.write_bytes(content)
        os.utime(path, (time.time() - 2 * HOUR,) * 2)

    dry = run_hub("cleanup", "--dry-run", data_dir=data_dir)
    assert dry.returncode == 0, dry.stderr
    assert "unnamed: 2 files, 30 bytes" in dry.stdout and "would remove 2 files, 30 bytes" in dry.stdout
    assert len(list(files_dir.iterdir())) == 2

    real = run_hub("cleanup", data_dir=data_dir)
    assert "removed 2 files, 30 bytes" in real.stdout
    assert list(files_dir.iterdir()) == []


def test_the_periodic_task_runs_the_same_cleanup_on_its_schedule(hub):
    from datetime import datetime

    from worker import tasks

    stored(hub, b"old", age_seconds=HOUR + 5)
    hub.clock.moment = hub.store.clock().now()  # the task runs on the hub's clock
    # HUB_CLEANUP_CRON is "0 3 * * *" by default: at 03:01 it is not the time.
    assert tasks.clean_file_store.call_local(datetime(2026, 11, 30, 3, 1)) is None
    summary = tasks.clean_file_store.call_local(datetime(2026, 11, 30, 3, 0))
    assert summary["by_rule"]["unnamed"] == {"files": 1, "bytes": 3}


def test_a_download_in_flight_survives_cleanup(hub):
    sha = stored(hub, b"content being read", age_seconds=HOUR + 5)
    with hub.built.services.store.open(sha) as reader:
        assert reader.read(7) == b"content"
        cleanup(hub).run()
        assert reader.read() == b" being read"
    assert files(hub) == set()


def test_cron_schedule_is_read_from_the_setting(make_hub):
    from datetime import datetime

    from worker import tasks

    make_hub(cleanup_cron="30 2 * * 1")
    # Huey runs the task every minute; the setting decides which minute cleans.
    assert "clean_file_store" in {t.name for t in tasks.huey.read_periodic(datetime(2026, 11, 29, 2, 31))}
    assert tasks.clean_file_store.call_local(datetime(2026, 11, 30, 2, 30)) is not None  # a Monday
    assert tasks.clean_file_store.call_local(datetime(2026, 11, 29, 2, 30)) is None


@pytest.mark.parametrize("cron", ["0 3 * *", "0 3 * * * *", "at three", "0 3 * * mon"])
def test_bad_cron_is_refused(cron):
    from hub.config import Config, ConfigError

    with pytest.raises(ConfigError, match="HUB_CLEANUP_CRON"):
        Config.from_env({"HUB_CLEANUP_CRON": cron})
