"""What only the S3 file store has: multipart uploads left by a dead process, the
node's download cache, a bucket that cannot be reached, an object that does not
hold what its name says. On the run's SeaweedFS (tests/support/s3.py); the behaviour both
stores share is tested on both in test_attachments, test_cleanup, test_downloads
and test_transfers."""

from __future__ import annotations

import hashlib
import socket
import stat
import subprocess
import sys

import pytest

from hub.clock import Clock
from hub.errors import TooLarge, Unavailable
from hub.models import AttachmentFile
from hub.services.files.cleanup import CleanupService
from hub.services.files.store_s3 import S3FileStore, s3_client
from tests.support import (
    PDF,
    Client,
    attachment,
    created_hub,
    fetched,
    listed,
    run_script,
    start,
    stop,
    wait_for_line,
)
from tests.support.engines import require
from tests.support.s3 import StoreView, s3_server

pytestmark = pytest.mark.backends("sqlite", "postgresql")

MB = 1024 * 1024
HOUR = 3600


@pytest.fixture
def store(data_dir, monkeypatch):
    """A bucket of its own on the run's S3 server; AWS_* in this process's environment."""
    server, reason = s3_server()
    require(reason)
    bucket = server.create_bucket()
    for name, value in server.environ.items():
        monkeypatch.setenv(name, value)
    yield StoreView("s3", data_dir, server, bucket)
    server.drop_bucket(bucket)


@pytest.fixture
def hub(make_hub, store):
    built = make_hub(**store.settings)
    built.store = store
    return built


def later(seconds: float):
    """A clock ``seconds`` from now."""
    from datetime import UTC, datetime, timedelta

    moment = datetime.now(UTC) + timedelta(seconds=seconds)
    return type("LaterClock", (), {"now": staticmethod(lambda: moment)})()


def test_an_abandoned_multipart_upload_and_a_temporary_object_go_after_an_hour(hub, store):
    client = store.server.client()
    # What a node killed mid-upload leaves: a multipart upload never completed, with a part.
    key = f"{store.prefix}/{'d' * 64}"
    upload_id = client.create_multipart_upload(Bucket=store.bucket, Key=key)["UploadId"]
    client.upload_part(Bucket=store.bucket, Key=key, UploadId=upload_id, PartNumber=1, Body=b"p" * 1000)
    store.put(b"t" * 10, "1234-" + "e" * 32, upload=True)
    files = hub.built.services.store

    assert CleanupService(files, 10**12, 30, Clock()).run().files == 0  # young: perhaps still being written
    assert sorted(entry.name for entry in files.uploads()) == ["1234-" + "e" * 32, f"upload:{'d' * 64}"]
    report = CleanupService(files, 10**12, 30, later(HOUR + 5)).run()

    assert sorted(report.removed["tmp"]) == [("1234-" + "e" * 32, 10), (f"upload:{'d' * 64}", 1000)]
    assert store.everything() == [] and files.uploads() == []


def test_downloads_come_from_a_private_cache_bounded_by_its_setting(make_hub, store):
    hub = make_hub(store_url=store.url, store_cache_bytes=int(2.5 * len(PDF)))
    contents = {str(n): bytes([n]) + PDF for n in range(1, 4)}
    listed(hub, *(attachment(aid, f"{aid}.pdf", len(body)) for aid, body in contents.items()))
    shas = {aid: fetched(hub, aid, body) for aid, body in contents.items()}
    cache = hub.config.data_dir / "cache" / "files"
    assert not cache.exists()  # an upload fills no cache: only a download does

    for aid in contents:
        resp = hub.api("GET", f"/api/v1/attachments/{aid}/content")
        assert resp.status_code == 200 and resp.content == contents[aid]

    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    kept = sorted(p.name for p in cache.iterdir() if p.is_file())
    # The bound keeps two of the three: the two read last.
    assert kept == sorted([shas["2"], shas["3"]])
    assert all(stat.S_IMODE((cache / name).stat().st_mode) == 0o600 for name in kept)
    # The first is read again from the bucket, whole.
    again = hub.api("GET", "/api/v1/attachments/1/content", headers={"Range": "bytes=1-4"})
    assert again.status_code == 206 and again.content == contents["1"][1:5]


def test_an_object_that_does_not_hold_its_sha256_is_never_served(hub, store):
    listed(hub, attachment("1", "a.pdf"))
    sha = fetched(hub, "1")
    store.put(b"rotten", name=sha)  # damaged in the bucket behind the hub's back

    resp = hub.api("GET", "/api/v1/attachments/1/content")

    assert resp.status_code == 409 and resp.json["state"] == "none"
    cache = hub.config.data_dir / "cache" / "files"
    assert [p for p in cache.rglob("*") if p.is_file()] == []


