"""The ``hub`` console script.

Exit status: 0 done, 1 the operation failed (the message says why and what was
left unchanged), 2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from hub import engine_check, logs
from hub.cli_migrate_to import add_migrate_to
from hub.config import VARIABLES, Config, ConfigError
from hub.engine_check import EngineUnavailable
from hub.errors import HubError
from hub.migrations import MigrationError, MigrationResult
from hub.services.operations.backup import NotEmpty, UnsafePath, WrongEngine
from hub.services.operations.migrate_to import MoveRefused
from hub.services.operations.pg_tools import ToolMissing
from hub.services.operations.pg_tools import where as _where
from hub.vocabulary import BOARD_TYPES, TOKEN_ROLES

if TYPE_CHECKING:
    from hub.assembly import Services

log = logging.getLogger("hub")



def _command(commands, name: str, help: str, example: str) -> argparse.ArgumentParser:
    """A subcommand whose ``--help`` ends with an example of its use."""
    return commands.add_parser(name, help=help, description=help[:1].upper() + help[1:] + ".",
                               epilog="example:\n  " + example.replace("\n", "\n  "),
                               formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hub",
        description="sdlc-hub: a mirror of a team's Jira issues. Configured by HUB_* "
        "environment variables (see docs/configuration.md).",
        epilog="example:\n  HUB_DATA_DIR=/var/lib/sdlc-hub hub token add field-agent --role agent\n\n"
        "environment:\n" + "\n".join(
            f"  {var.name} (default {var.default}): {var.help}" for var in VARIABLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = _command(commands, "serve", "migrate the database if needed, then serve the HTTP API",
                     "HUB_DATA_DIR=/var/lib/sdlc-hub HUB_PORT=8765 hub serve")
    serve.add_argument(
        "--no-worker",
        action="store_true",
        help="do not run the background worker in this process (run 'hub worker' instead)",
    )
    serve.set_defaults(handler=_serve)

    _command(commands, "worker", "run the background worker (periodic tasks)",
             "hub worker    # beside 'hub serve --no-worker'; one worker per data dir").set_defaults(handler=_worker)

    _command(commands, "migrate", "migrate the database to the current schema version and exit",
             "HUB_DATA_DIR=/var/lib/sdlc-hub hub migrate").set_defaults(handler=_migrate)

    token = _command(commands, "token", "manage API tokens (only their sha256 is stored)",
                     "hub token add field-agent --role agent")
    token_commands = token.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    add = _command(token_commands, "add", "create a token and print it, once",
                   "hub token add field-agent --role agent > agent.token\n"
                   "hub token add alice --role interface --write > alice.token")
    add.add_argument("name", help="a name for the token: who or what uses it")
    add.add_argument("--role", required=True, choices=TOKEN_ROLES,
                     help="agent: /agent/v1; interface: /api/v1; admin: /api/v1 and its admin routes")
    add.add_argument("--write", action="store_true",
                     help="let an interface token ask for writes to Jira (comments, transitions, edits...; "
                          "docs/writes.md); admin tokens may always")
    add.set_defaults(handler=_token_add)
    _command(token_commands, "list", "list tokens: name, role, created, write (may write to Jira)",
             "hub token list").set_defaults(handler=_token_list)
    revoke = _command(token_commands, "revoke", "delete a token; its holder gets 401 and its web sign-ins end",
                      "hub token revoke field-agent")
    revoke.add_argument("name")
    revoke.set_defaults(handler=_token_revoke)

    agent = _command(commands, "agent", "list agents, or remove one (freeing its id for its token)",
                     "hub agent remove agent-kzn-2")
    agent_commands = agent.add_subparsers(dest="agent_command", required=True, metavar="ACTION")
    _command(agent_commands, "list", "list agents heard from within HUB_AGENT_FORGET_HOURS: "
             "id, online, last seen, version, state",
             "hub agent list").set_defaults(handler=_agent_list)
    aremove = _command(agent_commands, "remove", "remove an agent; heard from again, it registers again",
                       "hub agent remove agent-kzn-2")
    aremove.add_argument("agent_id", help="the agent_id it sends (see 'hub agent list')")
    aremove.set_defaults(handler=_agent_remove)

    project = _command(commands, "project", "manage projects (one Jira label each)",
                       "hub project add AWPCA --name 'Workplace' --board-id 4216 --board-type scrum")
    project_commands = project.add_subparsers(dest="project_command", required=True, metavar="ACTION")
    padd = _command(project_commands, "add", "add a project",
                    "hub project add AWPCA --name 'Workplace' --board-id 4216 --board-type scrum")
    padd.add_argument("label", help="the Jira label that marks the project's issues")
    padd.add_argument("--name", required=True, help="the name interfaces show")
    padd.add_argument("--board-id", type=int, help="its agile board's id")
    padd.add_argument("--board-type", choices=BOARD_TYPES, help="its agile board's type")
    padd.set_defaults(handler=_project_add)
    _command(project_commands, "list", "list projects and print the base JQL",
             "hub project list").set_defaults(handler=_project_list)
    premove = _command(project_commands, "remove", "remove a project", "hub project remove AWPCA")
    premove.add_argument("label")
    premove.set_defaults(handler=_project_remove)

    cleanup = _command(commands, "cleanup", "clean the file store now; print what it removed",
                       "hub cleanup --dry-run")
    cleanup.add_argument("--dry-run", action="store_true", help="only print what it would remove")
    cleanup.set_defaults(handler=_cleanup)

    scope = _command(commands, "scope", "the part of the base JQL before its labels clause",
                     "hub scope set 'project = AURORA'")
    scope_commands = scope.add_subparsers(dest="scope_command", required=True, metavar="ACTION")
    sset = _command(scope_commands, "set", "set it, e.g. 'project = AURORA' ('' for none)",
                    "hub scope set 'project = AURORA'")
    sset.add_argument("jql")
    sset.set_defaults(handler=_scope_set)
    _command(scope_commands, "show", "print the scope and the base JQL",
             "hub scope show").set_defaults(handler=_scope_show)

    backup = _command(commands, "backup", "copy the hub, while it serves, into a new directory "
                      "(SQLite's online backup, or pg_dump with HUB_DATABASE_URL)",
                      "hub backup /srv/backups/hub-$(date +%Y%m%d-%H%M)")
    backup.add_argument("dest", type=Path, help="where to write the backup: missing or empty")
    backup.add_argument("--copy", action="store_true",
                        help="copy the attachment files even where they could be hard-linked")
    backup.set_defaults(handler=_backup)

    restore = _command(commands, "restore", "restore a backup into an empty data dir (HUB_DATA_DIR), "
                       "or with HUB_DATABASE_URL into an empty PostgreSQL database",
                       "HUB_DATA_DIR=/var/lib/sdlc-hub hub restore /srv/backups/hub-20261130-0300")
    restore.add_argument("src", type=Path, help="a directory that 'hub backup' wrote")
    restore.set_defaults(handler=_restore)

    add_migrate_to(commands, _command, _say)

    mcp = _command(commands, "mcp",
                   "serve the hub to LLM assistants over MCP (stdio, or Streamable HTTP with --http)",
                   "HUB_URL=http://127.0.0.1:8765 HUB_TOKEN=<interface token> hub mcp\n"
                   "hub mcp --url http://127.0.0.1:8765 --http 127.0.0.1:8766\n"
                   "hub mcp --read-only --url http://127.0.0.1:8765 --token <interface token>")
    mcp.description = ("An MCP server that reads a hub over its HTTP API and asks it for writes to Jira "
                       "(it never opens the database), "
                       "so it runs on the assistant's machine as well as on the hub's. See docs/mcp.md.")
    mcp.add_argument("--url", help="the hub's base URL, e.g. http://hub.example:8765 (HUB_URL)")
    mcp.add_argument("--token", help="a hub token of role interface, for stdio (HUB_TOKEN); "
                     "over --http each request brings its own")
    mcp.add_argument("--http", metavar="HOST:PORT",
                     help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    mcp.add_argument("--read-only", action="store_true",
                     help="offer no tool that writes to Jira (add_comment, transition_issue, ...), whatever "
                          "the token may do (HUB_MCP_READ_ONLY=1)")
    mcp.set_defaults(handler=_mcp)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        config = Config.from_env()
    except ConfigError as exc:
        print(f"hub: configuration: {exc}", file=sys.stderr)
        return 2
    logs.configure(config.log_level, config.log_format)
    try:
        return args.handler(config, args)
    except (NoHub, NotEmpty, UnsafePath, WrongEngine, ToolMissing, MoveRefused, ConfigError,
            EngineUnavailable) as exc:
        print(f"hub: {exc}", file=sys.stderr)
        return 2
    except (MigrationError, HubError) as exc:
        print(f"hub: {exc}", file=sys.stderr)
        return 1


def _say(message: str, stream=None) -> None:
    """One line in one write: other threads' log lines cannot split it."""
    stream = stream or sys.stdout
    stream.write(message + "\n")
    stream.flush()


