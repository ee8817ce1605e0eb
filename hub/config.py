"""The hub's configuration, read from ``HUB_*`` environment variables.

Every setting has a working default, so a bare ``hub serve`` gives a working hub.
A value that cannot be read stops the hub with a :class:`ConfigError` that names
the variable, rather than running with a guess.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hub.clock import known_zone

MIB = 1024**2
GIB = 1024**3


class ConfigError(ValueError):
    """A ``HUB_*`` variable holds a value the hub cannot use."""


def _integer(minimum: int, maximum: int | None = None) -> Callable[[str, str], int]:
    def parse(name: str, raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            upper = f" and at most {maximum}" if maximum is not None else ""
            raise ConfigError(f"{name} must be at least {minimum}{upper}, got {value}")
        return value

    return parse


def _text(name: str, raw: str) -> str:
    value = raw.strip()
    if not value:
        raise ConfigError(f"{name} must not be empty")
    return value


_CRON_FIELD = re.compile(r"[0-9*/,-]+\Z")
CRON_FIELDS = ("minute", "hour", "day", "month", "day_of_week")


def cron_schedule(cron: str):
    """A five-field cron expression as Huey's schedule, read strictly.

    Huey's ``crontab`` ignores a piece it does not understand (``5/2``, an empty
    one) unless ``strict``; the hub reads it strictly, here and in the worker,
    so that what was checked at start is what runs. Raises ValueError.
    """
    from huey import crontab

    return crontab(**dict(zip(CRON_FIELDS, cron.split(" "), strict=True)), strict=True)


def _cron(name: str, raw: str) -> str:
    value = " ".join(raw.split())
    if len(value.split(" ")) != 5 or not all(_CRON_FIELD.match(f) for f in value.split(" ")):
        raise ConfigError(
            f"{name} must be a five-field cron expression (minute hour day month weekday), "
            f"got {raw!r}"
        )
    try:
        cron_schedule(value)
    except ValueError as exc:
        # Huey's own words, e.g. "99 is not a valid input"; a step of 0 fails
        # inside slicing ("slice step cannot be zero").
        raise ConfigError(f"{name} is not a cron expression Huey can run ({exc}), got {raw!r}") from None
    return value


OFF = "off"


def _cron_or_off(name: str, raw: str) -> str | None:
    """A cron expression as :func:`_cron` reads it, or ``off``: None, no schedule."""
    if raw.strip().lower() == OFF:
        return None
    return _cron(name, raw)


def _log_level(name: str, raw: str) -> str:
    value = raw.strip().upper()
    if value not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ConfigError(f"{name} must be DEBUG, INFO, WARNING, ERROR or CRITICAL, got {raw!r}")
    return value


def _log_format(name: str, raw: str) -> str:
    value = raw.strip().lower()
    if value not in ("text", "json"):
        raise ConfigError(f"{name} must be text or json, got {raw!r}")
    return value


# An RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens.
_HOST_NAME = re.compile(r"(?=.{1,253}\Z)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?\Z")


def _host(name: str, raw: str) -> str:
    """An address to listen on: an IPv4 or IPv6 literal, or a host name.

    Checked for shape only, never looked up, so that a command that does not
    listen never waits on DNS; ``hub serve`` says so if the name does not resolve.
    """
    value = _text(name, raw)
    literal = value[1:-1] if value.startswith("[") and value.endswith("]") else value
    try:
        ipaddress.ip_address(literal)
        return literal
    except ValueError:
        pass
    if not _HOST_NAME.match(value):
        raise ConfigError(f"{name} must be an IP address or a host name, got {raw!r}")
    return value


def _zone_or_unset(name: str, raw: str) -> str | None:
    """An IANA time zone's name (``Europe/Moscow``), or nothing (unset: None)."""
    value = raw.strip()
    if not value:
        return None
    if known_zone(value) is None:
        raise ConfigError(f"{name} must be an IANA time zone's name such as Europe/Moscow or UTC, got {raw!r}")
    return value


def _directory_or_unset(name: str, raw: str) -> Path | None:
    """A directory that must exist, or nothing (unset: None)."""
    value = raw.strip()
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_dir():
        raise ConfigError(f"{name} must name a directory that exists, got {raw!r}")
    return path


