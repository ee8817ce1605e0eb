"""Uploads and downloads over real HTTP through waitress: big files, ranges, cut-off bodies.

Each test runs on each file store (``[local]``: files/, ``[s3]``: a bucket of the run's
SeaweedFS, see tests/support/s3.py), over a SQLite hub: the bytes' way through HTTP to the
store is this module's subject, and what each engine keeps of a file (its attachment's row and
state, a refused upload's too) is held on both engines by test_attachments.py and
test_downloads.py."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import socket
import time
from urllib.parse import urlparse

import pytest

from tests.support import Client, created_hub, run_script, start, stop, wait_for_line
from tests.support.s3 import store_fixture  # noqa: F401 -- the fixture `store`

pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.long]

MB = 1024 * 1024


def store_settings(store) -> dict[str, str]:
    """The HUB_* variables of a hub on ``store`` (the AWS_* ones are in the environment)."""
    return {"HUB_STORE_URL": store.url} if store.url else {}


@pytest.fixture
def served(data_dir, database_url, store):
    created_hub(data_dir, database_url)
    agent, interface = (run_script("token", "add", name, "--role", role, data_dir=data_dir,
                                   database_url=database_url).stdout.strip()
                        for name, role in (("agent", "agent"), ("ui", "interface")))
    proc = start("serve", "--no-worker", data_dir=data_dir, database_url=database_url, **store_settings(store))
    try:
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
        yield Client(url, agent, interface), store
    finally:
        assert stop(proc) == 0


def fetch_command(client: Client, size: int) -> int:
    """List attachment 31337 on an issue, ask for it, and claim the fetch."""
    status, refresh = client.json("POST", "/api/v1/commands", "interface",
                                  {"type": "refresh", "params": {"jql": "key = X-1"}})
    assert status == 201
    client.json("POST", "/agent/v1/claim", "agent", {"agent_id": "a", "version": 14})
    client.json("POST", f"/agent/v1/commands/{refresh['id']}/state", "agent", {"issues": [
        {"key": "X-1", "id": "1", "attachments": [{"id": "31337", "filename": "big.bin", "size": size}]}]})
    client.json("POST", f"/agent/v1/commands/{refresh['id']}/done", "agent", {"result": {"total": 1}})
    status, fetched = client.json("POST", "/api/v1/attachments/31337/fetch", "interface")
    assert status == 201
    status, claimed = client.json("POST", "/agent/v1/claim", "agent",
                                  {"agent_id": "a", "version": 14, "types": ["fetch_attachment"]})
    assert claimed["commands"][0]["id"] == fetched["command"]["id"]
    return fetched["command"]["id"]


def chunks(total: int, seed: bytes = b"hub"):
    """Deterministic, incompressible content, 1 MiB at a time."""
    block = hashlib.sha256(seed).digest()
    sent = 0
    while sent < total:
        piece = hashlib.shake_256(block + sent.to_bytes(8, "big")).digest(min(MB, total - sent))
        sent += len(piece)
        yield piece


def put_file(client: Client, command_id: int, size: int, sha: str | None, seed: bytes = b"hub"):
    """Stream ``size`` bytes of :func:`chunks` as the command's file; the response."""
    conn = client.connection()
    conn.putrequest("PUT", f"/agent/v1/commands/{command_id}/file")
    conn.putheader("Authorization", f"Bearer {client.tokens['agent']}")
    conn.putheader("Content-Length", str(size))
    if sha is not None:
        conn.putheader("X-Content-SHA256", sha)
    conn.endheaders()
    for piece in chunks(size, seed):
        conn.send(piece)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, body


