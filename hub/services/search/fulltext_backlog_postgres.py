"""PostgreSQL's full-text index brought up to date after the pages that changed it.

Computing an issue's tsvectors is most of what a state page costs the server on
PostgreSQL (its words folded and parsed: about 0.4 ms an issue, as much as all
its rows besides). A page therefore only marks the keys whose text it may change
(``issue_fts_stale``, in its own transaction; :mod:`hub.dialect.fulltext`), and
the vectors are computed after it commits, here, off the path of the agent's
request. Search does not wait for that: it reads the view ``issue_fts_now``, which
computes a marked key's vectors from its text then and there, so a page's issues
are found as soon as it commits.

Two drain the marks, both with :meth:`PostgresSearchBacklog.drain`:

- each node's thread, woken by the report service after every committed page
  (:meth:`PostgresSearchBacklog.wake`), on a connection of its own that it closes
  once it has been idle for :data:`IDLE_SECONDS`;
- the worker's periodic task, every minute: what a node killed before it drained
  left behind.

A batch takes the same locks, in the same order, as a page writing those keys
(:meth:`hub.dialect.mirror.MirrorSql.lock`): it computes from what the mirror
holds with no page of those keys in flight, and unmarks, in one transaction, only
what it computed. Two drains of one key (two nodes, a node and the worker) take
turns; the second finds the key unmarked and leaves it.

The interface is :class:`hub.services.search.fulltext_backlog.SearchBacklog`; on
SQLite a page writes its FTS5 rows itself and the backlog does nothing
(:mod:`hub.services.search.fulltext_backlog_sqlite`).
"""

from __future__ import annotations

import logging
import threading
import weakref

import orjson

from hub import dialect
from hub.db import database
from hub.services.search.fulltext_backlog import SearchBacklog

log = logging.getLogger(__name__)

# Keys indexed per transaction: a page's worth, so a batch holds its keys' locks
# about as long as a page does.
BATCH_KEYS = 100
# How long the thread keeps its connection while nothing is marked.
IDLE_SECONDS = 10.0
# How long a batch waits for a key's lock before it gives up (and the next wake or
# the worker's task tries again).
LOCK_TIMEOUT_MS = 30_000
CONNECT_TIMEOUT_SECONDS = 10

_KEYS = "(SELECT jsonb_array_elements_text(CAST(%s AS jsonb)))"
_NEXT = "SELECT key FROM issue_fts_stale ORDER BY key LIMIT %s"
_UNMARK = f"DELETE FROM issue_fts_stale WHERE key IN {_KEYS} RETURNING key"
_GONE = (f"DELETE FROM issue_fts WHERE key IN {_KEYS} "
         "AND NOT EXISTS (SELECT FROM issue WHERE issue.key = issue_fts.key)")


class PostgresSearchBacklog(SearchBacklog):
    """Indexes the keys pages marked stale, on ``url`` (see the module's doc)."""

    def __init__(self, url: str, *, batch: int = BATCH_KEYS, idle_seconds: float = IDLE_SECONDS) -> None:
        self._url = url
        self._batch = batch
        self._idle = idle_seconds
        self._woken = threading.Event()
        self._stopping = threading.Event()
        self._start_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        # A backlog nobody holds any more (a hub built and let go) stops its thread.
        weakref.finalize(self, self._stopping.set)

    def wake(self) -> None:
        """A page committed: have this node's thread index what it marked."""
        self._woken.set()
        with self._start_lock:
            if self._stopping.is_set():
                return
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=_run, name="search-backlog", daemon=True,
                    args=(weakref.ref(self), self._woken, self._stopping, self._idle))
                self._thread.start()

    def drain(self, conn=None) -> int:
        """Index every key marked stale, a batch per transaction, on ``conn`` (a psycopg
        connection; by default one opened for this call); how many keys were indexed."""
        if conn is None:
            if not self.waiting():  # the worker's usual minute: no connection opened for nothing
                return 0
            with self.connect() as own:
                return self.drain(own)
        indexed = 0
        while (done := self._one_batch(conn)) is not None:
            indexed += done
        return indexed

    def waiting(self) -> int:
        """How many keys are marked now (for /metrics, in the caller's transaction)."""
        return database.execute_sql("SELECT count(*) FROM issue_fts_stale").fetchone()[0]

    def connect(self):
        """A connection for :meth:`drain`."""
        import psycopg

        conn = psycopg.connect(self._url, connect_timeout=CONNECT_TIMEOUT_SECONDS,
                               application_name="sdlc-hub search backlog")
        conn.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
        conn.commit()
        return conn

    def _one_batch(self, conn) -> int | None:
        """Index the next batch of marked keys; None when none is marked."""
        with conn.transaction():
            keys = [key for (key,) in conn.execute(_NEXT, (self._batch,))]
            if not keys:
                return None
            sql = dialect.mirror.postgres_mirror_sql()
            sql.lock(conn, lambda: keys)
            # Unmarked only here, under the locks: a page of these keys either committed
            # before (what is computed below is its text) or waits for this batch to end.
            done = [key for (key,) in conn.execute(_UNMARK, (orjson.dumps(keys).decode(),))]
            if done:  # (another drain may have indexed them meanwhile)
                conn.execute(dialect.fulltext.index(dialect.POSTGRES), (orjson.dumps(done).decode(),))
                conn.execute(_GONE, (orjson.dumps(done).decode(),))
        return len(done)

    def close(self) -> None:
        """Stop the thread (it ends its batch first) and close its connection."""
        self._stopping.set()
        self._woken.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(5.0)


def _run(backlog: weakref.ref, woken: threading.Event, stopping: threading.Event, idle: float) -> None:
    """A node's thread: drains whenever woken, keeping one connection while it is busy.

    It holds its backlog only weakly, and ends when the backlog is closed or let go."""
    import psycopg

    conn = None
    try:
        while not stopping.is_set():
            if not woken.wait(idle):
                if conn is not None:  # idle: let the server have the connection back
                    conn.close()
                    conn = None
                continue
            woken.clear()
            held = backlog()
            if held is None or stopping.is_set():
                break
            try:
                if conn is None or conn.closed or conn.broken:
                    conn = held.connect()
                held.drain(conn)
            except psycopg.Error as exc:
                # What stays marked is searched as it is; the next wake or the worker's
                # task, within a minute, indexes it.
                log.warning("search backlog: indexing failed (%s); the worker retries within a minute", exc)
                if conn is not None:
                    conn.close()
                    conn = None
            del held
    finally:
        if conn is not None:
            conn.close()