def _addresses(name: str, raw: str) -> tuple[str, ...]:
    """Comma-separated IP addresses (each as Python writes it), or ``none``: no address."""
    value = raw.strip()
    if value.lower() == "none":
        return ()
    addresses = []
    for item in value.split(","):
        try:
            addresses.append(str(ipaddress.ip_address(item.strip())))
        except ValueError:
            raise ConfigError(f"{name} must be IP addresses separated by commas, or none; "
                              f"{item.strip()!r} is not an IP address") from None
    return tuple(addresses)


def _path(name: str, raw: str) -> Path:
    return Path(_text(name, raw)).expanduser()


def _directory(name: str, raw: str) -> Path:
    """A directory path that exists as a directory or can be created as one."""
    path = _path(name, raw)
    for place in (path, *path.parents):
        try:
            is_dir = place.is_dir()
            exists = is_dir or place.exists()
        except OSError as exc:  # e.g. a name too long, a loop of symlinks
            raise ConfigError(f"{name} cannot be used: {place}: {exc.strerror or exc}") from None
        if exists and not is_dir:
            where = "names" if place == path else f"is under {place}, which is"
            raise ConfigError(f"{name} {where} a file, not a directory: {raw.strip()!r}")
        if exists:
            break
    return path


# The engines the hub runs on besides its own files, by the scheme of their URL.
DATABASE_SCHEMES = ("postgresql", "postgres")
QUEUE_SCHEMES = ("postgresql", "postgres", "redis", "rediss")
STORE_SCHEMES = ("s3",)


def _url_or_unset(schemes: tuple[str, ...], unset: str) -> Callable[[str, str], str | None]:
    """A URL with one of ``schemes`` (``postgresql://…``), or nothing: None, the local default.

    Checked for shape only here; whether the engine answers, and is new enough,
    is checked when the hub starts (:mod:`hub.engine_check`).
    """

    def parse(name: str, raw: str) -> str | None:
        value = raw.strip()
        if not value:
            return None
        scheme, sep, rest = value.partition("://")
        if not sep or scheme.lower() not in schemes:
            raise ConfigError(f"{name} must be a {' or '.join(s + '://' for s in schemes)} URL, "
                              f"or unset for {unset}; got {_redacted(value)!r}")
        if scheme.lower() == "s3" and not rest.split("/", 1)[0]:
            raise ConfigError(f"{name} must name a bucket: s3://bucket/prefix, got {value!r}")
        return value

    return parse


def _http_url_or_unset(name: str, raw: str) -> str | None:
    """An http(s) URL a browser can open (``https://jira.example.com``, a path allowed), without a
    trailing slash; or nothing (None). No credentials, query or fragment: it is a base for links."""
    value = raw.strip()
    if not value:
        return None
    parts = urlsplit(value)
    if (parts.scheme.lower() not in ("http", "https") or not parts.hostname or "@" in parts.netloc
            or parts.query or parts.fragment or any(char.isspace() for char in value)):
        raise ConfigError(f"{name} must be an http:// or https:// URL such as https://jira.example.com "
                          f"(no credentials, query or fragment), or unset; got {_redacted(value)!r}")
    try:
        parts.port  # noqa: B018 (read for its check: a port that is no number raises)
    except ValueError:
        raise ConfigError(f"{name} names a port that is no port: {value!r}") from None
    return value.rstrip("/")


def _redacted(url: str) -> str:
    """``url`` with any password replaced by ``***``, for messages and logs."""
    return re.sub(r"(://[^/@:]*:)[^/@]*@", r"\1***@", url)


@dataclass(frozen=True)
class _Var:
    name: str
    attr: str
    default: str
    parse: Callable[[str, str], object]
    help: str