def test_a_100_mb_upload_and_its_download_with_a_range(served):
    client, store = served
    size = 100 * MB
    command_id = fetch_command(client, size)
    digest = hashlib.sha256()
    for piece in chunks(size):
        digest.update(piece)
    sha = digest.hexdigest()

    conn = client.connection()
    conn.putrequest("PUT", f"/agent/v1/commands/{command_id}/file")
    conn.putheader("Authorization", f"Bearer {client.tokens['agent']}")
    conn.putheader("Content-Length", str(size))
    conn.putheader("X-Content-SHA256", sha)
    conn.endheaders()
    for piece in chunks(size):
        conn.send(piece)
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    assert json.loads(resp.read()) == {"sha256": sha, "size": size}
    conn.close()
    status, _ = client.json("POST", f"/agent/v1/commands/{command_id}/done", "agent",
                            {"result": {"sha256": sha, "size": size}})
    assert status == 200
    assert store.names() == {sha} and store.everything() == [sha if store.kind == "local" else f"hub/files/{sha}"]

    conn = client.connection()
    conn.request("GET", "/api/v1/attachments/31337/content",
                 headers={"Authorization": f"Bearer {client.tokens['interface']}"})
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Length") == str(size)
    got = hashlib.sha256()
    while piece := resp.read(MB):
        got.update(piece)
    assert got.hexdigest() == sha
    conn.close()

    conn = client.connection()
    conn.request("GET", "/api/v1/attachments/31337/content",
                 headers={"Authorization": f"Bearer {client.tokens['interface']}",
                          "Range": f"bytes={50 * MB}-{50 * MB + 99}"})
    resp = conn.getresponse()
    expected = b"".join(chunks(50 * MB + MB))[50 * MB:50 * MB + 100]
    assert resp.status == 206 and resp.read() == expected
    assert resp.getheader("Content-Range") == f"bytes {50 * MB}-{50 * MB + 99}/{size}"
    conn.close()


def test_an_upload_cut_off_midway_leaves_nothing_in_the_store(served):
    client, store = served
    command_id = fetch_command(client, 10 * MB)
    sock = socket.create_connection((client.host, client.port), timeout=30)
    head = (f"PUT /agent/v1/commands/{command_id}/file HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {client.tokens['agent']}\r\n"
            f"Content-Length: {10 * MB}\r\n\r\n").encode()
    sock.sendall(head + b"x" * (3 * MB))
    sock.close()
    time.sleep(1.0)

    assert store.everything() == []
    # The command is still the agent's: a whole upload goes through.
    conn = client.connection()
    conn.request("PUT", f"/agent/v1/commands/{command_id}/file", body=b"y" * MB,
                 headers={"Authorization": f"Bearer {client.tokens['agent']}"})
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    conn.close()
    assert store.names() == {hashlib.sha256(b"y" * MB).hexdigest()}


def test_a_big_upload_with_the_wrong_sha256_never_appears_and_one_without_a_sha256_gets_its_name(served):
    client, store = served
    size = 20 * MB  # three parts of a multipart upload on S3
    command_id = fetch_command(client, size)
    digest = hashlib.sha256()
    for piece in chunks(size, b"other"):
        digest.update(piece)

    status, body = put_file(client, command_id, size, "0" * 64, b"other")
    assert status == 422, body
    assert json.loads(body)["field"] == "X-Content-SHA256"
    assert store.everything() == []

    status, body = put_file(client, command_id, size, None, b"other")
    assert status == 200, body
    assert json.loads(body) == {"sha256": digest.hexdigest(), "size": size}
    assert store.names() == {digest.hexdigest()}
    assert store.everything() == [digest.hexdigest() if store.kind == "local"
                                  else f"hub/files/{digest.hexdigest()}"]
    status, _ = client.json("POST", f"/agent/v1/commands/{command_id}/done", "agent",
                            {"result": {"sha256": digest.hexdigest(), "size": size}})
    assert status == 200
    conn = client.connection()
    conn.request("GET", "/api/v1/attachments/31337/content",
                 headers={"Authorization": f"Bearer {client.tokens['interface']}", "Range": "bytes=-10"})
    resp = conn.getresponse()
    assert resp.status == 206 and resp.read() == b"".join(chunks(size, b"other"))[-10:]
    conn.close()


def test_an_upload_over_the_limit_is_refused_by_the_server(data_dir, database_url, store):
    created_hub(data_dir, database_url)
    agent = run_script("token", "add", "agent", "--role", "agent", data_dir=data_dir,
                       database_url=database_url).stdout.strip()
    env_limit = {"HUB_MAX_UPLOAD_BYTES": str(MB)}
    os.environ.update(env_limit)
    try:
        proc = start("serve", "--no-worker", data_dir=data_dir, database_url=database_url,
                     **store_settings(store))
    finally:
        for key in env_limit:
            os.environ.pop(key)
    try:
        url = urlparse(wait_for_line(proc, r"serving on (http://\S+)").group(1))
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        conn.request("PUT", "/agent/v1/commands/1/file", body=b"z" * (2 * MB),
                     headers={"Authorization": f"Bearer {agent}"})
        assert conn.getresponse().status == 413
    finally:
        assert stop(proc) == 0
    assert store.everything() == []