class NoHub(HubError):
    """A command that works on a hub found none where it looked."""


def require_hub(config: Config) -> None:
    """Refuse to go on without a hub database: only ``serve``, ``migrate`` and
    ``restore`` make one. Run from the wrong directory, any other command would
    otherwise create a second, empty hub in ``./hub-data`` and act on that."""
    if config.database_url:
        if engine_check.holds_hub(config.database_url):
            return
        raise NoHub(f"no hub in the database at {engine_check.redact(config.database_url)} (HUB_DATABASE_URL): "
                    "nothing done. Create one there with 'hub migrate'")
    if config.db_path.is_file():
        return
    where = os.environ.get("HUB_DATA_DIR", "").strip()
    told = f"HUB_DATA_DIR is {where!r}" if where else "HUB_DATA_DIR is not set, so ./hub-data"
    raise NoHub(f"no hub at {config.db_path.absolute()} ({told} in {Path.cwd()}): nothing done. "
                "Set HUB_DATA_DIR to your hub's data dir, or create a hub there with 'hub migrate'")


def _start(config: Config) -> None:
    """What ``serve``, ``worker`` and ``migrate`` check first: every engine named can be used."""
    engine_check.check(config)


def _prepare(config: Config, *, quiet: bool = False) -> MigrationResult:
    from hub import startup

    result = startup.prepare(config)
    if not quiet or result.changed:
        _say(describe_migration(config, result), sys.stderr if quiet else sys.stdout)
    return result


