"""What agents report about the commands they hold: state pages, done, failed; and the issues a
``check_issues`` finds gone."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from hub.clock import Clock, iso
from hub.db import database
from hub.dialect.commands import locked
from hub.errors import Conflict, ContractError
from hub.metrics import Metrics
from hub.models import AttachmentFile, Command, Issue, SyncRun
from hub.services.commands.dispatch import Dispatcher
from hub.services.commands.sync_runs import close_open_run, count_page, open_run
from hub.services.files.store import FileStore, is_sha256
from hub.services.mirror.catalogues import CatalogueService
from hub.services.mirror.loading import MirrorService, RunContext
from hub.services.mirror.projects import ProjectService
from hub.services.search.fulltext_backlog import SearchBacklog
from hub.vocabulary import (
    CHECK_ISSUES,
    DONE,
    FAILED,
    FETCH_ATTACHMENT,
    GONE_REASON,
    ISSUE_KEY_PATTERN,
    REFRESH,
)

log = logging.getLogger(__name__)

_ISSUE_KEY = re.compile(ISSUE_KEY_PATTERN)


class ReportService:
    def __init__(self, dispatcher: Dispatcher, mirror: MirrorService, projects: ProjectService,
                 store: FileStore, on_full_run_done: Callable[[int], None],
                 clock: Clock | None = None, *, metrics: Metrics | None = None,
                 catalogues: CatalogueService | None = None, backlog: SearchBacklog | None = None):
        self._store = store
        self._backlog = backlog or SearchBacklog()
        self._catalogues = catalogues or CatalogueService()
        self._metrics = metrics or Metrics()
        self._dispatcher = dispatcher
        self._mirror = mirror
        self._projects = projects
        self._on_full_run_done = on_full_run_done
        self._clock = clock or Clock()

    def state(self, command_id: int, report: dict, *, token_id: int | None) -> dict:
        """Apply one page of issue states, all or nothing. A ``check_issues`` reports what
        Jira returned as ``neighbors`` only: they are mirrored as a refresh's neighbours are,
        and no run counts them."""
        issues, neighbors = report.get("issues") or [], report.get("neighbors") or []
        with database.atomic():
            command = self._held(command_id, report, token_id)
            if command.type == CHECK_ISSUES:
                context = self._check_context(command, issues)
                issues_loaded = 0
            elif command.type != REFRESH:
                raise Conflict(f"command {command_id} is a {command.type}; state pages belong "
                               "to refresh and check_issues commands")
            else:
                started_at, issues_loaded = self._count(command, len(issues))
                context = RunContext(full=self._is_full(command), started_at=started_at,
                                     now=iso(self._clock.now()))
            self._mirror.load_page(issues, neighbors, context)
            self._catalogues.load(report.get("catalogues"), context.now)
        self._backlog.wake()  # committed: PostgreSQL's index catches up with the page
        self._metrics.state_pages.inc()
        self._metrics.issues_loaded.inc(len(issues))
        return {"issues_loaded": issues_loaded, "lease_until": command.lease_until}

    def done(self, command_id: int, report: dict, *, token_id: int | None) -> Command:
        """Finish a held command. A full run that loaded issues owes the neighbour
        marking: the debt is recorded with the run, in the same transaction, and
        paid by the task enqueued after COMMIT or, should that enqueue fail or be
        lost, by the periodic task that pays every debt left."""
        result = report.get("result")
        agent_id, delivery = report.get("agent_id"), report.get("delivery")
        full_run = None
        now = iso(self._clock.now())
        with database.atomic():
            # The holder check and the finish are one statement; a result that
            # turns out wrong for the command's type raises and undoes it.
            command = self._dispatcher.finish(
                command_id, token_id, agent_id, delivery, DONE, now,
                results={REFRESH: result, FETCH_ATTACHMENT: _file_result(result),
                         CHECK_ISSUES: _check_result(result)})
            if command is None:
                command = self._dispatcher.find(command_id)
                if command.status == DONE:
                    return self._repeated_done(command, report, token_id)
                raise self._dispatcher.refusal(command, token_id, agent_id, delivery)
            if command.type == REFRESH:
                refreshed = self._refresh_result(result)
                full_run = self._finish_run(command, refreshed.get("history_at"), now)
            elif command.type == CHECK_ISSUES:
                self._mark_gone(command, result, now)
            else:
                self._record_file(command, result, now)
        if full_run is not None:
            self._enqueue_marking(full_run)
        return command

    def _finish_run(self, command: Command, history_at: str | None, now: str) -> int | None:
        """Close a done refresh's run; the run's id if it owes the neighbour marking."""
        closed = close_open_run(command.id, DONE, now, history_at=history_at)
        if closed is None:
            # Claimed by a hub that did not open runs at claim: it gets one,
            # from its claim time, with nothing loaded.
            SyncRun.create(command=command.id, query=(command.params or {}).get("jql", ""),
                           status=DONE, started_at=command.claimed_at or now,
                           finished_at=now, history_at=history_at, issues_loaded=0)
            return None
        run_id, issues_loaded = closed
        # Only a run that loaded issues can owe the marking: the base JQL (two
        # reads) is looked at only then.
        if issues_loaded >= 1 and self._is_full(command):
            SyncRun.update(neighbors_due=1).where(SyncRun.id == run_id).execute()
            return run_id
        return None

    def _enqueue_marking(self, run_id: int) -> None:
        # After COMMIT: the task must see the finished run. The command is done
        # and the debt recorded whatever happens here, so a queue that is busy,
        # missing or broken costs a delay, never the marking or the answer. The
        # queue's errors are whatever its storage raises, hence the broad catch.
        try:
            self._on_full_run_done(run_id)
        except Exception as exc:
            log.warning("sync run %d: could not enqueue the neighbour marking (%s); "
                        "the periodic task will do it", run_id, exc)

    def _check_context(self, command: Command, issues: list) -> RunContext:
        """How a check's page is loaded: as neighbours outside any full run, so a known
        issue keeps its flag and one new to the mirror is a neighbour."""
        if issues:
            raise ContractError("a check_issues reports the issues Jira returned as neighbors, "
                                "never as issues", "issues")
        now = iso(self._clock.now())
        return RunContext(full=False, started_at=command.claimed_at or now, now=now)

    def _mark_gone(self, command: Command, result, now: str) -> int:
        """``done`` of a check_issues: the keys it names ``missing`` are gone, each only if
        the command asked for it, the mirror still holds an issue under that key (a moved
        one, re-keyed by the check's own pages, has left it for an alias), it is not gone
        already, and no page has loaded it since the command was claimed. Returns how many."""
        checked = _check_result(result)
        if not isinstance(checked, dict):
            raise ContractError("a check_issues' result is {checked, missing}", "result")
        count = checked.get("checked")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ContractError("result.checked must be the number of keys checked", "result.checked")
        missing = checked.get("missing")
        if not isinstance(missing, list):
            raise ContractError("result.missing must be the list of keys Jira did not return",
                                "result.missing")
        for n, key in enumerate(missing):
            if not isinstance(key, str) or not _ISSUE_KEY.match(key):
                raise ContractError(f"result.missing.{n} must be an issue key like AURORA-12",
                                    f"result.missing.{n}")
        asked = set((command.params or {}).get("keys") or ())
        wanted = sorted({key for key in missing if key in asked})
        if not wanted:
            return 0
        since = command.claimed_at or now
        # Locked in key order first, as a page writes the known issues it loads (see
        # SyncRunService.mark_neighbours): the planner may read a short list by a scan.
        missing_rows = locked(Issue.select(Issue.key)
                              .where(Issue.key.in_(wanted), Issue.gone_at.is_null(), Issue.fetched_at < since)
                              .order_by(Issue.key))
        gone = Issue.update(gone_at=now, gone_reason=GONE_REASON).where(Issue.key.in_(missing_rows)).execute()
        if gone:
            log.info("command %d: %d issues not found in Jira marked gone", command.id, gone)
        return gone

    def failed(self, command_id: int, report: dict, *, token_id: int | None) -> Command:
        """Fail a held command, keeping its error on the command and its run."""
        agent_id, delivery = report.get("agent_id"), report.get("delivery")
        now = iso(self._clock.now())
        with database.atomic():
            command = self._dispatcher.finish(command_id, token_id, agent_id, delivery,
                                              FAILED, now, error=report["error"])
            if command is None:
                raise self._dispatcher.refusal(self._dispatcher.find(command_id), token_id,
                                               agent_id, delivery)
            close_open_run(command.id, FAILED, now, error=report["error"])
        return command

    def upload(self, command_id: int, stream, *, length: int | None, max_bytes: int,
               expected_sha256: str | None, agent_id: str | None,
               delivery: int | None, token_id: int | None) -> dict:
        """Store the content of a held ``fetch_attachment``: ``{sha256, size}``.

        The holder is checked (and the lease extended) in a short transaction
        first; the body is then streamed to the store with no transaction open.
        """
        with database.atomic():
            command = self._dispatcher.held(command_id, token_id, agent_id, delivery)
            if command.type != FETCH_ATTACHMENT:
                raise Conflict(f"command {command_id} is a {command.type}; files belong "
                               "to fetch_attachment commands")
        sha256, size = self._store.receive(stream, length=length, max_bytes=max_bytes,
                                           expected_sha256=expected_sha256)
        self._metrics.uploads.inc()
        self._metrics.upload_bytes.inc(size)
        return {"sha256": sha256, "size": size}

    def _record_file(self, command: Command, result, now: str) -> dict:
        """``done`` of a fetch_attachment: the only writer of ``attachment_file``."""
        if not isinstance(result, dict) or not is_sha256(result.get("sha256")):
            raise ContractError("a fetch_attachment's result is {sha256, size}: sha256 as 64 "
                                "lowercase hex digits", "result.sha256")
        size = result.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ContractError("result.size must be the file's size in bytes", "result.size")
        stored = self._store.size(result["sha256"])
        if stored is None:
            raise Conflict(f"no file {result['sha256']} in the store: upload it with "
                           f"PUT /agent/v1/commands/{command.id}/file first")
        if stored != size:
            raise Conflict(f"file {result['sha256']} is {stored} bytes, not {size}")
        attachment_id = (command.params or {}).get("attachment_id")
        row = {"file": result["sha256"], "size": size, "fetched_at": now}
        (AttachmentFile.insert(attachment_id=attachment_id, **row)
         .on_conflict(conflict_target=[AttachmentFile.attachment_id], update=row).execute())
        return {"sha256": result["sha256"], "size": size}

    def _held(self, command_id: int, report: dict, token_id: int | None) -> Command:
        return self._dispatcher.held(command_id, token_id, report.get("agent_id"),
                                     report.get("delivery"))

    def _is_full(self, command: Command) -> bool:
        """A refresh of exactly the base JQL as it is now, with no ``updated_since``,
        is a full run: an incremental one loads only what changed, so what it did
        not load may still be inside the base JQL."""
        params = command.params or {}
        jql = params.get("jql")
        return (jql is not None and params.get("updated_since") is None
                and jql == self._projects.base_jql())

    def _count(self, command: Command, issues: int) -> tuple[str, int]:
        """Count a page on the command's running run: the run's ``(started_at, issues_loaded)``."""
        counted = count_page(command.id, issues)
        if counted is None:
            # A command claimed by a hub that did not open runs at claim has none;
            # it gets one from its claim time.
            open_run(command.id, (command.params or {}).get("jql", ""),
                     command.claimed_at or iso(self._clock.now()))
            counted = count_page(command.id, issues)
            assert counted is not None, "the run just opened counts the page"
        return counted

    @staticmethod
    def _refresh_result(result) -> dict:
        if not isinstance(result, dict):
            raise ContractError("a refresh's result is {total, history_at?}", "result")
        total = result.get("total")
        if not isinstance(total, int) or isinstance(total, bool) or total < 0:
            raise ContractError("result.total must be a whole number of issues", "result.total")
        history_at = result.get("history_at")
        if history_at is not None and not isinstance(history_at, str):
            raise ContractError("result.history_at must be a time string or null", "result.history_at")
        return result

    @staticmethod
    def _repeated_done(command: Command, report: dict, token_id: int | None) -> Command:
        """The same ``done`` again, from the holder: 200 and nothing changes."""
        agent_id = report.get("agent_id")
        if command.token_id is not None and command.token_id != token_id:
            raise Conflict(f"command {command.id} was done by another agent")
        if agent_id is not None and agent_id != command.agent_id:
            raise Conflict(f"command {command.id} was done by another agent")
        if not _same_result(command.type, report.get("result"), command.result):
            raise Conflict(f"command {command.id} is done already, with another result")
        return command


def _check_result(result):
    """What a check_issues' done records: ``checked`` and ``missing``, nothing else (checked by
    ``_mark_gone`` once the command's type is known)."""
    if not isinstance(result, dict):
        return result
    return {"checked": result.get("checked"), "missing": result.get("missing")}


def _file_result(result):
    """What a fetch_attachment's done records: its sha256 and size, nothing else
    (checked by ``_record_file`` once the command's type is known)."""
    if not isinstance(result, dict):
        return result
    return {"sha256": result.get("sha256"), "size": result.get("size")}


# The members of a result that a done records, by command type.
_RESULT_MEMBERS = {REFRESH: ("total", "history_at"), FETCH_ATTACHMENT: ("sha256", "size"),
                   CHECK_ISSUES: ("checked", "missing")}


def _same_result(command_type: str, sent, recorded) -> bool:
    """Whether two results of a done say the same; a member absent reads as null."""
    if not isinstance(sent, dict) or not isinstance(recorded, dict):
        return sent == recorded
    return all(sent.get(name) == recorded.get(name) for name in _RESULT_MEMBERS[command_type])
