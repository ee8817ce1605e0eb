"""A sync run's row through its refresh's life: opened when the refresh is claimed, counted
per state page, closed by done, failed or a cancel, failed when its lease runs out.

Below the kinds (:mod:`hub.services.commands.kinds`) and the services that read them, so
that the run's listing and neighbour marking (:mod:`hub.services.commands.sync_runs`) may
ask the ``check_issues`` kind to enqueue the checks a full run owes."""

from __future__ import annotations

import json

from hub import dialect
from hub.db import database
from hub.models import SyncRun
from hub.vocabulary import FAILED, RUNNING


def open_run(command_id: int, query: str, started_at: str) -> SyncRun:
    """Open a running run for a command (one claimed by a hub that opened none at claim)."""
    return SyncRun.create(command=command_id, query=query, status=RUNNING,
                          started_at=started_at, issues_loaded=0)


# The newest running run of a command, found through the index on command_id.
_NEWEST_RUNNING = (f"(SELECT id FROM sync_run WHERE command_id = ? AND status = '{RUNNING}' "
                   "ORDER BY id DESC LIMIT 1)")


def count_page(command_id: int, issues: int) -> tuple[str, int] | None:
    """Add a state page's ``issues`` to the command's running run, in one statement.

    Returns the run's ``(started_at, issues_loaded)``, or None when the command has
    no running run. Call inside the page's transaction, so that a page that fails
    is not counted.
    """
    row = database.execute_sql(
        f"UPDATE sync_run SET issues_loaded = issues_loaded + ? WHERE id = {_NEWEST_RUNNING} "
        "RETURNING started_at, issues_loaded", (issues, command_id)).fetchone()
    return (row[0], row[1]) if row else None


def close_open_run(command_id: int, status: str, finished_at: str, *,
                   error: str | None = None, history_at: str | None = None) -> tuple[int, int] | None:
    """Finish the running run of a command, if it has one, in one statement.

    Returns the run's ``(id, issues_loaded)``, or None when there was none.
    """
    row = database.execute_sql(
        "UPDATE sync_run SET status = ?, finished_at = ?, error = ?, history_at = ? "
        f"WHERE id = {_NEWEST_RUNNING} RETURNING id, issues_loaded",
        (status, finished_at, error, history_at, command_id)).fetchone()
    return (row[0], row[1]) if row else None


def open_runs(runs: list[tuple[int, str, str, int]]) -> None:
    """Open a running run for each ``(command_id, query, started_at, agent_version)``, in one statement."""
    # One INSERT over a JSON array rather than executemany: it goes through the
    # database's own execute, whose errors the API knows how to answer.
    database.execute_sql(
        "INSERT INTO sync_run (command_id, query, status, started_at, issues_loaded, agent_version) "
        f"{dialect.commands.runs_from_json()}", (json.dumps(runs, ensure_ascii=False),))


def fail_runs_of_expired(command_ids: list[int], finished_at: str) -> None:
    """Close the running runs of commands whose lease ran out, in one statement.

    Call before the re-queued commands lose their ``agent_id``: the error
    names the agent whose lease it was.
    """
    database.execute_sql(
        f"UPDATE sync_run SET status = '{FAILED}', finished_at = ?, history_at = NULL, "
        "error = 'lease of agent ' || coalesce((SELECT agent_id FROM command "
        "WHERE command.id = sync_run.command_id), 'None') || ' expired' "
        f"WHERE status = '{RUNNING}' AND command_id IN {dialect.commands.id_list()}",
        (finished_at, json.dumps(command_ids)))