def _open(config: Config) -> None:
    """Prepare and open the database for a command that works on it."""
    from hub.db import open_hub_database

    require_hub(config)
    _prepare(config, quiet=True)
    open_hub_database(config)


@contextmanager
def _services(config: Config) -> Iterator[Services]:
    """The hub's services as the builder wires them (:func:`hub.assembly.build_services`),
    on the database opened for a command that works on it; let go of at its end."""
    from hub.assembly import build_services

    _open(config)
    # No sync run finishes here: nothing to mark after one.
    services = build_services(config, lambda run_id: None)
    try:
        yield services
    finally:
        services.close()


def _token_add(config: Config, args: argparse.Namespace) -> int:
    with _services(config) as services:
        token = services.tokens.add(args.name, args.role, write=args.write)
    granted = ", may write to Jira" if args.write else ""
    _say(f"token {args.name!r} (role {args.role}{granted}); it is shown only now:", sys.stderr)
    _say(token)
    return 0


def _token_list(config: Config, args: argparse.Namespace) -> int:
    from hub import shapes

    with _services(config) as services:
        for item in map(shapes.token, services.tokens.list()):
            _say(f"{item['name']}\t{item['role']}\t{item['created_at']}\t{'write' if item['write'] else '-'}")
    return 0


def _token_revoke(config: Config, args: argparse.Namespace) -> int:
    with _services(config) as services:
        services.tokens.revoke(args.name)
    _say(f"token {args.name!r} revoked")
    return 0


def _agent_list(config: Config, args: argparse.Namespace) -> int:
    from hub import shapes

    with _services(config) as services:
        cursor = None
        while True:
            listed = services.agents.list(cursor=cursor, limit=500)
            for a in map(shapes.agent, listed["items"]):
                holds = ",".join(str(held["id"]) for held in a["holds"])
                _say(f"{a['agent_id']}\t{'online' if a['online'] else 'offline'}\t{a['last_seen_at']}\t"
                     f"v{a['version']}\t{a['state'] or '-'}\t{f'holds {holds}' if holds else '-'}\t"
                     f"{_jira_reach(a['jira'])}")
            cursor = listed["next_cursor"]
            if cursor is None:
                return 0


def _jira_reach(jira: dict | None) -> str:
    """Jira's reachability as an agent last reported it (protocol v18), in a few words."""
    if jira is None:
        return "Jira unknown"
    if jira["reachable"]:
        return "Jira reachable"
    return f"Jira unreachable since {jira['since'] or jira['checked_at']}"


def _agent_remove(config: Config, args: argparse.Namespace) -> int:
    with _services(config) as services:
        services.agents.remove(args.agent_id)
    _say(f"agent {args.agent_id!r} removed; heard from again, it registers again")
    return 0