def test_the_overview_counts_the_buckets_files(hub, store):
    listed(hub, attachment("1", "a.pdf"), attachment("2", "b.pdf"))
    fetched(hub, "1")
    fetched(hub, "2", b"another file")
    overview = hub.api("GET", "/api/v1/overview")
    assert overview.status_code == 200, overview.json
    assert overview.json["store"] == {"files": 2, "bytes": len(PDF) + len(b"another file")}


def test_check_names_a_missing_bucket_and_an_endpoint_that_does_not_answer(store, tmp_path, monkeypatch):
    S3FileStore(s3_client(), store.bucket, "hub/files", tmp_path / "cache", MB).check()
    with pytest.raises(Unavailable, match="s3://no-such-bucket/hub"):
        S3FileStore(s3_client(), "no-such-bucket", "hub", tmp_path / "cache", MB).check()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # a port of ours that nobody listens on
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{sock.getsockname()[1]}")
        with pytest.raises(Unavailable, match="cannot be reached"):
            S3FileStore(s3_client(), store.bucket, "hub", tmp_path / "cache", MB).check()


def test_a_bucket_that_does_not_answer_is_503_with_retry_after(make_hub, store, monkeypatch):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{sock.getsockname()[1]}")
        hub = make_hub(store_url=store.url)
        listed(hub, attachment("1", "a.pdf"))
        # A file named: its state asks the bucket whether the file is still there.
        AttachmentFile.create(attachment_id="1", file="a" * 64, size=3, fetched_at="2026-11-02T09:00:00+00:00")
        resp = hub.api("GET", "/api/v1/attachments/1")
    assert resp.status_code == 503 and resp.headers["retry-after"] == "5"
    assert resp.json["title"] == "Service unavailable" and store.url in resp.json["description"]


def test_cache_fills_of_a_dead_process_go_at_start(store, tmp_path):
    cache_tmp = tmp_path / "cache" / ".tmp"
    cache_tmp.mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (cache_tmp / f"{dead.pid}-{'a' * 32}.part").write_bytes(b"half a file")
    removed = S3FileStore(s3_client(), store.bucket, "hub", tmp_path / "cache", MB).remove_leftovers()
    assert removed == [str(cache_tmp / f"{dead.pid}-{'a' * 32}.part")] and list(cache_tmp.iterdir()) == []


def test_stalled_range_readers_hold_no_thread(data_dir, database_url, store):
    # A body past waitress's 16 MiB output watermark: a worker thread writing
    # it to a client that does not read would block there; on S3 too.
    size = 24 * MB
    created_hub(data_dir, database_url)
    agent = run_script("token", "add", "agent", "--role", "agent", data_dir=data_dir,
                       database_url=database_url).stdout.strip()
    interface = run_script("token", "add", "ui", "--role", "interface", data_dir=data_dir,
                           database_url=database_url).stdout.strip()
    proc = start("serve", "--no-worker", data_dir=data_dir, database_url=database_url, HUB_STORE_URL=store.url,
                 HUB_THREADS="8", HUB_LONG_POLL_THREADS="2")
    stalled: list[socket.socket] = []
    try:
        client = Client(wait_for_line(proc, r"serving on (http://\S+)").group(1), agent, interface)
        content = hashlib.shake_256(b"stalled").digest(size)
        status, refresh = client.json("POST", "/api/v1/commands", "interface",
                                      {"type": "refresh", "params": {"jql": "key = X-1"}})
        client.json("POST", "/agent/v1/claim", "agent", {"agent_id": "a", "version": 14})
        client.json("POST", f"/agent/v1/commands/{refresh['id']}/state", "agent", {"issues": [
            {"key": "X-1", "id": "1", "attachments": [{"id": "31337", "filename": "big.bin", "size": size}]}]})
        client.json("POST", f"/agent/v1/commands/{refresh['id']}/done", "agent", {"result": {"total": 1}})
        _, fetch = client.json("POST", "/api/v1/attachments/31337/fetch", "interface")
        client.json("POST", "/agent/v1/claim", "agent", {"agent_id": "a", "version": 14, "types": ["fetch_attachment"]})
        status, stored = client.put_file(fetch["command"]["id"], content)
        assert status == 200, stored
        status, _ = client.json("POST", f"/agent/v1/commands/{fetch['command']['id']}/done", "agent",
                                {"result": {"sha256": hashlib.sha256(content).hexdigest(), "size": size}})
        assert status == 200
        for n in range(40):  # five times the threads
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(30)
            sock.connect((client.host, client.port))
            sock.sendall((f"GET /api/v1/attachments/31337/content HTTP/1.1\r\nHost: hub\r\n"
                          f"Authorization: Bearer {interface}\r\nRange: bytes={n}-\r\n\r\n").encode())
            stalled.append(sock)
        # Every download has its headers out (its thread is past the cache) before the check.
        for sock in stalled:
            assert sock.recv(12) == b"HTTP/1.1 206"
        # With every thread held, this would wait out the connection's timeout instead.
        conn = client.connection()
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200
        conn.close()
        conn = client.connection()
        conn.request("GET", "/api/v1/attachments/31337/content",
                     headers={"Authorization": f"Bearer {interface}", "Range": f"bytes={size - 10 * MB}-"})
        resp = conn.getresponse()
        assert resp.status == 206 and resp.read() == content[size - 10 * MB:]
        conn.close()
    finally:
        for sock in stalled:
            sock.close()
        assert stop(proc) == 0



