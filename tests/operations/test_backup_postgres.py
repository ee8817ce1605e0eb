"""``hub backup`` and ``hub restore`` of a hub on PostgreSQL: pg_dump's archive, the store's files."""

from __future__ import annotations

import hashlib
import io
import json
import os
import threading
from pathlib import Path

import pytest

from hub.assembly import open_store
from hub.migrations import CURRENT_VERSION
from tests.support import created_hub, run_hub, run_script, wait_until

pytestmark = pytest.mark.backends("postgresql")

CONTENT = b"%PDF-1.7 the attachment of AURORA-12\n" * 400
FETCHED = "2026-11-02T09:00:00+00:00"


def seed(url: str, store) -> str:
    """A few rows of every sort a backup must keep, and one stored file; its sha256."""
    import psycopg

    sha, size = store.receive(io.BytesIO(CONTENT), length=len(CONTENT), max_bytes=len(CONTENT))
    with psycopg.connect(url) as conn:
        conn.execute("INSERT INTO issue (key, id, summary, fetched_at) VALUES "
                     "('AURORA-12', '10012', 'Карточки', %s), ('AURORA-13', '10013', 'Cards', %s)",
                     (FETCHED, FETCHED))
        conn.execute("INSERT INTO issue_attachment (attachment_id, key, filename) VALUES "
                     "('10001', 'AURORA-12', 'a.pdf'), ('10002', 'AURORA-13', 'b.pdf')")
        conn.execute("INSERT INTO attachment_file VALUES ('10001', %s, %s, %s)", (sha, size, FETCHED))
        conn.execute("INSERT INTO issue_note (key, author, body, created_at, updated_at) "
                     "VALUES ('AURORA-12', 'ivanov', 'checked', %s, %s)", (FETCHED, FETCHED))
    return sha


