"""Uploads and downloads over real HTTP through waitress: big files, ranges, cut-off bodies."""

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

MB = 1024 * 1024



@pytest.fixture
def served(tmp_path):
    data_dir = created_hub(tmp_path / "data")
    agent = run_script("token", "add", "agent", "--role", "agent", data_dir=data_dir).stdout.strip()
    interface = run_script("token", "add", "ui", "--role", "interface", data_dir=data_dir).stdout.strip()
    proc = start("serve", "--no-worker", data_dir=data_dir)
    try:
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
        yield Client(url, agent, interface), data_dir
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


def test_a_100_mb_upload_and_its_download_with_a_range(served):
    client, data_dir = served
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
    assert (data_dir / "files" / sha).stat().st_size == size

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
    client, data_dir = served
    command_id = fetch_command(client, 10 * MB)
    sock = socket.create_connection((client.host, client.port), timeout=30)
    head = (f"PUT /agent/v1/commands/{command_id}/file HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {client.tokens['agent']}\r\n"
            f"Content-Length: {10 * MB}\r\n\r\n").encode()
    sock.sendall(head + b"x" * (3 * MB))
    sock.close()
    time.sleep(1.0)

    files = data_dir / "files"
    leftovers = [p for p in files.rglob("*") if p.is_file()]
    assert leftovers == []
    # The command is still the agent's: a whole upload goes through.
    conn = client.connection()
    conn.request("PUT", f"/agent/v1/commands/{command_id}/file", body=b"y" * MB,
                 headers={"Authorization": f"Bearer {client.tokens['agent']}"})
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    conn.close()
    assert [p.name for p in files.iterdir() if p.is_file()] == [hashlib.sha256(b"y" * MB).hexdigest()]


def test_an_upload_over_the_limit_is_refused_by_the_server(tmp_path):
    data_dir = created_hub(tmp_path / "data")
    agent = run_script("token", "add", "agent", "--role", "agent", data_dir=data_dir).stdout.strip()
    env_limit = {"HUB_MAX_UPLOAD_BYTES": str(MB)}
    os.environ.update(env_limit)
    try:
        proc = start("serve", "--no-worker", data_dir=data_dir)
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
    files = data_dir / "files"
    assert [p for p in files.rglob("*") if p.is_file()] == []
