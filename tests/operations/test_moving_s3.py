"""``hub migrate-to`` into an S3 store, and ``hub backup`` / ``hub restore`` of a hub whose files are there:
on a real PostgreSQL (tests/support/engines.py) and a real S3 server (tests/support/s3.py, SeaweedFS)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os

import pytest

from hub.assembly import open_store
from hub.config import Config
from tests.support import MCP_FILES, fetched, load, mcp_mirror, run_hub
from tests.support.engines import postgres_server, require

s3 = pytest.importorskip("tests.support.s3", reason="the S3 test server (tests/support/s3.py) comes with the S3 store")


@pytest.fixture
def engines():
    """A new empty PostgreSQL database and a new bucket; their URL and the S3 store's environment."""
    server, reason = postgres_server()
    require(reason)
    bucket_server, why = s3.s3_server()
    require(why)
    name = server.create_database(prefix="hub_move_s3")
    bucket = bucket_server.create_bucket()
    yield server.url(name), f"s3://{bucket}/hub", bucket_server.environ
    server.drop_database(name)
    bucket_server.drop_bucket(bucket)


@contextlib.contextmanager
def aws(environ: dict):
    """The S3 server's AWS_* variables in this process's environment, for a store built here."""
    saved = {k: os.environ.get(k) for k in environ}
    os.environ.update(environ)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def in_store(data_dir, store_url: str, environ: dict) -> dict[str, bytes]:
    """What the S3 store holds of the test's files, read through the store itself."""
    with aws(environ):
        store = open_store(Config(data_dir=data_dir, store_url=store_url))
        found = {}
        for aid, content in MCP_FILES.items():
            sha = hashlib.sha256(content).hexdigest()
            if store.size(sha) is not None:
                with store.open(sha) as stream:
                    found[aid] = stream.read()
        return found


def test_a_hub_moves_onto_postgresql_and_its_files_into_s3(make_hub, engines, tmp_path):
    url, store_url, environ = engines
    hub = make_hub()
    load(hub, mcp_mirror(), jql="key in (AURORA-1, AURORA-2, AURORA-3)")
    for aid, content in MCP_FILES.items():
        fetched(hub, aid, content)

    first = run_hub("migrate-to", "--files-only", "--database-url", url, "--store-url", store_url,
                    data_dir=hub.config.data_dir, **environ)
    assert first.returncode == 0, first.stderr
    assert f"in {store_url} (3 copied, 0 there already)" in first.stdout and "the database was not written" \
        in first.stdout

    moved = run_hub("migrate-to", "--database-url", url, "--store-url", store_url,
                    data_dir=hub.config.data_dir, **environ)

    assert moved.returncode == 0, moved.stderr
    assert f"files: 3 files, {sum(map(len, MCP_FILES.values()))} bytes, in {store_url} (0 copied, 3 there already)" \
        in moved.stdout
    assert in_store(tmp_path / "node", store_url, environ) == MCP_FILES
    assert sorted(p.name for p in hub.config.files_dir.iterdir() if p.name != ".tmp") == sorted(
        hashlib.sha256(c).hexdigest() for c in MCP_FILES.values())  # files/ is left as it was

    # The backup of the hub now on PostgreSQL and S3 lists the bucket's files, holds none of them.
    backed = run_hub("backup", str(tmp_path / "b"), data_dir=tmp_path / "node", HUB_DATABASE_URL=url,
                     HUB_STORE_URL=store_url, **environ)
    assert backed.returncode == 0, backed.stderr
    assert f"3 files {sum(map(len, MCP_FILES.values()))} bytes (kept in {store_url}, listed in the manifest)" \
        in backed.stdout
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["files_in"] == "store" and manifest["store"] == store_url
    assert sorted(f["sha256"] for f in manifest["files"]) == sorted(
        hashlib.sha256(c).hexdigest() for c in MCP_FILES.values())
    assert not (tmp_path / "b" / "files").exists()


