"""The shipped nginx site (deploy/nginx/) run by a user for a test: a throw-away certificate,
loopback ports of its own, and a hub behind it (:func:`behind_nginx`).

Nothing here is a mock: nginx is the machine's own (Debian's package), in the foreground as
one process, with the site's file as shipped but for its certificate paths and ports.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import shutil
import ssl
import subprocess
from pathlib import Path

import pytest

from devservers.reaper import end_with_this_process
from tests.support import prepared_hub, rest_of_output, start, stop, wait_for_line, wait_until
from tests.support.engines import free_port

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "deploy" / "nginx" / "sdlc-hub.conf"
NODES_UPSTREAM = ROOT / "deploy" / "nginx" / "sdlc-hub-nodes.conf"
NGINX = shutil.which("nginx") or next(
    (path for path in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(path, os.X_OK)), None)


def need(tool: str | None, what: str) -> str:
    """The tool's path; where it is missing, a skip locally and a failure in CI."""
    if tool is None:
        message = f"{what} is not installed (.ci/run installs it from Debian's packages)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return tool


def self_signed(directory: Path) -> tuple[Path, Path]:
    openssl = need(shutil.which("openssl"), "openssl")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=hub.example.org", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def site_in(directory: Path, hub_port: int | None = None, node_ports: list[int] | None = None) -> tuple[list[str], int]:
    """The shipped site, made runnable in ``directory`` by a user: a throw-away
    certificate, free loopback ports for 80 and 443 (``nginx -t`` binds them too),
    temp paths of its own, and the http {} that Debian's nginx.conf wraps around
    sites-enabled/*. Returns the nginx command line without its action, and the
    port that stands for 443."""
    nginx = need(NGINX, "nginx")
    directory.mkdir(exist_ok=True)
    cert, key = self_signed(directory)
    site = SITE.read_text()
    site = re.sub(r"^(\s*ssl_certificate)\s+\S+;", rf"\1 {cert};", site, flags=re.M)
    site = re.sub(r"^(\s*ssl_certificate_key)\s+\S+;", rf"\1 {key};", site, flags=re.M)
    site = re.sub(r"^\s*listen \[::\]:\d+[^;]*;\n", "", site, flags=re.M)
    ports: dict[str, int] = {}
    site = re.sub(r"^(\s*listen )(\d+)", lambda m: f"{m[1]}127.0.0.1:{ports.setdefault(m[2], free_port())}",
                  site, flags=re.M)
    assert sorted(ports) == ["443", "80"]
    if hub_port is not None:
        site = re.sub(r"^(\s*server 127\.0\.0\.1:)\d+;", rf"\g<1>{hub_port};", site, flags=re.M)
    if node_ports is not None:
        site = several_nodes(site, node_ports)
    (directory / "sdlc-hub.conf").write_text(site)
    temps = "".join(f"    {kind}_temp_path {directory}/{kind};\n"
                    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (directory / kind).mkdir()
    (directory / "nginx.conf").write_text(
        f"pid {directory}/nginx.pid;\nerror_log {directory}/error.log warn;\nevents {{}}\n"
        f"http {{\n    access_log off;\n{temps}    include {directory}/sdlc-hub.conf;\n}}\n")
    return [nginx, "-p", str(directory), "-c", str(directory / "nginx.conf"),
            "-e", str(directory / "error.log")], ports["443"]


def several_nodes(site: str, ports: list[int]) -> str:
    """The site as docs/operations.md ("Several nodes") has it made: the upstream of
    sdlc-hub-nodes.conf in place of the site's, its servers on these loopback ports, and the
    proxy_next_upstream lines it names put in the server."""
    nodes = NODES_UPSTREAM.read_text()
    servers = re.findall(r"^\s*server \S+ (.*);", nodes, re.M)
    assert len(set(servers)) == 1 and len(servers) >= 2, servers
    upstream = re.sub(r"^(\s*server )\S+ (.*);\n", "", nodes, flags=re.M)
    upstream = upstream.replace("    least_conn;", "    least_conn;\n" + "".join(
        f"    server 127.0.0.1:{port} {servers[0]};\n" for port in ports))
    passing = "".join(line.strip("# ") + "\n" for line in nodes.splitlines()
                      if line.strip().startswith("#     proxy_next_upstream"))
    assert passing.count("proxy_next_upstream") == 2, passing
    site = re.sub(r"^upstream sdlc_hub \{.*?^\}\n", lambda _: upstream, site, flags=re.M | re.S)
    return site.replace("    proxy_http_version 1.1;\n", "    proxy_http_version 1.1;\n" + passing, 1)


def start_nginx(command: list[str]) -> subprocess.Popen:
    """nginx of :func:`site_in` in the foreground, one process (no workers to switch user);
    its error output on a pipe, for the reason it ended."""
    nginx = subprocess.Popen([*command, "-g", "daemon off; master_process off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    end_with_this_process(nginx.pid)
    return nginx


def stop_nginx(nginx: subprocess.Popen | None) -> None:
    if nginx is not None:
        nginx.terminate()
        nginx.wait(timeout=30)


def trusting(directory: Path) -> ssl.SSLContext:
    """A client's TLS context that trusts the throw-away certificate of :func:`site_in` (made
    in ``directory``) whatever name it is reached by."""
    tls = ssl.create_default_context(cafile=str(directory / "cert.pem"))
    tls.check_hostname = False
    return tls


class Behind:
    """A hub behind the shipped site: the ports, TLS context and tokens, and a request."""

    url = property(lambda self: f"https://127.0.0.1:{self.port}", doc="The site's URL, as a browser opens it.")
    hub_url = property(lambda self: f"http://127.0.0.1:{self.hub_port}", doc="The hub's own URL, past nginx.")

    def __init__(self, hub_port: int, port: int, tls: ssl.SSLContext, agent: str, interface: str):
        self.hub_port, self.port, self.tls, self.agent, self.interface = hub_port, port, tls, agent, interface

    def request(self, method: str, path: str, token: str, body: bytes | None = None, **headers):
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=60, context=self.tls)
        try:
            conn.request(method, path, body=body, headers={"Authorization": f"Bearer {token}",
                                                           "Content-Type": "application/json", **headers})
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()


@contextlib.contextmanager
def behind_nginx(tmp_path: Path, database_url: str | None = None, **settings: str):
    """``hub serve --no-worker`` (more ``HUB_*`` in ``settings``) behind the shipped site,
    until the hub answers through it: a :class:`Behind` while the block runs."""
    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", "--no-worker", data_dir=data_dir, database_url=database_url, **settings)
    nginx = None
    try:
        hub_port = int(wait_for_line(hub, r"serving on http://[^:]+:(\d+)").group(1))
        command, port = site_in(tmp_path / "nginx", hub_port)
        nginx = start_nginx(command)
        site = Behind(hub_port, port, trusting(tmp_path / "nginx"), agent, interface)

        def healthy():
            try:
                return site.request("GET", "/healthz", interface)[0] == 200
            except OSError:
                assert nginx.poll() is None, nginx.stderr.read()
                return False

        wait_until(healthy, message="the hub answering through nginx")
        yield site
    finally:
        stop_nginx(nginx)
        code = stop(hub)
        assert code == 0, f"hub serve ended with {code}: {rest_of_output(hub)[-3000:]}"