def test_states_of_many_look_the_bucket_up_for_each_file(hub, store):
    ids = [str(n) for n in range(1, 21)]
    listed(hub, *(attachment(aid, f"{aid}.bin") for aid in ids))
    shas = {aid: fetched(hub, aid, f"content {aid}".encode()) for aid in ids}
    for aid in ("3", "17"):
        store.remove(shas[aid])  # cleanup on another node, say

    many = hub.api("POST", "/api/v1/attachments/states", {"ids": ids}).json["items"]

    assert [(a["attachment_id"], a["state"]) for a in many] == [
        (aid, "none" if aid in ("3", "17") else "ready") for aid in ids]


class Body:
    """An upload's body, ``size`` bytes read in pieces; ``at(offset)`` runs as the
    reading passes ``offset`` (to look at the bucket mid-upload, or to cut it off)."""

    def __init__(self, size: int, at: dict):
        self.content = hashlib.shake_256(b"body").digest(size)
        self.pos = 0
        self.at = dict(at)

    def read(self, n: int = -1) -> bytes:
        for offset in sorted(self.at):
            if self.pos >= offset:
                self.at.pop(offset)()
        n = len(self.content) - self.pos if n < 0 else min(n, MB)
        piece = self.content[self.pos:self.pos + n]
        self.pos += len(piece)
        return piece


def test_an_upload_has_no_name_until_it_is_whole_and_verified(store, tmp_path):
    files = S3FileStore(s3_client(), store.bucket, store.prefix, tmp_path / "cache", MB)
    seen = []

    def look() -> None:
        seen.append((store.names(), [name for name in store.everything() if name.startswith("upload:")]))

    body = Body(20 * MB, {12 * MB: look})
    sha = hashlib.sha256(body.content).hexdigest()
    assert files.receive(body, length=20 * MB, max_bytes=10**9, expected_sha256=sha) == (sha, 20 * MB)
    # Mid-upload: one multipart upload in progress, nothing under a name.
    assert seen == [(set(), [f"upload:{store.prefix}/{sha}"])]
    assert store.names() == {sha} and store.everything() == [f"{store.prefix}/{sha}"]


def test_an_upload_cut_off_or_refused_midway_leaves_nothing_in_the_bucket(store, tmp_path):
    files = S3FileStore(s3_client(), store.bucket, store.prefix, tmp_path / "cache", MB)

    def cut() -> None:
        raise ConnectionResetError("the agent went away")

    for expected in (None, "0" * 64):
        with pytest.raises(ConnectionResetError):
            files.receive(Body(20 * MB, {12 * MB: cut}), length=20 * MB, max_bytes=10**9,
                          expected_sha256=expected)
        assert store.everything() == []
    with pytest.raises(TooLarge):
        files.receive(Body(20 * MB, {}), length=None, max_bytes=17 * MB)
    assert store.everything() == []


def test_a_reader_streams_the_object_past_the_cache(hub, store):
    listed(hub, attachment("1", "a.pdf"))
    sha = fetched(hub, "1")
    files = hub.built.services.store
    with files.reader(sha) as stream:
        assert stream.read() == PDF
    assert not (hub.config.data_dir / "cache" / "files").exists()
    with pytest.raises(FileNotFoundError):
        files.reader("b" * 64)


def test_hub_cleanup_cleans_the_bucket(data_dir, store):
    from tests.support import run_hub

    assert run_hub("migrate", data_dir=data_dir).returncode == 0
    young = store.put(b"just uploaded, done on its way")
    dry = run_hub("cleanup", "--dry-run", data_dir=data_dir, HUB_STORE_URL=store.url)
    assert dry.returncode == 0, dry.stderr
    assert "would remove 0 files, 0 bytes" in dry.stdout and store.names() == {young}
    # Young, so no rule but the quota takes it: with a quota of 0, that one does.
    gone = run_hub("cleanup", data_dir=data_dir, HUB_STORE_URL=store.url, HUB_FILES_QUOTA_BYTES="0")
    assert "quota: 1 files, 30 bytes" in gone.stdout and store.names() == set()
