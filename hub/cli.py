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
from typing import Sequence

from hub import logs
from hub.config import VARIABLES, Config, ConfigError
from hub.errors import HubError
from hub.migrations import MigrationError, MigrationResult
from hub.vocabulary import BOARD_TYPES, TOKEN_ROLES

log = logging.getLogger("hub")



def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hub",
        description="sdlc-hub: a mirror of a team's Jira issues. Configured by HUB_* "
        "environment variables (see docs/configuration.md).",
        epilog="environment:\n" + "\n".join(
            f"  {var.name} (default {var.default}): {var.help}" for var in VARIABLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser(
        "serve", help="migrate the database if needed, then serve the HTTP API"
    )
    serve.add_argument(
        "--no-worker",
        action="store_true",
        help="do not run the background worker in this process (run 'hub worker' instead)",
    )
    serve.set_defaults(handler=_serve)

    worker = commands.add_parser("worker", help="run the background worker (periodic tasks)")
    worker.set_defaults(handler=_worker)

    migrate = commands.add_parser(
        "migrate", help="migrate the database to the current schema version and exit"
    )
    migrate.set_defaults(handler=_migrate)

    token = commands.add_parser("token", help="manage API tokens (only their sha256 is stored)")
    token_commands = token.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    add = token_commands.add_parser("add", help="create a token and print it, once")
    add.add_argument("name", help="a name for the token: who or what uses it")
    add.add_argument("--role", required=True, choices=TOKEN_ROLES)
    add.set_defaults(handler=_token_add)
    token_commands.add_parser("list", help="list tokens: name, role, created").set_defaults(
        handler=_token_list)
    revoke = token_commands.add_parser("revoke", help="delete a token; its holder gets 401")
    revoke.add_argument("name")
    revoke.set_defaults(handler=_token_revoke)

    project = commands.add_parser("project", help="manage projects (one Jira label each)")
    project_commands = project.add_subparsers(dest="project_command", required=True, metavar="ACTION")
    padd = project_commands.add_parser("add", help="add a project")
    padd.add_argument("label", help="the Jira label that marks the project's issues")
    padd.add_argument("--name", required=True, help="the name interfaces show")
    padd.add_argument("--board-id", type=int, help="its agile board's id")
    padd.add_argument("--board-type", choices=BOARD_TYPES, help="its agile board's type")
    padd.set_defaults(handler=_project_add)
    project_commands.add_parser("list", help="list projects and print the base JQL").set_defaults(
        handler=_project_list)
    premove = project_commands.add_parser("remove", help="remove a project")
    premove.add_argument("label")
    premove.set_defaults(handler=_project_remove)

    cleanup = commands.add_parser("cleanup", help="clean the file store now; print what it removed")
    cleanup.add_argument("--dry-run", action="store_true", help="only print what it would remove")
    cleanup.set_defaults(handler=_cleanup)

    scope = commands.add_parser("scope", help="the part of the base JQL before its labels clause")
    scope_commands = scope.add_subparsers(dest="scope_command", required=True, metavar="ACTION")
    sset = scope_commands.add_parser("set", help="set it, e.g. 'project = AURORA' ('' for none)")
    sset.add_argument("jql")
    sset.set_defaults(handler=_scope_set)
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
    except (MigrationError, HubError) as exc:
        print(f"hub: {exc}", file=sys.stderr)
        return 1


def _say(message: str, stream=None) -> None:
    """One line in one write: other threads' log lines cannot split it."""
    stream = stream or sys.stdout
    stream.write(message + "\n")
    stream.flush()


def _prepare(config: Config, *, quiet: bool = False) -> MigrationResult:
    from hub import startup

    result = startup.prepare(config)
    if not quiet or result.changed:
        _say(describe_migration(config, result), sys.stderr if quiet else sys.stdout)
    return result


def _open(config: Config) -> None:
    """Prepare and open the database for a command that works on it."""
    from hub.db import open_database

    _prepare(config, quiet=True)
    open_database(config.db_path, busy_timeout_seconds=config.busy_timeout_seconds)


def _token_add(config: Config, args: argparse.Namespace) -> int:
    from hub.services.tokens import TokenService

    _open(config)
    token = TokenService().add(args.name, args.role)
    _say(f"token {args.name!r} (role {args.role}); it is shown only now:", sys.stderr)
    _say(token)
    return 0


def _token_list(config: Config, args: argparse.Namespace) -> int:
    from hub.services.tokens import TokenService

    _open(config)
    for item in TokenService().list():
        _say(f"{item['name']}\t{item['role']}\t{item['created_at']}")
    return 0


def _token_revoke(config: Config, args: argparse.Namespace) -> int:
    from hub.services.tokens import TokenService

    _open(config)
    TokenService().revoke(args.name)
    _say(f"token {args.name!r} revoked")
    return 0


def _project_add(config: Config, args: argparse.Namespace) -> int:
    from hub.services.projects import ProjectService

    _open(config)
    projects = ProjectService()
    added = projects.add(args.label, args.name, args.board_id, args.board_type)
    _say(f"project {added['label']!r} added; base JQL: {projects.base_jql()}")
    return 0


def _project_list(config: Config, args: argparse.Namespace) -> int:
    from hub.services.projects import ProjectService

    _open(config)
    projects = ProjectService()
    for p in projects.list():
        board = f"{p['board_type']} board {p['board_id']}" if p["board_id"] is not None else "no board"
        _say(f"{p['label']}\t{p['name']}\t{board}")
    _say(f"base JQL: {projects.base_jql() or '(none: add a project)'}")
    return 0


def _project_remove(config: Config, args: argparse.Namespace) -> int:
    from hub.services.projects import ProjectService

    _open(config)
    projects = ProjectService()
    projects.remove(args.label)
    _say(f"project {args.label!r} removed; base JQL: {projects.base_jql() or '(none)'}")
    return 0


def _scope_set(config: Config, args: argparse.Namespace) -> int:
    from hub.services.projects import ProjectService

    _open(config)
    projects = ProjectService()
    projects.set_scope(args.jql)
    _say(f"scope set; base JQL: {projects.base_jql() or '(none: add a project)'}")
    return 0


def _cleanup(config: Config, args: argparse.Namespace) -> int:
    from hub.services.cleanup import CleanupService

    _open(config)
    report = CleanupService.from_config(config).run(dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    for rule, items in report.removed.items():
        if items:
            _say(f"{rule}: {len(items)} files, {sum(size for _, size in items)} bytes")
    _say(f"{verb} {report.files} files, {report.bytes} bytes; "
         f"{report.kept_bytes} bytes kept (quota {config.files_quota_bytes})")
    return 0


def _first_admin_token(config: Config) -> None:
    """On a hub with no tokens: make one admin token, print it once, keep it in a 0600 file."""
    from hub.datadir import PRIVATE_FILE_MODE
    from hub.services.tokens import TokenService

    token = TokenService().create_first_admin()
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
    if result.old_version is None:
        return f"created {config.db_path} at schema v{result.new_version}"
    if not result.changed:
        return f"{config.db_path} is at schema v{result.new_version}; nothing to migrate"
    return (
        f"migrated {config.db_path}: schema v{result.old_version} → v{result.new_version}; "
        f"backup {result.backup}"
    )


def _migrate(config: Config, args: argparse.Namespace) -> int:
    _prepare(config)
    return 0


def _serve(config: Config, args: argparse.Namespace) -> int:
    import waitress

    from hub.assembly import build_app
    from hub.server import files_needed, raise_open_files_limit, waitress_settings
    from hub.services.files import FileStore

    _prepare(config)
    removed = FileStore(config.files_dir).remove_leftovers()
    if removed:
        log.info("removed %d upload leftovers from %s", len(removed), config.files_dir / ".tmp")
    raise_open_files_limit(files_needed(config))
    app = build_app(config)
    try:
        server = waitress.create_server(app, **waitress_settings(config))
    except OSError as exc:
        _say(f"hub: cannot listen on {config.host}:{config.port}: {exc.strerror or exc}"
             " (set HUB_HOST / HUB_PORT)", sys.stderr)
        return 1
    _first_admin_token(config)
    consumer = None
    if not args.no_worker:
        from hub.assembly import build_worker
        from worker.consumer import start_in_process
        from worker.tasks import catch_up

        queue = build_worker(config)
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
    from hub.assembly import build_worker
    from worker.consumer import run_forever
    from worker.tasks import catch_up

    _prepare(config, quiet=True)
    queue = build_worker(config)
    catch_up()
    run_forever(queue)
    return 0


def _raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
