"""The v14 → v15 step (writes to Jira) on a deployed database of each engine: what was there stays,
what it adds is empty, and its indexes are there to keep a token's idempotency keys apart."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hub.migrations import migrate
from tests.support.dbfactory import T0, make_db, schema_version, table_rows

V15_INDEXES = {
    "command_serial": "CREATE INDEX command_serial ON command (serial_key, id) WHERE serial_key IS NOT NULL",
    "write_idempotency": "CREATE UNIQUE INDEX write_idempotency ON write (token_id, idempotency_key) "
                         "WHERE idempotency_key IS NOT NULL",
    "write_key": "CREATE INDEX write_key ON write (key, id)",
    "write_command": "CREATE INDEX write_command ON write (command_id)",
    "write_status": "CREATE INDEX write_status ON write (status, id)",
}
WRITE = ("INSERT INTO write (op, key, params, token_id, requested_by, idempotency_key, status, created_at,"
         " updated_at) VALUES ('comment', 'AURORA-12', '{{}}', {token}, 'alice', {idempotency}, 'pending', '{t}',"
         " '{t}')")


def write_row(token: int, idempotency: str | None) -> str:
    """The SQL of one pending comment by token ``token`` under ``idempotency`` (NULL when None)."""
    return WRITE.format(token=token, idempotency="NULL" if idempotency is None else f"'{idempotency}'", t=T0)


def test_a_v14_database_keeps_its_tokens_and_commands_and_gains_empty_writes(tmp_path: Path):
    db = make_db(tmp_path / "hub.sqlite", 14)
    tokens, commands = table_rows(db, "token"), table_rows(db, "command")
    assert tokens and commands

    result = migrate(db, tmp_path / "backups")

    assert (result.old_version, result.new_version, result.applied) == (14, 15, ("v15_writes",))
    assert schema_version(db) == 15
    # Every old row as it was, with the new column's value last: no token may write, no command waits
    # its turn behind another.
    assert table_rows(db, "token") == [(*row, 0) for row in tokens]
    assert table_rows(db, "command") == [(*row, None) for row in commands]
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT count(*) FROM issue WHERE transitions IS NOT NULL"
                            " OR edit_fields IS NOT NULL").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM write").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM create_meta").fetchone() == (0,)
        indexes = {name: " ".join(sql.split()) for name, sql in conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index'") if name in V15_INDEXES}
        assert indexes == V15_INDEXES
        # A token's Idempotency-Key names one write; without a key, or with another token, any number.
        conn.execute(write_row(1, "k-1"))
        conn.execute(write_row(2, "k-1"))
        conn.execute(write_row(1, None))
        conn.execute(write_row(1, None))
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            conn.execute(write_row(1, "k-1"))
        # One create screen per project and issue type.
        conn.execute("INSERT INTO create_meta (project, issue_type, updated_at) VALUES ('AURORA', 'Bug', ?)", (T0,))
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            conn.execute("INSERT INTO create_meta (project, issue_type, updated_at) VALUES ('AURORA', 'Bug', ?)",
                         (T0,))
    finally:
        conn.close()


def test_a_v14_postgresql_database_keeps_its_tokens_and_commands_and_gains_empty_writes(postgres_template):
    import psycopg

    from hub.migrations.postgres import STEPS, migrate_postgres

    server, _ = postgres_template
    name = server.create_database(prefix="hub_v14")
    try:
        url = server.url(name)
        assert migrate_postgres(url, steps=STEPS[:1]).new_version == 14
        with psycopg.connect(url) as conn:
            conn.execute("INSERT INTO token (name, role, sha256, created_at) VALUES"
                         " ('agent-1', 'agent', %s, %s), ('alice', 'interface', %s, %s)",
                         ("a" * 64, T0, "b" * 64, T0))
            conn.execute("INSERT INTO command (type, params, status, created_at, deliveries) VALUES"
                         " ('refresh', '{}', 'done', %s, 1), ('refresh', '{}', 'queued', %s, 0)", (T0, T0))
        tokens = server.execute("SELECT * FROM token ORDER BY id", name)
        commands = server.execute("SELECT * FROM command ORDER BY id", name)

        result = migrate_postgres(url)

        assert (result.old_version, result.new_version, result.applied) == (14, 15, ("v15_writes",))
        assert server.execute("SELECT value FROM setting WHERE key = 'schema_version'", name) == [("15",)]
        assert server.execute("SELECT * FROM token ORDER BY id", name) == [(*row, 0) for row in tokens]
        assert server.execute("SELECT * FROM command ORDER BY id", name) == [(*row, None) for row in commands]
        assert server.execute("SELECT (SELECT count(*) FROM write), (SELECT count(*) FROM create_meta)",
                              name) == [(0, 0)]
        indexes = {index for (index,) in server.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()", name)}
        assert set(V15_INDEXES) <= indexes
        with psycopg.connect(url) as conn:
            conn.execute(write_row(1, "k-1"))
            conn.execute(write_row(2, "k-1"))
            conn.execute(write_row(1, None))
            conn.execute(write_row(1, None))
        with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(write_row(1, "k-1"))
    finally:
        server.drop_database(name)
