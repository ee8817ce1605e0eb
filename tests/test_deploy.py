"""What ``deploy/`` ships: the nginx site passes ``nginx -t`` and fits the hub's
limits; the systemd units are hardened and stop each process the way it stops well."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hub.api.schemas import ATTACHMENT_QUERY, CLAIM
from hub.config import VARIABLES

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "deploy" / "nginx" / "sdlc-hub.conf"
NGINX = shutil.which("nginx") or next(
    (path for path in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(path, os.X_OK)), None)
UNITS = ("sdlc-hub.service", "sdlc-hub-api.service", "sdlc-hub-worker.service")
SIZES = {"k": 1024, "m": 1024**2, "g": 1024**3}


def default(name: str) -> int:
    return int(next(var.default for var in VARIABLES if var.name == name))


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


def test_the_nginx_site_passes_nginx_t(tmp_path):
    nginx = need(NGINX, "nginx")
    cert, key = self_signed(tmp_path)
    site = SITE.read_text()
    site = re.sub(r"^(\s*ssl_certificate)\s+\S+;", rf"\1 {cert};", site, flags=re.M)
    site = re.sub(r"^(\s*ssl_certificate_key)\s+\S+;", rf"\1 {key};", site, flags=re.M)
    (tmp_path / "sdlc-hub.conf").write_text(site)
    for temp in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp_path / temp).mkdir()
    # The http {} that Debian's nginx.conf wraps around sites-enabled/*.
    (tmp_path / "nginx.conf").write_text(f"""
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log;
events {{}}
http {{
    access_log off;
    client_body_temp_path {tmp_path}/body;
    proxy_temp_path {tmp_path}/proxy;
    fastcgi_temp_path {tmp_path}/fastcgi;
    uwsgi_temp_path {tmp_path}/uwsgi;
    scgi_temp_path {tmp_path}/scgi;
    include {tmp_path}/sdlc-hub.conf;
}}
""")
    result = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                             "-e", str(tmp_path / "error.log")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


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
