"""``/healthz`` tells the truth: a database that cannot be written, a full disk and a
worker that stopped are 503 with the reason; error bodies and logs name the cause."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest

from hub.config import Config
from hub.migrations import CURRENT_VERSION
from hub.models import Setting
from tests.support import wait_until
from tests.support.hubs import Hub

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@contextlib.contextmanager
def small_disk(path: Path, size: str = "64m"):
    """A filesystem of its own at ``path`` (tmpfs), so a test can fill it or make it
    read-only without touching the machine's disk."""
    path.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        reason = f"cannot mount a tmpfs here ({mounted.stderr.strip()}): needs root"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    try:
        yield path
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(path)], capture_output=True)
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill(directory: Path) -> Path:
    """Write a file until the filesystem has no room left."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1024 * 1024, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


def big_page(n: int = 40) -> dict:
    return {"issues": [{"key": f"A-{i}", "id": str(i), "description": "x" * 100_000}
                       for i in range(1, n + 1)]}


def claimed_refresh(hub: Hub) -> int:
    command = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "key = A-1"}})
    hub.agent("POST", "/agent/v1/claim", {"agent_id": "a", "version": 14})
    return command.json["id"]


def test_healthz_is_ok_on_a_hub_that_can_work(hub):
    assert hub.client.simulate_get("/healthz").json == {"status": "ok", "schema_version": CURRENT_VERSION}


def test_a_full_disk_is_503_on_healthz_and_507_naming_the_cause(tmp_path, caplog):
    with small_disk(tmp_path / "disk") as disk:
        hub = Hub(Config(data_dir=disk / "data"))
        command_id = claimed_refresh(hub)
        assert hub.client.simulate_get("/healthz").status_code == 200
        filler = fill(disk)

        resp = hub.agent("POST", f"/agent/v1/commands/{command_id}/state", big_page())
        assert resp.status_code == 507, resp.text
        assert "database or disk is full" in resp.json["description"]
        assert "database or disk is full" in caplog.text
        assert "cannot rollback" not in caplog.text + resp.text
        health = hub.client.simulate_get("/healthz")
        assert health.status_code == 503
        assert health.json["status"] == "unavailable"
        assert "full" in health.json["description"]

        filler.unlink()
        assert hub.agent("POST", f"/agent/v1/commands/{command_id}/state",
                         {"issues": [{"key": "A-1", "id": "1"}]}).status_code == 200


def test_a_read_only_database_is_503_on_healthz(tmp_path):
    """The data dir seen through a read-only mount: reads work, writes cannot."""
    with small_disk(tmp_path / "disk") as disk:
        writable = Hub(Config(data_dir=disk / "data"))
        view = tmp_path / "read-only"
        view.mkdir()
        subprocess.run(["mount", "--bind", str(disk / "data"), str(view)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,ro,bind", str(view)], check=True)
            hub = Hub.__new__(Hub)  # the same hub and tokens, through the read-only view
            hub.__dict__.update(writable.__dict__)
            import falcon.testing

            from hub.api.app import build_app

            hub.config = Config(data_dir=view)
            hub.client = falcon.testing.TestClient(build_app(hub.config))
            health = hub.client.simulate_get("/healthz")
            assert health.status_code == 503, health.text
            # SQLite's own words: it cannot open a WAL database it may not write.
            causes = ("readonly", "unable to open database file")
            assert health.json["status"] == "unavailable"
            assert any(cause in health.json["description"] for cause in causes)
            resp = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "x"}})
            assert resp.status_code == 503
            assert any(cause in resp.json["description"] for cause in causes)
        finally:
            subprocess.run(["umount", "-l", str(view)], capture_output=True)


def test_a_worker_that_stopped_is_503_on_healthz(hub):
    (Setting.insert(key="worker_seen_at", value="2026-01-01T00:00:00+00:00")
     .on_conflict(conflict_target=[Setting.key], preserve=[Setting.value]).execute())
    health = hub.client.simulate_get("/healthz")
    assert health.status_code == 503
    assert "no worker has run the periodic tasks since 2026-01-01T00:00:00+00:00" in health.json["description"]
    assert health.headers["Retry-After"]

    from worker import tasks

    tasks.note_worker_alive.call_local()
    assert hub.client.simulate_get("/healthz").status_code == 200


@pytest.mark.backends("postgresql")
def test_a_database_that_takes_no_writes_is_503_on_healthz_and_for_writes(hub, monkeypatch):
    """As a standby after a failover answers: every new transaction is read-only."""
    import psycopg

    import hub.db as hub_db

    name = hub.config.database_url.rsplit("/", 1)[1]
    with psycopg.connect(hub.config.database_url, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    # Every transaction on a new connection, as after a failover: each sees the new setting.
    monkeypatch.setattr(hub_db, "CONNECTION_MAX_AGE_SECONDS", 0)
    resp = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "key = A-1"}})
    assert resp.status_code == 503, resp.text
    assert "read-only transaction" in resp.json["description"]

    def unhealthy():
        health = hub.client.simulate_get("/healthz")
        return health.status_code == 503 and health.json

    problems = wait_until(unhealthy, timeout=15, every=0.2, message="/healthz saying so")["problems"]
    assert any("read-only transaction" in problem for problem in problems), problems


def test_the_postgres_probe_names_a_server_it_cannot_reach():
    from hub.services.operations.health_postgres import PostgresWriteProbe
    from tests.support.engines import free_port

    problem = PostgresWriteProbe(f"postgresql://hub:secret@127.0.0.1:{free_port()}/hub")("2026-11-02T09:00:00+00:00")
    assert problem is not None and problem.startswith("cannot connect to the database: ")
    assert "secret" not in problem
