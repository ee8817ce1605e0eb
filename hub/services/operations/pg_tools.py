"""PostgreSQL's client programs (``pg_dump``, ``pg_restore``) and what they are given.

``hub backup`` and ``hub restore`` on a PostgreSQL hub run the server's own
tools: a custom-format ``pg_dump`` archive is what every PostgreSQL operator
knows how to keep, check and restore. A tool is taken from ``HUB_PG_BINDIR``
when it is set, else from ``PATH``, else from Debian's
``/usr/lib/postgresql/<version>/bin`` (newest first): the first one that is at
least as new as the server. ``pg_dump`` refuses to dump a newer server, and an
archive written by a newer ``pg_dump`` may not be readable by an older
``pg_restore``, so an older tool is refused here, before anything is written,
with one line that says which tool, which version and what the server runs.

The password of a URL is handed to the tools in ``PGPASSWORD``, never on their
command line, where any user of the machine could read it (``ps``).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from hub.errors import HubError

DEBIAN_BINDIRS = "/usr/lib/postgresql/*/bin"
_VERSION = re.compile(r"\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?")


class ToolMissing(HubError):
    """A PostgreSQL client program the command needs is not there, or is older than the server."""

    title = "Tool missing"


@dataclass(frozen=True)
class PgTool:
    """One PostgreSQL client program and the version it says it is."""

    path: Path
    version: tuple[int, int]

    @property
    def major(self) -> int:
        return self.version[0]

    @property
    def version_text(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"


def candidates(name: str, bindir: Path | None = None) -> list[Path]:
    """Where ``name`` may be, in the order it is looked for."""
    if bindir is not None:
        return [bindir / name]
    found = [Path(p) for p in [shutil.which(name)] if p]
    debian = sorted(glob.glob(f"{DEBIAN_BINDIRS}/{name}"), key=_debian_version, reverse=True)
    return found + [Path(p) for p in debian if Path(p) not in found]


def _debian_version(path: str) -> int:
    version = Path(path).parent.parent.name
    return int(version) if version.isdigit() else 0


def tool_version(path: Path) -> tuple[int, int] | None:
    """What ``path --version`` says, as (major, minor); None if it does not run or say."""
    try:
        done = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION.search(done.stdout)
    if done.returncode != 0 or match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0)


def find_tool(name: str, at_least: int, *, server: str, bindir: Path | None = None) -> PgTool:
    """The first ``name`` of :func:`candidates` whose major version is ``at_least`` or more.

    ``server`` words what it must match in the refusal (``the server (15.4)``).
    Raises ToolMissing when there is none.
    """
    places = candidates(name, bindir)
    seen: list[str] = []
    for path in places:
        if not path.is_file():
            continue
        version = tool_version(path)
        if version is None:
            seen.append(f"{path} (does not say its version)")
            continue
        tool = PgTool(path, version)
        if tool.major >= at_least:
            return tool
        seen.append(f"{path} {tool.version_text}")
    where = f"HUB_PG_BINDIR ({bindir})" if bindir is not None else f"PATH or {DEBIAN_BINDIRS}"
    if not seen:
        raise ToolMissing(f"{name} was not found in {where}: install PostgreSQL's client programs "
                          f"(version {at_least} or later; Debian: apt-get install postgresql-client-{at_least}), "
                          "or set HUB_PG_BINDIR to where they are; nothing was written")
    raise ToolMissing(f"{name} must be version {at_least} or later to work with {server}; found only "
                      f"{', '.join(seen)} in {where}: install a newer one, or set HUB_PG_BINDIR to where "
                      "it is; nothing was written")


def server_version(url: str) -> tuple[int, str]:
    """The server's major version and its full version text (``15.4``)."""
    import psycopg

    with psycopg.connect(url, connect_timeout=30) as conn:
        number = conn.info.server_version  # e.g. 150004
        text = conn.execute("SHOW server_version").fetchone()
    return number // 10000, str(text[0]).split()[0] if text else str(number)


def libpq_target(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its password, and the environment that carries the password instead."""
    parts = urlsplit(url)
    env = {**os.environ}
    if parts.password is None:
        return url, env
    env["PGPASSWORD"] = unquote(parts.password)
    user = parts.username or ""
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = f"{user}@{host}" if user else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc)), env


def where(url: str) -> str:
    """``url`` as messages name it: scheme, host, port and database, no user or password."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def run_tool(tool: PgTool, args: list[str], url: str | None, what: str) -> subprocess.CompletedProcess:
    """Run ``tool`` with ``args`` (and ``--dbname`` for ``url``, if given); raise ToolFailed
    with what it said on stderr."""
    argv, env = [str(tool.path), *args], {**os.environ}
    if url is not None:
        target, env = libpq_target(url)
        argv.append(f"--dbname={target}")
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolFailed(f"{what} failed: {tool.path.name} exited with {done.returncode}: "
                         f"{_tail(done.stderr)}")
    return done


class ToolFailed(HubError):
    """A PostgreSQL client program ran and failed; the message holds what it said."""

    title = "Tool failed"


def _tail(text: str, lines: int = 5) -> str:
    kept = [line for line in text.strip().splitlines() if line.strip()][-lines:]
    return " / ".join(kept) or "(it said nothing)"