def _project_add(config: Config, args: argparse.Namespace) -> int:
    with _services(config) as services:
        added = services.projects.add(args.label, args.name, args.board_id, args.board_type)
        _say(f"project {added.label!r} added; base JQL: {services.projects.base_jql()}")
    return 0


def _project_list(config: Config, args: argparse.Namespace) -> int:
    with _services(config) as services:
        projects = services.projects
        for p in projects.list():
            board = f"{p.board_type} board {p.board_id}" if p.board_id is not None else "no board"
            _say(f"{p.label}\t{p.name}\t{board}")
        _say(f"base JQL: {projects.base_jql() or '(none: add a project)'}")
    return 0


def _project_remove(config: Config, args: argparse.Namespace) -> int:
    with _services(config) as services:
        services.projects.remove(args.label)
        _say(f"project {args.label!r} removed; base JQL: {services.projects.base_jql() or '(none)'}")
    return 0


def _scope_set(config: Config, args: argparse.Namespace) -> int:
    with _services(config) as services:
        services.projects.set_scope(args.jql)
        _say(f"scope set; base JQL: {services.projects.base_jql() or '(none: add a project)'}")
    return 0


def _scope_show(config: Config, args: argparse.Namespace) -> int:
    with _services(config) as services:
        _say(f"scope: {services.projects.scope() or '(none)'}")
        _say(f"base JQL: {services.projects.base_jql() or '(none: add a project)'}")
    return 0


def _backup(config: Config, args: argparse.Namespace) -> int:
    from hub.assembly import backups

    require_hub(config)  # on PostgreSQL too: an empty database would be dumped as if it were a hub
    report = backups(config).backup(args.dest, copy=args.copy)
    source, database = (config.data_dir, "hub.sqlite") if not config.database_url else (
        _where(config.database_url), "hub.dump")
    if report.in_store:
        how = f"kept in {config.store_url}, listed in the manifest"
    else:
        how = f"{report.linked} hard-linked, {report.files - report.linked} copied"
    _say(f"backup of {source} (schema v{report.schema_version}) in {report.path}: "
         f"{database} {report.database_bytes} bytes, {report.files} files {report.files_bytes} bytes "
         f"({how})")
    if report.missing or report.corrupt:
        _say(f"hub: {len(report.missing)} files named by the database were gone from the store "
             f"(cleanup) and {len(report.corrupt)} did not match their sha256; they are listed under "
             "'missing' in the manifest and restore as state none (fetch them again)", sys.stderr)
    return 0


def _restore(config: Config, args: argparse.Namespace) -> int:
    from hub.assembly import backups

    report = backups(config).restore(args.src)
    if not config.database_url:
        _say(f"restored {args.src} into {report.path}: schema v{report.schema_version}, "
             f"hub.sqlite {report.database_bytes} bytes, {report.files} files {report.files_bytes} bytes; "
             "start it with 'hub serve' (it migrates the database if the backup is older)")
        if report.in_store and report.missing:
            _say(f"hub: {len(report.missing)} files the backup lists are not in {config.store_url}; those "
                 "attachments show state none (fetch them again)", sys.stderr)
        return 0
    where = "in " + str(config.store_url) if report.in_store else f"in {config.files_dir}"
    _say(f"restored {args.src} into {_where(config.database_url)}: schema v{report.schema_version}, "
         f"hub.dump {report.database_bytes} bytes, {report.files} files {report.files_bytes} bytes {where}; "
         "start it with 'hub serve' (it migrates the database if the backup is older)")
    if report.missing:
        _say(f"hub: {len(report.missing)} files the backup lists are not in the store; those attachments "
             "show state none (fetch them again)", sys.stderr)
    return 0