# One table: the order here is the order docs/configuration.md lists them in.
VARIABLES: tuple[_Var, ...] = (
    _Var("HUB_DATA_DIR", "data_dir", "./hub-data", _directory,
         "Directory holding hub.sqlite, backups/, files/ and queue.sqlite."),
    _Var("HUB_DATABASE_URL", "database_url", "", _url_or_unset(DATABASE_SCHEMES, "hub.sqlite in HUB_DATA_DIR"),
         "The hub's database: unset for hub.sqlite in HUB_DATA_DIR, or postgresql://user:password@host/db."),
    _Var("HUB_QUEUE_URL", "queue_url", "", _url_or_unset(QUEUE_SCHEMES, "queue.sqlite in HUB_DATA_DIR"),
         "The worker's queue: unset for queue.sqlite in HUB_DATA_DIR, postgresql://… or redis://…."),
    _Var("HUB_STORE_URL", "store_url", "", _url_or_unset(STORE_SCHEMES, "files/ in HUB_DATA_DIR"),
         "The attachment file store: unset for files/ in HUB_DATA_DIR, or s3://bucket/prefix "
         "(endpoint and credentials from the AWS_* variables)."),
    _Var("HUB_PG_BINDIR", "pg_bindir", "", _directory_or_unset,
         "Where hub backup / hub restore find pg_dump and pg_restore on a PostgreSQL hub; "
         "unset: PATH, then /usr/lib/postgresql/*/bin."),
    _Var("HUB_HOST", "host", "127.0.0.1", _host, "Address the HTTP API listens on."),
    _Var("HUB_PORT", "port", "8765", _integer(0, 65535), "Port the HTTP API listens on."),
    _Var("HUB_THREADS", "threads", "32", _integer(2, 1024),
         "waitress worker threads: every request in progress holds one."),
    _Var("HUB_LONG_POLL_THREADS", "long_poll_threads", "16", _integer(1, 1023),
         "At most this many threads wait in long-polls at once; a poll past them answers "
         "at once, with Retry-After. Must be below HUB_THREADS."),
    _Var("HUB_CONNECTION_LIMIT", "connection_limit", "1000", _integer(1, 100_000),
         "Open client connections waitress accepts; more wait in the listen backlog."),
    _Var("HUB_CHANNEL_TIMEOUT", "channel_timeout", "60", _integer(1, 86_400),
         "Seconds an idle client connection (no request in progress) is kept open."),
    _Var("HUB_LEASE_SECONDS", "lease_seconds", "300", _integer(1),
         "How long a claimed command stays with its agent without a heartbeat or report."),
    _Var("HUB_MAX_DELIVERIES", "max_deliveries", "5", _integer(1),
         "Deliveries after which a command whose lease ran out is failed."),
    _Var("HUB_AGENTS_PER_TOKEN", "agents_per_token", "16", _integer(1, 100_000),
         "Agent ids one agent token may register; ids unseen for HUB_AGENT_FORGET_HOURS "
         "do not count. A heartbeat or claim with a new id past it answers 409."),
    _Var("HUB_AGENT_FORGET_HOURS", "agent_forget_hours", "24", _integer(1, 100_000),
         "Hours after which an agent not heard from is forgotten: no longer listed, counted "
         "or in /metrics, and removed by the worker."),
    _Var("HUB_MAX_UPLOAD_BYTES", "max_upload_bytes", str(2 * GIB), _integer(1),
         "Largest attachment upload the hub accepts, in bytes (inclusive)."),
    _Var("HUB_MAX_JSON_BYTES", "max_json_bytes", str(4 * MIB), _integer(1024, 1024 * MIB),
         "Largest JSON request body, in bytes, checked before the body is read."),
    _Var("HUB_FILES_QUOTA_BYTES", "files_quota_bytes", str(10 * GIB), _integer(0),
         "Size the file store is cleaned down to."),
    _Var("HUB_FILES_MAX_AGE_DAYS", "files_max_age_days", "30", _integer(1),
         "Age (since fetch) after which a stored attachment file is removed."),
    _Var("HUB_STORE_CACHE_BYTES", "store_cache_bytes", str(4 * GIB), _integer(0),
         "With HUB_STORE_URL=s3://…: bytes of recently downloaded files each node keeps in "
         "cache/files in HUB_DATA_DIR, from where downloads are sent."),
    _Var("HUB_CLEANUP_CRON", "cleanup_cron", "0 3 * * *", _cron,
         "When the periodic file-store cleanup runs (cron syntax, UTC)."),
    _Var("HUB_REFRESH_CRON", "refresh_cron", "*/15 * * * *", _cron_or_off,
         "When an incremental refresh of the base JQL is enqueued (cron syntax, UTC), or off."),
    _Var("HUB_FULL_REFRESH_CRON", "full_refresh_cron", "0 2 * * *", _cron_or_off,
         "When a full refresh of the base JQL is enqueued (cron syntax, UTC), or off."),
    _Var("HUB_REFRESH_OVERLAP_MINUTES", "refresh_overlap_minutes", "10", _integer(0, 1_000_000),
         "How far before the start of the last finished refresh an incremental one looks."),
    _Var("HUB_BUSY_TIMEOUT_SECONDS", "busy_timeout_seconds", "30", _integer(1),
         "How long a database write waits for another writer before giving up."),
    _Var("HUB_JQL_TIMEOUT_SECONDS", "jql_timeout_seconds", "5", _integer(1, 3600),
         "How long a JQL query of the issue list may run before it is stopped (503, Retry-After)."),
    _Var("HUB_JQL_TIME_ZONE", "jql_time_zone", "", _zone_or_unset,
         "The time zone JQL's dates are read in; unset: the Jira user's, as the agent reports it, else UTC."),
    _Var("HUB_JIRA_URL", "jira_url", "", _http_url_or_unset,
         "Jira's address as browsers reach it, for the page's links to issues in Jira; unset: Jira's own "
         "base URL, as the agent reports it."),
    _Var("HUB_SESSION_HOURS", "session_hours", "12", _integer(1, 8760),
         "How long a sign-in on the web interface lasts (its session cookie), in hours."),
    _Var("HUB_SESSIONS_PER_TOKEN", "sessions_per_token", "20", _integer(1, 100_000),
         "Web sign-ins one token keeps at once; a new one past it ends that token's oldest."),
    _Var("HUB_SAVED_FILTERS_PER_TOKEN", "saved_filters_per_token", "200", _integer(1, 100_000),
         "Saved filters one token may keep; saving one more past it answers 409."),
    _Var("HUB_QUEUED_COMMANDS_PER_TOKEN", "queued_commands_per_token", "100", _integer(1, 100_000),
         "Commands one token may have queued (not yet claimed) at once; past it a request to "
         "queue another answers 429 with Retry-After."),
    _Var("HUB_TRUSTED_PROXIES", "trusted_proxies", "127.0.0.1,::1", _addresses,
         "Addresses of the proxies whose X-Forwarded-Proto the hub believes (comma-separated), or none."),
    _Var("HUB_LOG_LEVEL", "log_level", "INFO", _log_level, "Logging level (DEBUG, INFO, WARNING, ...)."),
    _Var("HUB_LOG_FORMAT", "log_format", "text", _log_format,
         "Log lines as text or json (one JSON object per line)."),
)


