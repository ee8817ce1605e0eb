"""The start check: every engine the settings name can be reached and is new enough.

``hub serve``, ``hub worker`` and ``hub migrate`` call :func:`check` before they
touch anything: the database (PostgreSQL 14 or later, with the extensions the
hub's search needs available to create), the queue (PostgreSQL or Redis) and the
file store. An engine that cannot be used stops the process with exit 2 and one
line naming the setting, the engine (its URL with any password as ``***``) and
what is wrong, rather than failing at the first request. A hub on the data dir
alone (no ``HUB_*_URL`` set) has nothing to reach and passes at once.

Only the check is here; the engines are opened by the builder (:mod:`hub.assembly`).
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from hub.config import Config
from hub.errors import HubError

# PostgreSQL 14 is the oldest the hub runs on: the baseline's SQL functions have
# SQL-standard bodies (RETURN …), which 14 brought, and 13 is past its support.
# The tests run on Debian's PostgreSQL (15 on bookworm).
MIN_POSTGRES_VERSION = 140000
# Full-text search on PostgreSQL folds accents with this one; every major managed service offers it.
REQUIRED_EXTENSIONS = ("unaccent",)
# How long the check waits for an engine to answer.
CHECK_TIMEOUT_SECONDS = 10


class EngineUnavailable(HubError):
    """An engine the settings name cannot be reached, or is too old."""

    title = "Engine unavailable"


def check(config: Config) -> None:
    """Raise :class:`EngineUnavailable` (one line) unless every configured engine is usable."""
    if config.database_url:
        check_database(config.database_url)
    if config.queue_url:
        check_queue(config.queue_url)
    if config.store_url:
        check_store(config.store_url)


def check_database(url: str) -> None:
    """PostgreSQL at ``url`` answers, is 14 or later, and offers the extensions the hub needs."""
    with _postgres(url, "HUB_DATABASE_URL") as conn:
        version = int(conn.execute("SHOW server_version_num").fetchone()[0])
        shown = conn.execute("SHOW server_version").fetchone()[0]
        if version < MIN_POSTGRES_VERSION:
            raise EngineUnavailable(
                f"HUB_DATABASE_URL: PostgreSQL at {redact(url)} is version {shown}; the hub needs "
                f"{MIN_POSTGRES_VERSION // 10000} or later")
        available = {name for (name,) in conn.execute(
            "SELECT name FROM pg_available_extensions WHERE name = ANY(%s)", (list(REQUIRED_EXTENSIONS),))}
        missing = [name for name in REQUIRED_EXTENSIONS if name not in available]
        if missing:
            raise EngineUnavailable(
                f"HUB_DATABASE_URL: PostgreSQL at {redact(url)} lacks the extension(s) {', '.join(missing)} "
                "(Debian: postgresql-contrib; every major managed service offers it): the hub's search needs it")


def holds_hub(url: str) -> bool:
    """Whether the PostgreSQL database at ``url`` has a hub's tables (``hub migrate`` made them)."""
    with _postgres(url, "HUB_DATABASE_URL") as conn:
        return bool(conn.execute("SELECT to_regclass('setting') IS NOT NULL").fetchone()[0])


def check_queue(url: str) -> None:
    """The worker's queue at ``url`` (PostgreSQL or Redis) answers."""
    if url.lower().startswith("redis"):
        try:
            import redis
        except ImportError:
            raise EngineUnavailable("HUB_QUEUE_URL names Redis but the redis client is not installed "
                                    "(pip install 'sdlc-hub[redis]')") from None
        try:
            client = redis.Redis.from_url(url, socket_connect_timeout=CHECK_TIMEOUT_SECONDS,
                                          socket_timeout=CHECK_TIMEOUT_SECONDS)
            client.ping()
            client.close()
        except redis.RedisError as exc:
            raise EngineUnavailable(f"HUB_QUEUE_URL: cannot reach Redis at {redact(url)}: "
                                    f"{_words(exc, url)}") from None
        return
    with _postgres(url, "HUB_QUEUE_URL") as conn:
        conn.execute("SELECT 1")


def check_store(url: str) -> None:
    """The S3 bucket ``url`` names answers, with the endpoint and credentials of the AWS variables."""
    try:
        import boto3
        import botocore.config
        import botocore.exceptions

        from hub.services.files.store_s3 import boto_session
    except ImportError:
        raise EngineUnavailable("HUB_STORE_URL names S3 but boto3 is not installed "
                                "(pip install 'sdlc-hub[s3]')") from None
    # Where botocore found its credentials is no news at each start.
    logging.getLogger("botocore.credentials").setLevel(logging.WARNING)
    bucket = urlsplit(url).netloc
    endpoint = os.environ.get("AWS_ENDPOINT_URL") or None
    where = f"bucket {bucket!r}" + (f" at {redact(endpoint)}" if endpoint else "")
    try:
        client = boto_session(boto3).client("s3", endpoint_url=endpoint, config=botocore.config.Config(
            connect_timeout=CHECK_TIMEOUT_SECONDS, read_timeout=CHECK_TIMEOUT_SECONDS,
            retries={"max_attempts": 1}))
        client.head_bucket(Bucket=bucket)
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as exc:
        raise EngineUnavailable(f"HUB_STORE_URL: cannot use the S3 {where}: {_words(exc, url)}") from None


class _postgres:
    """A short-lived psycopg connection for a check; its failure as :class:`EngineUnavailable`."""

    def __init__(self, url: str, setting: str):
        self._url = url
        self._setting = setting
        self._conn: Any = None

    def __enter__(self):
        try:
            import psycopg
        except ImportError:
            raise EngineUnavailable(f"{self._setting} names PostgreSQL but psycopg is not installed "
                                    "(pip install 'sdlc-hub[postgres]')") from None
        try:
            self._conn = psycopg.connect(self._url, connect_timeout=CHECK_TIMEOUT_SECONDS, autocommit=True,
                                         application_name="sdlc-hub start check")
        except psycopg.Error as exc:
            raise EngineUnavailable(f"{self._setting}: cannot reach PostgreSQL at {redact(self._url)}: "
                                    f"{_words(exc, self._url)}") from None
        return self._conn

    def __exit__(self, exc_type, exc, tb):
        import psycopg

        self._conn.close()
        if isinstance(exc, psycopg.Error):
            raise EngineUnavailable(f"{self._setting}: PostgreSQL at {redact(self._url)} failed the start "
                                    f"check: {_words(exc, self._url)}") from None
        return False


def redact(url: str) -> str:
    """``url`` with its password (in the user part or a ``password=`` parameter) as ``***``."""
    url = re.sub(r"(://[^/@:]*:)[^/@]*@", r"\1***@", url)
    return re.sub(r"(?i)([?&]password=)[^&]*", r"\1***", url)


def _words(exc: BaseException, url: str) -> str:
    """The engine's own words on one line, with no password of ``url`` in them."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    for secret in _passwords(url):
        text = text.replace(secret, "***")
    return text


def _passwords(url: str) -> list[str]:
    parts = urlsplit(url)
    found = [parts.password, *(value for key, value in parse_qsl(parts.query) if key.lower() == "password")]
    return [secret for value in found if value for secret in {value, unquote(value)}]