def test_a_restore_against_a_store_that_lacks_a_listed_file_says_so(make_hub, engines, tmp_path, postgres_template):
    url, store_url, environ = engines
    hub = make_hub()
    load(hub, mcp_mirror(), jql="key in (AURORA-1, AURORA-2, AURORA-3)")
    for aid, content in MCP_FILES.items():
        fetched(hub, aid, content)
    assert run_hub("migrate-to", "--database-url", url, "--store-url", store_url,
                   data_dir=hub.config.data_dir, **environ).returncode == 0
    node = {"HUB_DATABASE_URL": url, "HUB_STORE_URL": store_url, **environ}
    assert run_hub("backup", str(tmp_path / "b"), data_dir=tmp_path / "node", **node).returncode == 0
    # The bucket lost one object since (a lifecycle rule, a hand).
    server, _ = postgres_template
    bucket = store_url.split("/")[2]
    gone = hashlib.sha256(MCP_FILES["9002"]).hexdigest()
    s3.s3_server()[0].client().delete_object(Bucket=bucket, Key=f"hub/{gone}")
    target = server.url(server.create_database(prefix="hub_restore_s3"))

    restored = run_hub("restore", str(tmp_path / "b"), data_dir=tmp_path / "node2",
                       **{**node, "HUB_DATABASE_URL": target})

    assert restored.returncode == 0, restored.stderr
    assert "2 files" in restored.stdout and f"in {store_url}" in restored.stdout
    assert "1 files the backup lists are not in the store" in restored.stderr
    import psycopg

    with psycopg.connect(target) as conn:
        assert conn.execute("SELECT count(*) FROM attachment_file").fetchone()[0] == 3


def test_a_backup_holding_its_files_restores_them_into_s3(make_hub, engines, tmp_path, postgres_template):
    url, store_url, environ = engines
    hub = make_hub()
    load(hub, mcp_mirror(), jql="key in (AURORA-1, AURORA-2, AURORA-3)")
    for aid, content in MCP_FILES.items():
        fetched(hub, aid, content)
    assert run_hub("migrate-to", "--database-url", url, data_dir=hub.config.data_dir).returncode == 0
    backed = run_hub("backup", str(tmp_path / "b"), data_dir=hub.config.data_dir, HUB_DATABASE_URL=url)
    assert backed.returncode == 0 and "3 files" in backed.stdout, backed.stderr
    server, _ = postgres_template
    target = server.url(server.create_database(prefix="hub_restore_s3"))

    restored = run_hub("restore", str(tmp_path / "b"), data_dir=tmp_path / "node", HUB_DATABASE_URL=target,
                       HUB_STORE_URL=store_url, **environ)

    assert restored.returncode == 0, restored.stderr
    assert f"3 files {sum(map(len, MCP_FILES.values()))} bytes in {store_url}" in restored.stdout
    assert restored.stderr == ""
    assert in_store(tmp_path / "node", store_url, environ) == MCP_FILES


def test_a_sqlite_hub_with_its_files_in_s3_backs_up_their_list_and_restores_against_the_bucket(
        make_hub, engines, tmp_path):
    _, store_url, environ = engines
    hub = make_hub()
    load(hub, mcp_mirror(), jql="key in (AURORA-1, AURORA-2, AURORA-3)")
    for aid, content in MCP_FILES.items():
        fetched(hub, aid, content)
    # Its files in the bucket, as a SQLite hub with HUB_STORE_URL keeps them.
    with aws(environ):
        bucket = open_store(Config(data_dir=tmp_path / "n", store_url=store_url))
        for content in MCP_FILES.values():
            bucket.receive(io.BytesIO(content), length=len(content), max_bytes=len(content))

    backed = run_hub("backup", str(tmp_path / "b"), data_dir=hub.config.data_dir, HUB_STORE_URL=store_url,
                     **environ)
    assert backed.returncode == 0, backed.stderr
    assert f"(kept in {store_url}, listed in the manifest)" in backed.stdout and "3 files" in backed.stdout
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["engine"] == "sqlite" and manifest["files_in"] == "store" and len(manifest["files"]) == 3
    assert not (tmp_path / "b" / "files").exists()

    restored = run_hub("restore", str(tmp_path / "b"), data_dir=tmp_path / "r", HUB_STORE_URL=store_url,
                       **environ)
    assert restored.returncode == 0 and "3 files" in restored.stdout and restored.stderr == "", restored.stderr
    local = run_hub("restore", str(tmp_path / "b"), data_dir=tmp_path / "r2")
    assert local.returncode == 0 and "0 files" in local.stdout