@dataclass(frozen=True)
class Config:
    """Settings of one hub; build it with :meth:`from_env` or directly in tests."""

    data_dir: Path = Path("./hub-data")
    database_url: str | None = None
    queue_url: str | None = None
    store_url: str | None = None
    pg_bindir: Path | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    threads: int = 32
    long_poll_threads: int = 16
    connection_limit: int = 1000
    channel_timeout: int = 60
    lease_seconds: int = 300
    max_deliveries: int = 5
    agents_per_token: int = 16
    agent_forget_hours: int = 24
    max_upload_bytes: int = 2 * GIB
    max_json_bytes: int = 4 * MIB
    files_quota_bytes: int = 10 * GIB
    files_max_age_days: int = 30
    store_cache_bytes: int = 4 * GIB
    cleanup_cron: str = "0 3 * * *"
    refresh_cron: str | None = "*/15 * * * *"
    full_refresh_cron: str | None = "0 2 * * *"
    refresh_overlap_minutes: int = 10
    busy_timeout_seconds: int = 30
    jql_timeout_seconds: float = 5
    jql_time_zone: str | None = None
    jira_url: str | None = None
    session_hours: int = 12
    sessions_per_token: int = 20
    saved_filters_per_token: int = 200
    queued_commands_per_token: int = 100
    trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1")
    log_level: str = "INFO"
    log_format: str = "text"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """Read every ``HUB_*`` variable, falling back to its default when unset or empty."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for var in VARIABLES:
            raw = environ.get(var.name, "")
            values[var.attr] = var.parse(var.name, raw if raw.strip() else var.default)
        if values["long_poll_threads"] >= values["threads"]:
            raise ConfigError(
                f"HUB_LONG_POLL_THREADS must be below HUB_THREADS ({values['threads']}) so that "
                f"some threads always answer, got {values['long_poll_threads']}")
        return cls(**values)

    @property
    def backend(self) -> str:
        """``sqlite`` (hub.sqlite in the data dir) or ``postgresql``: the engine of the hub's tables."""
        return "postgresql" if self.database_url else "sqlite"

    @property
    def db_path(self) -> Path:
        return self.data_dir / "hub.sqlite"

    @property
    def backups_dir(self) -> Path:
        return self.data_dir / "backups"

    @property
    def files_dir(self) -> Path:
        return self.data_dir / "files"

    @property
    def queue_path(self) -> Path:
        return self.data_dir / "queue.sqlite"
