"""The write probe of a PostgreSQL hub (:class:`hub.services.operations.health.WriteProbe`):
a committed write to its database through a connection of its own."""

from __future__ import annotations

from hub.services.operations.health import PROBE_KEY, PROBE_TIMEOUT_SECONDS, WriteProbe


class PostgresWriteProbe(WriteProbe):
    """A committed write to the hub's PostgreSQL database through a connection of its own
    (not one of the threads'): it shows whether a new connection can be had and written on."""

    # lock_not_available: another transaction holds the probe's row; busy, not broken.
    _BUSY = "55P03"

    def __init__(self, url: str):
        self._url = url

    def __call__(self, now: str) -> str | None:
        """None if the write went in, else what stopped it."""
        import psycopg

        try:
            conn = psycopg.connect(self._url, connect_timeout=PROBE_TIMEOUT_SECONDS,
                                   application_name="sdlc-hub health")
        except psycopg.Error as exc:
            return f"cannot connect to the database: {_first_line(exc)}"
        try:
            with conn.transaction():
                conn.execute(f"SET LOCAL lock_timeout = '{PROBE_TIMEOUT_SECONDS}s'")
                conn.execute(f"SET LOCAL statement_timeout = '{PROBE_TIMEOUT_SECONDS}s'")
                conn.execute("INSERT INTO setting (key, value) VALUES (%s, %s) "
                             "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (PROBE_KEY, now))
            return None
        except psycopg.Error as exc:
            if exc.sqlstate == self._BUSY:
                return None
            return f"the database cannot be written: {_first_line(exc)}"
        finally:
            conn.close()


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