def _cleanup(config: Config, args: argparse.Namespace) -> int:
    with _services(config) as services:
        report = services.cleanup.run(dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    for rule, items in report.removed.items():
        if items:
            _say(f"{rule}: {len(items)} files, {sum(size for _, size in items)} bytes")
    _say(f"{verb} {report.files} files, {report.bytes} bytes; "
         f"{report.kept_bytes} bytes kept (quota {config.files_quota_bytes})")
    return 0


def _first_admin_token(config: Config, services: Services) -> None:
    """On a hub with no tokens: make one admin token, print it once, keep it in a 0600 file."""
    from hub.datadir import PRIVATE_FILE_MODE

    token = services.tokens.create_first_admin()
    if token is None:
        return
    path = config.data_dir / "admin.token"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
    with os.fdopen(fd, "w") as file:
        file.write(token + "\n")
    os.chmod(path, PRIVATE_FILE_MODE)
    _say(f"created admin token 'admin' (also in {path}, mode 0600): {token}")


def describe_migration(config: Config, result: MigrationResult) -> str:
    """One line for the operator: old → new version and the backup path."""
    where = engine_check.redact(config.database_url) if config.database_url else config.db_path
    if result.old_version is None:
        return f"created {where} at schema v{result.new_version}"
    if not result.changed:
        return f"{where} is at schema v{result.new_version}; nothing to migrate"
    backup = f"backup {result.backup}" if result.backup else "no backup taken (PostgreSQL: use hub backup first)"
    return f"migrated {where}: schema v{result.old_version} → v{result.new_version}; {backup}"


def _migrate(config: Config, args: argparse.Namespace) -> int:
    _start(config)
    _prepare(config)
    return 0


def _serve(config: Config, args: argparse.Namespace) -> int:
    import waitress

    from hub.api.app import create_app
    from hub.assembly import build, open_store
    from hub.server import files_needed, raise_open_files_limit, waitress_settings
    from worker.tasks import mark_neighbours

    _start(config)
    _prepare(config)
    store = open_store(config)
    removed = store.remove_leftovers()
    if removed:
        log.info("removed %d upload leftovers of %s", len(removed), store.where)
    raise_open_files_limit(files_needed(config))
    built = build(config, mark_neighbours, store=store)
    app = create_app(built)
    try:
        server = waitress.create_server(app, **waitress_settings(config))
    except OSError as exc:
        _say(f"hub: cannot listen on {config.host}:{config.port}: {exc.strerror or exc}"
             " (set HUB_HOST / HUB_PORT)", sys.stderr)
        return 1
    _first_admin_token(config, built.services)
    consumer = None
    if not args.no_worker:
        from worker.consumer import start_in_process
        from worker.tasks import build_worker, catch_up

        queue = build_worker(config, built)  # the API's own services, metrics and clock
        catch_up()
        consumer = start_in_process(queue)
    try:
        # SIGTERM (systemd, kill) ends the server like Ctrl-C does, whenever it
        # comes: waitress's loop catches the interrupt, and so does this block
        # if it lands before or after the loop.
        signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
        _say(f"serving on http://{config.host}:{server.effective_port}")
        server.run()
    except KeyboardInterrupt:
        server.close()
    finally:
        log.info("stopping")
        if consumer is not None:
            consumer.stop(graceful=True)
    return 0


def _worker(config: Config, args: argparse.Namespace) -> int:
    from worker.consumer import run_forever
    from worker.tasks import build_worker, catch_up

    _start(config)
    require_hub(config)
    _prepare(config, quiet=True)
    queue = build_worker(config)
    catch_up()
    run_forever(queue)
    return 0


def _mcp(config: Config, args: argparse.Namespace) -> int:
    from hub.mcp.server import build_server

    url = args.url or os.environ.get("HUB_URL") or ""
    token = None if args.http else (args.token or os.environ.get("HUB_TOKEN"))
    missing = [] if url else ["--url (HUB_URL)"]
    if not args.http and not token:
        missing.append("--token (HUB_TOKEN)")
    if missing:
        _say(f"hub mcp: missing {', '.join(missing)}", sys.stderr)
        return 2
    if not url.startswith(("http://", "https://")):
        _say(f"hub mcp: --url (HUB_URL) must be an http:// or https:// URL, not {url[:40]!r}", sys.stderr)
        return 2
    if args.http and args.token:
        _say("hub mcp: --token is not used with --http: each request brings its own", sys.stderr)
    # One line per request to the hub is noise for an assistant's log; failures are logged anyway.
    logging.getLogger("httpx").setLevel(max(logging.WARNING, logging.getLogger().level))
    read_only = args.read_only or os.environ.get("HUB_MCP_READ_ONLY", "").strip().lower() in ("1", "true", "yes")
    server = build_server(url, token, read_only=read_only)
    if not args.http:
        # stdout is the wire from here on: everything else goes to stderr.
        server.run("stdio")
        return 0
    from hub.mcp.http import parse_address, serve

    try:
        parse_address(args.http)
    except ValueError as exc:
        _say(f"hub mcp: {exc}", sys.stderr)
        return 2
    return serve(server, url, args.http, config.log_level)


def _raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
