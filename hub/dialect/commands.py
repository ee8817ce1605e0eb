"""The command table's SQL where the engines differ: claims, leases, runs, fetch requests.

On SQLite every write transaction is ``BEGIN IMMEDIATE``: one writer at a time,
so a rule checked and acted on in one transaction holds. PostgreSQL runs
writers side by side (READ COMMITTED), so each such rule takes a lock there:

- a claim takes its rows ``FOR UPDATE SKIP LOCKED`` (another claimer's rows
  are passed over, never handed out twice), and so does the lease expiry that
  runs at every claim (claimers never queue behind each other's expiry);
- a report's holder check is one conditional UPDATE: a second report waits
  for the first's row lock and then finds the command no longer held;
- cancelling and marking a run's neighbours lock their row (:func:`locked`);
- "at most one open X" where no row exists yet to lock (one open scheduled
  refresh of a kind, one open fetch of an attachment, one open refresh of a
  query, at most N queued by one token) takes a transaction-level advisory lock
  on the rule's name (:func:`serialize`).

Each function gives SQLite's statement exactly as the services had it.
"""

from __future__ import annotations

from hub.dialect.engines import Dialect, current, hold
from hub.vocabulary import CHECK_ISSUES, CLAIMED, QUEUED, RUNNING

# The first key of the hub's two-key advisory locks ("cmds" in ASCII); the
# second is the hash of what the rule is about. (The schema's migration lock
# uses the one-key space, which does not overlap with this one.)
ADVISORY_CLASS = 0x636D6473
# The topics of the rules serialised by advisory locks.
REFRESH_SCHEDULE = "refresh-schedule"
FETCH = "fetch:"
# An interface's refresh of one query (its params, as canonical JSON): one open at a time.
SAME_REFRESH = "refresh:"
# The commands one token has queued (its id): the bound of HUB_QUEUED_COMMANDS_PER_TOKEN.
QUEUED_BY = "queued-by:"


def serialize(topic: str) -> None:
    """Wait, inside the current transaction, until no other transaction holds ``topic``;
    hold it until COMMIT or ROLLBACK (:func:`hub.dialect.hold`, among the command rules'
    locks, :data:`ADVISORY_CLASS`). On SQLite nothing: ``BEGIN IMMEDIATE`` already made
    the transaction the only writer."""
    hold(topic, ADVISORY_CLASS)


def locked(query, dialect: Dialect | None = None):
    """``query`` (a Peewee select) taking a row lock on what it reads, on PostgreSQL;
    on SQLite as it is."""
    return query.for_update() if (dialect or current()).postgres else query


def typed(sql_type: str, dialect: Dialect | None = None) -> str:
    """A ``?`` parameter whose type PostgreSQL cannot infer (``? IS NULL``), cast to ``sql_type``."""
    return f"CAST(? AS {sql_type})" if (dialect or current()).postgres else "?"


def id_list(dialect: Dialect | None = None) -> str:
    """A subquery of the integers of one bound JSON array (``id IN …``)."""
    if (dialect or current()).postgres:
        return "(SELECT CAST(jsonb_array_elements_text(CAST(? AS jsonb)) AS BIGINT))"
    return "(SELECT value FROM json_each(?))"


def held_by(dialect: Dialect | None = None) -> str:
    """The holder check of a report, as a WHERE clause. Parameters: command id, token_id,
    agent_id, agent_id, agent_id, delivery, delivery."""
    d = dialect or current()
    return (f"WHERE id = ? AND status = '{CLAIMED}' "
            f"AND (token_id = ? OR (token_id IS NULL AND {typed('TEXT', d)} IS NOT NULL)) "
            f"AND ({typed('TEXT', d)} IS NULL OR agent_id = ?) "
            f"AND ({typed('BIGINT', d)} IS NULL OR deliveries = ?)")


def picked(subquery: str, dialect: Dialect | None = None) -> str:
    """``id`` among the rows ``subquery`` picks. On PostgreSQL the subquery (which locks what
    it picks) runs once, before the UPDATE, as an array: an ``IN (…)`` may be planned to run it
    again for each row the UPDATE looks at, each run picking and locking rows of its own."""
    if (dialect or current()).postgres:
        return f"id = ANY(ARRAY({subquery}))"
    return f"id IN ({subquery})"


# A queued command a claim may take: none of its serial key (``command.serial_key``: a write's
# issue) older and still open, so that such commands reach their agents one at a time, oldest
# first. The same on both engines; on PostgreSQL a claim that skipped an older one locked by another
# claim still sees it queued here, and passes over the younger.
SERIAL_FREE = (f"(serial_key IS NULL OR NOT EXISTS (SELECT 1 FROM command AS prior "
               f"WHERE prior.serial_key = command.serial_key AND prior.id < command.id "
               f"AND prior.status IN ('{QUEUED}', '{CLAIMED}')))")


def still_queued(dialect: Dialect | None = None) -> str:
    """The claim's condition checked again on each row it locked (PostgreSQL: a row picked
    may have been claimed and committed meanwhile); on SQLite nothing."""
    return f"AND status = '{QUEUED}' " if (dialect or current()).postgres else ""


def token_alive(dialect: Dialect | None = None) -> str:
    """A claim's check that its token still exists. Parameters: token_id, token_id."""
    return f"({typed('BIGINT', dialect)} IS NULL OR EXISTS (SELECT 1 FROM token WHERE id = ?))"


