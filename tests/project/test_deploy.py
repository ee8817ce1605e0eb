"""What ``deploy/`` ships: the nginx site passes ``nginx -t`` and fits the hub's
limits; the systemd units are hardened and stop each process the way it stops well."""

from __future__ import annotations

import configparser
import hashlib
import http.client
import json
import os
import re
import socket
import subprocess
from pathlib import Path

import pytest

from hub.api.schemas import ATTACHMENT_QUERY, CLAIM
from hub.config import VARIABLES
from tests.support import prepared_hub, wait_until
from tests.support.engine_rows import engine_settings
from tests.support.nginx import SITE, behind_nginx, free_port, site_in, start_nginx, stop_nginx, trusting

pytestmark = pytest.mark.backends("sqlite", "postgresql")

ROOT = Path(__file__).resolve().parents[2]
UNITS = ("sdlc-hub.service", "sdlc-hub-api.service", "sdlc-hub-worker.service", "sdlc-hub-node@.service")
SIZES = {"k": 1024, "m": 1024**2, "g": 1024**3}


def default(name: str) -> int:
    return int(next(var.default for var in VARIABLES if var.name == name))


def test_the_nginx_site_over_several_nodes_passes_nginx_t(tmp_path):
    command, _ = site_in(tmp_path, node_ports=[free_port(), free_port(), free_port()])
    result = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_behind_nginx_the_survivor_answers_when_a_node_is_killed(tmp_path, database_url):
    from tests.support.nodes import Http, Ledger, start_nodes, stop_all

    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir, database_url)
    # Two nodes on one hub (on SQLite one machine's file): what nginx sees of several nodes.
    nodes = start_nodes(2, data_dir, engine_settings(database_url))
    nginx = None
    try:
        command, port = site_in(tmp_path / "nginx", node_ports=[node.port for node in nodes])
        nginx = start_nginx(command)
        tls = trusting(tmp_path / "nginx")

        def ask(method: str, path: str, token: str, body: bytes | None = None) -> int:
            conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=60, context=tls)
            try:
                conn.request(method, path, body=body, headers={"Authorization": f"Bearer {token}",
                                                               "Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                return resp.status
            finally:
                conn.close()

        def healthy() -> bool:
            try:
                return ask("GET", "/healthz", interface) == 200
            except OSError:
                assert nginx.poll() is None, nginx.stderr.read()
                return False

        wait_until(healthy, message="the nodes answering through nginx")
        nodes[0].kill()
        claim = b'{"agent_id": "a", "version": 18, "types": ["refresh"]}'
        answers = [ask("GET", "/api/v1/issues", interface) for _ in range(6)]
        answers += [ask("POST", "/agent/v1/claim", agent, claim) for _ in range(6)]
        # Refused by the dead node before a byte was sent: nginx passed each on, POSTs too.
        assert answers == [200] * 12
        assert Http([nodes[1].url], interface, Ledger()).json(nodes[1].url, "GET", "/healthz")[0] == 200
    finally:
        stop_nginx(nginx)
        stop_all(*nodes)


def test_the_nginx_site_passes_nginx_t(tmp_path):
    command, _ = site_in(tmp_path)
    result = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


def test_behind_the_nginx_site_json_is_capped_and_an_upload_streams_through(tmp_path, database_url):
    with behind_nginx(tmp_path, database_url) as site:
        request, agent, interface = site.request, site.agent, site.interface
        too_big = b'{"type": "refresh", "params": {"jql": "' + b"x" * default("HUB_MAX_JSON_BYTES") + b'"}}'
        status, body = request("POST", "/api/v1/commands", interface, too_big)
        assert status == 413 and b"nginx" in body  # refused before the hub read a byte

        refresh = json.loads(request("POST", "/api/v1/commands", interface,
                                     b'{"type": "refresh", "params": {"jql": "key = X-1"}}')[1])
        request("POST", "/agent/v1/claim", agent, b'{"agent_id": "a", "version": 14}')
        page = {"issues": [{"key": "X-1", "id": "1", "attachments": [{"id": "9", "filename": "f.bin"}]}]}
        assert request("POST", f"/agent/v1/commands/{refresh['id']}/state", agent,
                       json.dumps(page).encode())[0] == 200
        request("POST", "/api/v1/attachments/9/fetch", interface)
        [fetch] = json.loads(request("POST", "/agent/v1/claim", agent,
                                     b'{"agent_id": "a", "version": 14, "types": ["fetch_attachment"]}')[1])["commands"]
        content = os.urandom(8 * 1024 * 1024)  # twice the JSON cap: the upload location's own
        status, body = request("PUT", f"/agent/v1/commands/{fetch['id']}/file", agent, content,
                               **{"Content-Type": "application/octet-stream"})
        assert status == 200, body
        assert json.loads(body)["sha256"] == hashlib.sha256(content).hexdigest()
        # nginx warns when it spools a request body to a file; with request
        # buffering off it passes the upload on as it arrives.
        assert "buffered to a temporary file" not in (tmp_path / "nginx" / "error.log").read_text()


BODY = b'{"type": "refresh", "params": {"jql": "key = AURORA-12"}}'
CHUNKED = b"%x\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY)
AMBIGUOUS = {  # request line and framing headers, the body, and nginx's answer
    "Content-Length, then Transfer-Encoding": (
        b"HTTP/1.1", b"Content-Length: 5\r\nTransfer-Encoding: chunked", CHUNKED, 400),
    "Transfer-Encoding, then Content-Length": (
        b"HTTP/1.1", b"Transfer-Encoding: chunked\r\nContent-Length: %d" % len(CHUNKED), CHUNKED, 400),
    "two Content-Lengths": (
        b"HTTP/1.1", b"Content-Length: %d\r\nContent-Length: 5" % len(BODY), BODY, 400),
    "Transfer-Encoding on HTTP/1.0": (b"HTTP/1.0", b"Transfer-Encoding: chunked", CHUNKED, 400),
    "a coding before chunked": (b"HTTP/1.1", b"Transfer-Encoding: gzip, chunked", CHUNKED, 501),
}


def raw_request(token: str, version: bytes, framing: bytes, body: bytes) -> bytes:
    return (b"POST /api/v1/commands " + version + b"\r\nHost: hub.example.org\r\n"
            b"Authorization: Bearer " + token.encode() + b"\r\nContent-Type: application/json\r\n"
            + framing + b"\r\n\r\n" + body)


def read_to_close(sock: socket.socket) -> bytes:
    """Everything the other end sends until it closes (a socket timeout fails the test)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_the_nginx_site_refuses_ambiguous_framing_and_closes_the_connection(tmp_path, database_url):
    # RFC 9112, 6.1: a message with both Transfer-Encoding and Content-Length is an
    # error, or the connection closes after it. Nothing of it may reach the hub, and
    # a request pipelined behind it must not be answered on that connection.
    with behind_nginx(tmp_path, database_url) as site:
        healthz = b"GET /healthz HTTP/1.1\r\nHost: hub.example.org\r\n\r\n"
        for name, (version, framing, body, status) in AMBIGUOUS.items():
            raw = socket.create_connection(("127.0.0.1", site.port), timeout=30)
            with site.tls.wrap_socket(raw) as sock:
                sock.sendall(raw_request(site.interface, version, framing, body) + healthz)
                answer = read_to_close(sock)
            head = answer.split(b"\r\n\r\n")[0].decode()
            assert head.startswith(f"HTTP/1.1 {status} "), (name, head)
            assert "Connection: close" in head, (name, head)
            assert answer.count(b"HTTP/1.1 ") == 1, (name, answer)  # the pipelined request went unanswered
        status, listed = site.request("GET", "/api/v1/commands", site.interface)
        assert status == 200 and json.loads(listed)["items"] == []


def test_the_hub_itself_reads_such_a_body_by_its_chunks_and_cannot_tell(tmp_path, database_url):
    # Why the site refuses it: waitress gives the chunks precedence (RFC 9112, 6.3)
    # and hands the hub the decoded length without a Transfer-Encoding, so the hub
    # cannot see that the request was ambiguous, and the connection stays open.
    with behind_nginx(tmp_path, database_url) as site:
        version, framing, body, _ = AMBIGUOUS["Content-Length, then Transfer-Encoding"]
        with socket.create_connection(("127.0.0.1", site.hub_port), timeout=30) as sock:
            sock.sendall(raw_request(site.interface, version, framing, body))
            reader = sock.makefile("rb")
            assert reader.readline().startswith(b"HTTP/1.1 201 ")
        _status, listed = site.request("GET", "/api/v1/commands", site.interface)
        assert [c["params"]["jql"] for c in json.loads(listed)["items"]] == ["key = AURORA-12"]


def directives(block: str, name: str) -> list[str]:
    return re.findall(rf"^\s*{name}\s+([^;]+);", block, re.M)


def size(value: str) -> int:
    return int(value[:-1]) * SIZES[value[-1].lower()] if value[-1].isalpha() else int(value)


def seconds(value: str) -> int:
    return int(value.rstrip("s"))


def location(site: str, pattern: str) -> str:
    start = site.index(f"location ~ {pattern}")
    return site[start:site.index("}", start)]


def test_the_nginx_site_caps_bodies_as_the_hub_does_and_outwaits_its_long_polls():
    site = SITE.read_text()
    server = site[site.index("listen 443"):]
    upload = location(site, "^/agent/v1/commands/[0-9]+/file$")
    assert re.match("^/agent/v1/commands/[0-9]+/file$", "/agent/v1/commands/12/file")
    assert [size(v) for v in directives(server.split("location")[0], "client_max_body_size")] == [
        default("HUB_MAX_JSON_BYTES")]
    assert [size(v) for v in directives(upload, "client_max_body_size")] == [default("HUB_MAX_UPLOAD_BYTES")]
    assert directives(upload, "proxy_request_buffering") == ["off"]
    longest = max(CLAIM["properties"]["wait"]["maximum"], ATTACHMENT_QUERY["properties"]["wait"]["maximum"])
    assert all(seconds(v) > longest for v in directives(site, "proxy_read_timeout"))
    assert directives(server, "limit_conn") and directives(site, "limit_conn_zone")
    assert directives(server, "proxy_set_header").count("X-Forwarded-For $proxy_add_x_forwarded_for") == 1
    port = next(var.default for var in VARIABLES if var.name == "HUB_PORT")
    assert re.findall(r"^\s*server\s+([^;{]+);", site, re.M) == [f"127.0.0.1:{port}"]


def test_the_nginx_site_passes_the_host_with_its_port_and_the_scheme():
    # The hub compares a signed-in page's Origin (https://host:port) with the Host it gets and
    # the scheme the proxy says: $host would drop a port other than 443, and the page's writes
    # would be refused as cross-site.
    site = SITE.read_text()
    server = site[site.index("listen 443"):]
    headers = directives(server, "proxy_set_header")
    assert "Host $http_host" in headers and "X-Forwarded-Proto $scheme" in headers


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read(ROOT / "deploy" / name)
    return parser


@pytest.mark.parametrize("name", UNITS)
def test_the_hub_units_are_hardened_and_write_only_the_data_dir(name):
    service = unit(name)["Service"]
    data_dir = re.search(r"^HUB_DATA_DIR=(\S+)", (ROOT / "deploy" / "hub.env.example").read_text(), re.M)[1]
    assert service["ProtectSystem"] == "strict"
    assert service["ReadWritePaths"] == data_dir
    assert service["NoNewPrivileges"] == service["PrivateTmp"] == "yes"
    assert service["UMask"] == "0077"


def test_the_worker_stops_with_sigint_and_the_server_with_sigterm():
    # Huey's consumer finishes its running tasks on SIGINT and interrupts them on
    # SIGTERM; hub serve stops its in-process consumer gracefully on SIGTERM.
    assert unit("sdlc-hub-worker.service")["Service"]["KillSignal"] == "SIGINT"
    for name in ("sdlc-hub.service", "sdlc-hub-api.service"):
        assert unit(name)["Service"]["KillSignal"] == "SIGTERM"
