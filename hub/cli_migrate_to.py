"""``hub migrate-to``: the console command that moves a SQLite hub onto PostgreSQL.

Kept beside :mod:`hub.cli` (which registers it) so that the command's options and
what it prints are read in one place; the move itself is
:class:`hub.services.operations.migrate_to.HubMove`. Exit status as for every ``hub`` command:
2 when the move cannot start (nothing written), 1 when it failed midway.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable

from hub.config import VARIABLES, Config, ConfigError
from hub.services.operations.pg_tools import where

BATCH_ROWS = 5000


def add_migrate_to(commands, command: Callable[..., argparse.ArgumentParser],
                   say: Callable[..., None]) -> None:
    """Register ``hub migrate-to`` with ``command`` (the CLI's subcommand maker); it prints with ``say``."""
    move = command(commands, "migrate-to",
                   "copy this SQLite hub (HUB_DATA_DIR) into an empty PostgreSQL database, and its files "
                   "into the store HUB_STORE_URL names; stop the hub first",
                   "HUB_DATA_DIR=/var/lib/sdlc-hub HUB_DATABASE_URL=postgresql://hub:secret@db/hub "
                   "hub migrate-to --dry-run")
    move.description = (
        "Copy this SQLite hub (HUB_DATA_DIR/hub.sqlite) into an empty PostgreSQL database, and its files\n"
        "into the store HUB_STORE_URL names. Stop the hub first: what it writes meanwhile is not moved.\n"
        "Everything is checked first (--dry-run stops there); then the files are copied, then every table\n"
        "in one transaction, and the counts compared. hub.sqlite and files/ are left as they were.\n"
        "See docs/operations.md, 'Moving a hub onto PostgreSQL and S3'.")
    move.add_argument("--database-url", metavar="URL",
                      help="the empty database to move into (default: HUB_DATABASE_URL); "
                      "a password is better given in HUB_DATABASE_URL or ~/.pgpass than here")
    move.add_argument("--store-url", metavar="URL",
                      help="the store to copy the files into, s3://bucket/prefix (default: HUB_STORE_URL; "
                      "unset: the files stay in HUB_DATA_DIR/files)")
    only = move.add_mutually_exclusive_group()
    only.add_argument("--dry-run", action="store_true",
                      help="check the source and the target and print what would be copied; write nothing")
    only.add_argument("--files-only", action="store_true",
                      help="check, then copy only the files into the store (the hub may serve meanwhile): "
                      "the move itself then copies only those that came since")
    move.add_argument("--batch-rows", type=int, default=BATCH_ROWS, metavar="N",
                      help=f"rows read from SQLite per batch (default {BATCH_ROWS})")
    move.set_defaults(handler=lambda config, args: migrate_to(config, args, say))


def migrate_to(config: Config, args: argparse.Namespace, say: Callable[..., None]) -> int:
    """Run ``hub migrate-to`` as ``args`` say; its exit status."""
    from hub.assembly import open_store
    from hub.services.operations.migrate_to import HubMove

    parsers = {var.name: var.parse for var in VARIABLES}
    try:
        # The flags are read as the variables they stand for are.
        url = str(parsers["HUB_DATABASE_URL"]("--database-url", args.database_url)) \
            if args.database_url else config.database_url
        store_url = str(parsers["HUB_STORE_URL"]("--store-url", args.store_url)) \
            if args.store_url else config.store_url
    except ConfigError as exc:
        say(f"hub: {exc}", sys.stderr)
        return 2
    if not url:
        say("hub migrate-to: name the PostgreSQL database to move into: --database-url or HUB_DATABASE_URL",
            sys.stderr)
        return 2
    if args.batch_rows < 1:
        say("hub migrate-to: --batch-rows must be at least 1", sys.stderr)
        return 2
    # From files/ of the data dir into the store named, if one is.
    source = open_store(dataclasses.replace(config, store_url=None))
    target = open_store(dataclasses.replace(config, store_url=store_url)) if store_url else None
    move = HubMove(config.db_path, url, source, store=target, store_name=store_url,
                   batch_rows=args.batch_rows, say=say)
    moving = f"{config.db_path} onto {where(url)}" + (f" and {store_url}" if store_url else "")
    if args.dry_run:
        plan = move.dry_run()
        say(f"dry run: would move {moving} (schema v{plan.schema_version})")
        if plan.create_schema:
            say(f"schema: would be created at v{plan.schema_version}")
        for table in plan.tables:
            say(f"{table.name}: {table.rows} rows")
        files = sum(size for _, size in plan.files)
        kept = f"copied into {store_url}" if store_url else f"left in {config.files_dir}"
        say(f"files: {len(plan.files)} files, {files} bytes, would be {kept}")
        _missing_files(plan.missing_files, say)
        say(f"dry run: {len(plan.tables)} tables, {plan.rows} rows; nothing was written")
        return 0
    if args.files_only:
        if target is None:
            say("hub migrate-to: --files-only copies the files into a store: name one with --store-url "
                "or HUB_STORE_URL", sys.stderr)
            return 2
        say(f"copying the files of {config.db_path} into {store_url}")
        plan = move.files_only()
        _missing_files(plan.missing_files, say)
        say("files copied; the database was not written: stop the hub, then run 'hub migrate-to' "
            "without --files-only")
        return 0
    say(f"moving {moving}")
    plan = move.run()
    _missing_files(plan.missing_files, say)
    store = f" HUB_STORE_URL={store_url}" if store_url else ""
    say(f"moved: start the hub with HUB_DATABASE_URL={where(url)}{store} (and its password); "
        f"{config.db_path} is left as it was")
    return 0


def _missing_files(names: list[str], say: Callable[..., None]) -> None:
    if names:
        say(f"hub: {len(names)} files named by the database are gone from files/ (cleanup); those "
            "attachments show state none on PostgreSQL as they do now (fetch them again)", sys.stderr)