def expired_leases(dialect: Dialect | None = None) -> str:
    """The WHERE clause of the lease expiry. Parameter: now (once on SQLite, twice on PostgreSQL).

    On PostgreSQL the expired rows are taken ``SKIP LOCKED``: a row another
    transaction holds is being reported on (its lease about to be extended) or
    taken back by another expiry, and waiting for it would queue claimers behind
    each other; the outer condition is checked again on the row as locked.
    """
    if (dialect or current()).postgres:
        return (f"WHERE id = ANY(ARRAY(SELECT id FROM command WHERE status = '{CLAIMED}' AND lease_until < ? "
                f"FOR UPDATE SKIP LOCKED)) AND status = '{CLAIMED}' AND lease_until < ?")
    return f"WHERE status = '{CLAIMED}' AND lease_until < ?"


def expired_params(now: str, dialect: Dialect | None = None) -> tuple:
    """The parameters of :func:`expired_leases`."""
    return (now, now) if (dialect or current()).postgres else (now,)


def runs_from_json(dialect: Dialect | None = None) -> str:
    """``SELECT command_id, query, status, started_at, issues_loaded, agent_version`` from one
    bound JSON array of ``[command_id, query, started_at, agent_version]``, in the array's order."""
    if (dialect or current()).postgres:
        return (f"SELECT CAST(value ->> 0 AS BIGINT), value ->> 1, '{RUNNING}', value ->> 2, 0, "
                "CAST(value ->> 3 AS BIGINT) "
                "FROM jsonb_array_elements(CAST(? AS jsonb)) WITH ORDINALITY AS runs(value, key) "
                "ORDER BY key")
    return ("SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), "
            f"'{RUNNING}', "
            "json_extract(value, '$[2]'), 0, json_extract(value, '$[3]') FROM json_each(?) "
            "ORDER BY key")


def checking_keys(open_statuses: str, dialect: Dialect | None = None) -> str:
    """The keys that open ``check_issues`` commands name (``open_statuses``: a SQL list)."""
    if (dialect or current()).postgres:
        return ("SELECT jsonb_array_elements_text(CAST(command.params AS jsonb) -> 'keys') FROM command "
                f"WHERE command.type = '{CHECK_ISSUES}' AND command.status IN ({open_statuses})")
    return ("SELECT keys.value FROM command, json_each(command.params, '$.keys') AS keys "
            f"WHERE command.type = '{CHECK_ISSUES}' AND command.status IN ({open_statuses})")


def asked_attachments(dialect: Dialect | None = None) -> str:
    """A FROM item ``asked(value, key)``: the ids of one bound JSON array with their position."""
    if (dialect or current()).postgres:
        return "jsonb_array_elements_text(CAST(? AS jsonb)) WITH ORDINALITY AS asked(value, key)"
    return "json_each(?) AS asked"


def fetch_of(value: str, dialect: Dialect | None = None) -> str:
    """The condition that a ``fetch_attachment`` ``c`` asks for the attachment id ``value``,
    its id spelled as the index ``command_attachment`` has it (else the index is not used).
    On PostgreSQL ``->>`` reads a number as text too: only a string is an attachment id,
    as SQLite's ``json_extract`` compares."""
    if (dialect or current()).postgres:
        return (f"((c.params::jsonb) ->> 'attachment_id') = {value}"
                " AND jsonb_typeof((c.params::jsonb) -> 'attachment_id') = 'string'")
    return f"json_extract(c.params, '$.attachment_id') = {value}"


def claim_alone(marks: str, run_marks: str) -> str:
    """PostgreSQL's claim as one statement, outside any transaction: the oldest queued
    commands of the types in ``marks`` taken (as :func:`picked`, :func:`still_queued` and
    :func:`token_alive` have it), a run opened for each command taken of the types in
    ``run_marks`` (the kinds that open one; empty: none), and whether any lease has run out
    (the caller then takes them back, in a transaction of its own).

    Parameters: agent_id, token_id, claimed_at, lease_until, the types, limit, token_id,
    token_id, agent_version, the types that open runs, now. Rows: ``(expired, id, type, params, deliveries,
    lease_until)``, one per command taken, or one with ``id`` NULL when none was.
    """
    return f"""
WITH claimed AS (
  UPDATE command SET status = '{CLAIMED}', agent_id = ?, token_id = ?, claimed_at = ?, lease_until = ?,
         deliveries = deliveries + 1
  WHERE id = ANY(ARRAY(SELECT id FROM command WHERE status = '{QUEUED}' AND type IN ({marks})
                       AND {SERIAL_FREE} ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED))
    AND status = '{QUEUED}' AND (CAST(? AS BIGINT) IS NULL OR EXISTS (SELECT 1 FROM token WHERE id = ?))
  RETURNING id, type, params, deliveries, lease_until, claimed_at),
runs AS (
  INSERT INTO sync_run (command_id, query, status, started_at, issues_loaded, agent_version)
  SELECT id, coalesce(CAST(params AS jsonb) ->> 'jql', ''), '{RUNNING}', claimed_at, 0, CAST(? AS BIGINT)
  FROM claimed WHERE {f'type IN ({run_marks})' if run_marks else 'false'} ORDER BY id)
SELECT EXISTS (SELECT 1 FROM command WHERE status = '{CLAIMED}' AND lease_until < ?),
       claimed.id, claimed.type, claimed.params, claimed.deliveries, claimed.lease_until
FROM (SELECT 1) AS one LEFT JOIN claimed ON true
"""