def rows(url: str) -> dict[str, list[tuple]]:
    """Every table's rows, in order."""
    import psycopg

    with psycopg.connect(url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")]
        return {t: sorted(conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in tables}


@pytest.fixture
def pg_hub(make_hub, backend):
    hub = make_hub()
    sha = seed(hub.config.database_url, open_store(hub.config))
    return hub, sha


@pytest.fixture
def empty_database(postgres_template):
    server, _ = postgres_template
    name = server.create_database(prefix="hub_restore")
    yield server.url(name)
    server.drop_database(name)


def pg(hub, *args: str, data_dir: Path | None = None, url: str | None = None, **env: str):
    return run_hub(*args, data_dir=data_dir or hub.config.data_dir,
                   HUB_DATABASE_URL=url or hub.config.database_url, **env)


def test_a_postgresql_hub_backs_up_with_pg_dump_and_restores_into_an_empty_database(
        tmp_path, pg_hub, empty_database):
    hub, sha = pg_hub
    made = pg(hub, "backup", str(tmp_path / "b"))
    assert made.returncode == 0, made.stderr
    assert "hub.dump" in made.stdout and "1 files" in made.stdout and "hard-linked" in made.stdout
    assert "@" not in made.stdout  # no user, no password

    backup = tmp_path / "b"
    manifest = json.loads((backup / "manifest.json").read_text())
    assert manifest["engine"] == "postgresql" and manifest["files_in"] == "backup"
    assert manifest["database"]["path"] == "hub.dump" and manifest["database"]["format"] == "pg_dump custom"
    assert manifest["files"] == [{"sha256": sha, "size": len(CONTENT)}] and manifest["missing"] == []
    dump = (backup / "hub.dump").read_bytes()
    assert dump.startswith(b"PGDMP") and hashlib.sha256(dump).hexdigest() == manifest["database"]["sha256"]
    for path in (backup / "manifest.json", backup / "hub.dump", backup / "files" / sha):
        assert (path.stat().st_mode & 0o777) == 0o600

    restored_dir = tmp_path / "r"
    restored = pg(hub, "restore", str(backup), data_dir=restored_dir, url=empty_database)
    assert restored.returncode == 0, restored.stderr
    assert f"schema v{CURRENT_VERSION}" in restored.stdout and "1 files" in restored.stdout
    assert rows(empty_database) == rows(hub.config.database_url)
    assert (restored_dir / "files" / sha).read_bytes() == CONTENT
    assert ((restored_dir / "files").stat().st_mode & 0o777) == 0o700
    assert not (restored_dir / ".restoring").exists()
    # The tokens came along as their hashes (in the rows above): every client keeps its token.
    assert {r[1] for r in rows(empty_database)["token"]} >= {"test-agent", "test-interface", "test-admin"}


def test_restore_refuses_a_database_that_is_not_empty_and_touches_nothing(tmp_path, pg_hub):
    hub, _ = pg_hub
    assert pg(hub, "backup", str(tmp_path / "b")).returncode == 0
    before = rows(hub.config.database_url)
    refused = pg(hub, "restore", str(tmp_path / "b"), data_dir=tmp_path / "r")
    assert refused.returncode == 2, refused.stderr
    assert "is not empty: it has" in refused.stderr and "createdb" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert rows(hub.config.database_url) == before and not (tmp_path / "r").exists()


def test_a_damaged_archive_restores_nothing(tmp_path, pg_hub, empty_database):
    hub, _ = pg_hub
    assert pg(hub, "backup", str(tmp_path / "b")).returncode == 0
    dump = tmp_path / "b" / "hub.dump"
    data = bytearray(dump.read_bytes())
    data[len(data) // 2] ^= 0xFF
    dump.write_bytes(bytes(data))
    failed = pg(hub, "restore", str(tmp_path / "b"), data_dir=tmp_path / "r", url=empty_database)
    assert failed.returncode == 1 and "does not match the manifest" in failed.stderr
    assert rows(empty_database) == {}


def test_a_missing_pg_dump_is_said_before_anything_is_written(tmp_path, pg_hub):
    hub, _ = pg_hub
    (tmp_path / "nothing").mkdir()
    refused = pg(hub, "backup", str(tmp_path / "b"), HUB_PG_BINDIR=str(tmp_path / "nothing"))
    assert refused.returncode == 2, refused.stderr
    assert f"pg_dump was not found in HUB_PG_BINDIR ({tmp_path / 'nothing'})" in refused.stderr
    assert not (tmp_path / "b").exists()


def test_a_pg_dump_older_than_the_server_is_refused(tmp_path, pg_hub):
    hub, _ = pg_hub
    old = tmp_path / "pg11"
    old.mkdir()
    (old / "pg_dump").write_text("#!/bin/sh\necho 'pg_dump (PostgreSQL) 11.22'\n")
    os.chmod(old / "pg_dump", 0o755)
    refused = pg(hub, "backup", str(tmp_path / "b"), HUB_PG_BINDIR=str(old))
    assert refused.returncode == 2, refused.stderr
    assert "pg_dump must be version 15 or later" in refused.stderr and f"{old / 'pg_dump'} 11.22" in refused.stderr
    assert not (tmp_path / "b").exists()


def test_a_backup_of_one_engine_is_refused_by_the_other(tmp_path, pg_hub, empty_database):
    hub, _ = pg_hub
    assert pg(hub, "backup", str(tmp_path / "pg")).returncode == 0
    sqlite_hub = created_hub(tmp_path / "sqlite")
    assert run_hub("backup", str(tmp_path / "lite"), data_dir=sqlite_hub).returncode == 0

    into_sqlite = run_hub("restore", str(tmp_path / "pg"), data_dir=tmp_path / "r1")
    assert into_sqlite.returncode == 2 and "backup of a PostgreSQL hub" in into_sqlite.stderr
    into_pg = pg(hub, "restore", str(tmp_path / "lite"), data_dir=tmp_path / "r2", url=empty_database)
    assert into_pg.returncode == 2 and "backup of a SQLite hub" in into_pg.stderr
    assert "hub migrate-to" in into_pg.stderr
    assert rows(empty_database) == {}


def writer(url: str, store, stop: threading.Event, written: list[int], errors: list[BaseException]) -> None:
    """Issue after issue, each with its note in the same transaction; every third with a stored file."""
    import psycopg

    n = 100
    try:
        with psycopg.connect(url) as conn:
            while not stop.is_set() or written[0] < 3:
                n += 1
                content = f"the attachment of AURORA-{n}\n".encode() * 300
                sha = store.receive(io.BytesIO(content), length=len(content), max_bytes=len(content))[0] \
                    if n % 3 == 0 else None
                with conn.transaction():
                    conn.execute("INSERT INTO issue (key, id, fetched_at) VALUES (%s, %s, %s)",
                                 (f"AURORA-{n}", str(10000 + n), FETCHED))
                    conn.execute("INSERT INTO issue_note (key, author, body, created_at, updated_at) "
                                 "VALUES (%s, 'ivanov', 'n', %s, %s)", (f"AURORA-{n}", FETCHED, FETCHED))
                    if sha:
                        conn.execute("INSERT INTO attachment_file VALUES (%s, %s, %s, %s)",
                                     (str(n), sha, len(content), FETCHED))
                written[0] += 1
    except BaseException as exc:  # reported by the test
        errors.append(exc)


def test_a_backup_taken_while_the_hub_writes_holds_whole_transactions_of_one_moment(
        tmp_path, pg_hub, empty_database):
    hub, _ = pg_hub
    url = hub.config.database_url
    stop, written, errors = threading.Event(), [0], []
    thread = threading.Thread(target=writer, args=(url, open_store(hub.config), stop, written, errors))
    thread.start()
    try:
        wait_until(lambda: written[0] > 20 or errors, message="rows written")
        before = written[0]
        made = run_script("backup", str(tmp_path / "b"), data_dir=hub.config.data_dir, HUB_DATABASE_URL=url)
        during = written[0]
        wait_until(lambda: written[0] > during + 20 or errors, message="rows written after the backup")
    finally:
        stop.set()
        thread.join(timeout=60)
    assert errors == [] and made.returncode == 0, (errors, made.stderr)
    assert during > before  # the writer went on while pg_dump ran

    restored = pg(hub, "restore", str(tmp_path / "b"), data_dir=tmp_path / "r", url=empty_database)
    assert restored.returncode == 0, restored.stderr
    import psycopg

    with psycopg.connect(empty_database) as conn:
        [(issues, notes)] = conn.execute(
            "SELECT (SELECT count(*) FROM issue), (SELECT count(*) FROM issue_note)").fetchall()
        named = conn.execute("SELECT file, size FROM attachment_file").fetchall()
    live = rows(url)
    # Whole transactions (the seed's 2 issues hold 1 note; each written since, one), of one moment.
    assert issues - 2 == notes - 1 and before <= issues - 2 < len(live["issue"]) - 2
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert sorted(f["sha256"] for f in manifest["files"]) == sorted({name for name, _ in named})
    for name, size in named:  # every file the snapshot names, and no later one
        stored = (tmp_path / "r" / "files" / name).read_bytes()
        assert hashlib.sha256(stored).hexdigest() == name and len(stored) == size
    assert {p.name for p in (tmp_path / "r" / "files").iterdir()} == {name for name, _ in named}


def test_a_database_owner_restores_where_the_extensions_were_made_by_another_role(tmp_path, pg_hub,
                                                                                  postgres_template):
    # As on a managed service: the hub's role owns its database, and an administrator made the
    # extensions there beforehand; only the extension's owner may comment on it.
    hub, _ = pg_hub
    server, _ = postgres_template
    source = hub.config.database_url.rsplit("/", 1)[1]
    server.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm", source)
    assert pg(hub, "backup", str(tmp_path / "b")).returncode == 0
    role = f"hub_owner_{os.getpid()}"
    server.execute(f'CREATE ROLE "{role}" LOGIN')
    name = server.create_database(prefix="hub_owned")
    try:
        server.execute(f'ALTER DATABASE "{name}" OWNER TO "{role}"')
        server.execute("CREATE EXTENSION pg_trgm", name)
        url = server.url(name).replace("//hub@", f"//{role}@")

        restored = pg(hub, "restore", str(tmp_path / "b"), data_dir=tmp_path / "r", url=url)

        assert restored.returncode == 0, restored.stderr
        assert rows(server.url(name)) == rows(hub.config.database_url)
    finally:
        server.drop_database(name)
        server.execute(f'DROP ROLE "{role}"')
