"""``hub backup`` while the hub serves, and ``hub restore`` of what it wrote."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

import pytest

from hub.config import Config
from hub.db import open_database
from hub.migrations import CURRENT_VERSION
from tests.support import (
    Client,
    created_hub,
    get_json,
    prepared_hub,
    run_hub,
    run_script,
    start,
    stop,
    wait_for_line,
    wait_until,
)
from tests.support.hubs import built_services

AGENTS = 8
PAGE = 10  # issues per state page; each page is committed whole
COMMENTS = 2  # per issue


def content(aid: str) -> bytes:
    return f"the content of attachment {aid}\n".encode() * 500


def page_issues(agent: int, page: int) -> list[dict]:
    # Jira's shapes: numeric ids, unique per agent, page and issue.
    return [{"key": f"A{agent}-{page * PAGE + i + 1}", "id": f"{agent + 1}{page:05d}{i:02d}", "summary": "s",
             "comments": [{"id": f"{agent + 1}{page:05d}{i:02d}{c:02d}", "body": "b"} for c in range(COMMENTS)],
             "attachments": [{"id": f"{agent + 1}{page:05d}{i:02d}", "filename": "f.txt"}]}
            for i in range(PAGE)]


def fetch_and_upload(client: Client, aid: str) -> None:
    """Ask for an attachment, then, as an agent, claim a fetch and upload its content."""
    status, asked = client.json("POST", f"/api/v1/attachments/{aid}/fetch", "interface")
    assert status in (200, 201), asked
    # One fetcher for every agent: the token may register only HUB_AGENTS_PER_TOKEN agent ids.
    status, claimed = client.json("POST", "/agent/v1/claim", "agent",
                                  {"agent_id": "fetcher", "version": 14, "types": ["fetch_attachment"]})
    for command in claimed["commands"]:
        wanted = command["params"]["attachment_id"]
        status, stored = client.put_file(command["id"], content(wanted))
        assert status == 200, stored
        status, body = client.json("POST", f"/agent/v1/commands/{command['id']}/done", "agent",
                                   {"result": stored})
        assert status == 200, body


def agent_loop(client: Client, n: int, stop_after: threading.Event, pages: list[int],
               errors: list[BaseException]) -> None:
    """Refresh after refresh: enqueue, claim, one state page, done; every third
    page also fetches an attachment of it, so files arrive during the backup too."""
    page = 0
    try:
        while not stop_after.is_set() or page < 2:
            status, command = client.json("POST", "/api/v1/commands", "interface",
                                          {"type": "refresh", "params": {"jql": f"key = A{n}-{page}"}})
            assert status == 201, command
            status, claimed = client.json("POST", "/agent/v1/claim", "agent",
                                          {"agent_id": f"agent-{n}", "version": 14, "types": ["refresh"]})
            for got in claimed["commands"]:
                status, body = client.json("POST", f"/agent/v1/commands/{got['id']}/state", "agent",
                                           {"issues": page_issues(n, page)})
                assert status == 200, body
                status, body = client.json("POST", f"/agent/v1/commands/{got['id']}/done", "agent",
                                           {"result": {"total": PAGE}})
                assert status == 200, body
                if page % 3 == 0:
                    fetch_and_upload(client, f"{n + 1}{page:05d}00")
                page += 1
                pages[n] = page
    except BaseException as exc:  # reported by the test
        errors.append(exc)


def counts(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        # The search index's own tables hold b-tree segments, not rows: their counts go up and
        # down as it merges; check_restored checks the index against the text instead.
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " AND name NOT LIKE 'issue_fts%'")]
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        conn.close()


def check_restored(data_dir: Path, whole_pages: bool = False) -> dict[str, int]:
    """The restored hub checks out: SQLite's integrity check, every file its
    attachment_file rows name, with its sha256, and (``whole_pages``) the rows of
    whole state pages only, as of one committed moment."""
    db = data_dir / "hub.sqlite"
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        conn.execute("INSERT INTO issue_fts (issue_fts, rank) VALUES ('integrity-check', 1)")  # raises if not
        issues = conn.execute("SELECT count(*) FROM issue").fetchone()[0]
        if whole_pages:
            assert issues % PAGE == 0, "a state page was half in the backup"
            assert conn.execute("SELECT count(*) FROM issue_comment").fetchone()[0] == issues * COMMENTS
            assert conn.execute("SELECT count(*) FROM issue_attachment").fetchone()[0] == issues
        # Each claimed refresh has its run: both are written in one transaction.
        assert conn.execute("SELECT count(*) FROM command c LEFT JOIN sync_run r ON r.command_id = c.id"
                            " WHERE c.type = 'refresh' AND c.status IN ('claimed', 'done')"
                            " AND r.id IS NULL").fetchone()[0] == 0
        named = conn.execute("SELECT attachment_id, file, size FROM attachment_file").fetchall()
    finally:
        conn.close()
    for aid, name, size in named:
        stored = (data_dir / "files" / name).read_bytes()
        assert hashlib.sha256(stored).hexdigest() == name and len(stored) == size
        assert stored == content(aid)
    assert ((data_dir / "files").stat().st_mode & 0o777) == 0o700
    return counts(db)


def test_a_backup_taken_while_8_agents_load_pages_restores_to_a_hub_that_checks_out(tmp_path):
    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir)
    server = start("serve", "--no-worker", data_dir=data_dir)
    try:
        url = wait_for_line(server, r"serving on (http://\S+)").group(1)
        client = Client(url, agent, interface)
        backed_up, errors, pages = threading.Event(), [], [0] * AGENTS
        threads = [threading.Thread(target=agent_loop, args=(client, n, backed_up, pages, errors))
                   for n in range(AGENTS)]
        for thread in threads:
            thread.start()
        try:
            wait_until(lambda: all(pages) or errors, timeout=120, message="every agent loading")
            before = sum(pages)
            made = run_script("backup", str(tmp_path / "backup"), data_dir=data_dir)
            during = sum(pages)
            wait_until(lambda: sum(pages) > during or errors, timeout=120, message="pages after the backup")
        finally:
            backed_up.set()
            for thread in threads:
                thread.join(timeout=120)
        assert errors == []
        assert made.returncode == 0, made.stderr
        assert sum(pages) > during >= before > 0  # the agents loaded before, during and after it
    finally:
        assert stop(server) == 0
    live = counts(data_dir / "hub.sqlite")

    backup = tmp_path / "backup"
    manifest = json.loads((backup / "manifest.json").read_text())
    assert manifest["schema_version"] == CURRENT_VERSION and manifest["missing"] == [] and manifest["files"]
    assert {p.name for p in backup.iterdir()} == {"manifest.json", "hub.sqlite", "files"}  # no -wal, -shm
    assert {p.name for p in (backup / "files").iterdir()} == {f["sha256"] for f in manifest["files"]}
    for path in (backup, backup / "files"):
        assert (path.stat().st_mode & 0o777) == 0o700
    for path in [backup / "manifest.json", backup / "hub.sqlite", *(backup / "files").iterdir()]:
        assert (path.stat().st_mode & 0o777) == 0o600

    restored_dir = tmp_path / "restored"
    restored = run_script("restore", str(backup), data_dir=restored_dir)
    assert restored.returncode == 0, restored.stderr
    restored_counts = check_restored(restored_dir, whole_pages=True)
    assert 0 < restored_counts["issue"] < live["issue"]
    assert all(restored_counts[t] <= live[t] for t in live)

    server = start("serve", "--no-worker", data_dir=restored_dir)
    try:
        url = wait_for_line(server, r"serving on (http://\S+)").group(1)
        assert get_json(url + "/healthz")["status"] == "ok"
        # The tokens are in the database: the restored hub knows its clients.
        status, listed = Client(url, agent, interface).json("GET", "/api/v1/issues?limit=1", "interface")
        assert status == 200 and listed["items"]
    finally:
        assert stop(server) == 0


def test_a_hub_without_files_backs_up_and_restores(tmp_path):
    data_dir = created_hub(tmp_path / "data")
    token = run_hub("token", "add", "ui", "--role", "interface", data_dir=data_dir).stdout.strip()
    made = run_hub("backup", str(tmp_path / "b"), data_dir=data_dir)
    assert made.returncode == 0, made.stderr
    assert "0 files 0 bytes" in made.stdout
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["files"] == [] and manifest["hub_version"] and manifest["created_at"]
    assert manifest["database"]["sha256"] == hashlib.sha256((tmp_path / "b" / "hub.sqlite").read_bytes()).hexdigest()

    restored = run_hub("restore", str(tmp_path / "b"), data_dir=tmp_path / "r")
    assert restored.returncode == 0, restored.stderr
    check_restored(tmp_path / "r")
    listed = run_hub("token", "list", data_dir=tmp_path / "r")  # its hash came along
    assert listed.stdout.startswith("ui\tinterface") and token not in listed.stdout


def test_backup_and_restore_refuse_a_directory_that_is_not_empty(tmp_path):
    data_dir = created_hub(tmp_path / "data")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "something").write_text("kept")

    refused = run_hub("backup", str(tmp_path / "full"), data_dir=data_dir)
    assert refused.returncode == 2
    assert "is not empty; nothing was written into it" in refused.stderr
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["something"]

    assert run_hub("backup", str(tmp_path / "b"), data_dir=data_dir).returncode == 0
    again = run_hub("restore", str(tmp_path / "b"), data_dir=data_dir)
    assert again.returncode == 2
    assert f"the data dir to restore into (HUB_DATA_DIR) {data_dir} is not empty" in again.stderr
    assert "Traceback" not in again.stderr


def test_a_backup_of_a_missing_hub_is_refused(tmp_path):
    refused = run_hub("backup", str(tmp_path / "b"), data_dir=tmp_path / "nothing")
    assert refused.returncode == 2 and "no hub at" in refused.stderr
    assert not (tmp_path / "b").exists() and not (tmp_path / "nothing").exists()


@pytest.fixture
def backup_with_a_file(tmp_path, make_hub):
    from tests.support import fetched, listed

    hub = make_hub()
    listed(hub, {"id": "7", "filename": "a.pdf"})
    sha = fetched(hub, "7", content("7"))
    assert run_hub("backup", str(tmp_path / "b"), data_dir=hub.config.data_dir).returncode == 0
    return tmp_path / "b", sha


def damage(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("what", ["file", "database", "manifest", "no manifest", "file gone"])
def test_restore_finds_a_damaged_backup_and_writes_nothing(tmp_path, backup_with_a_file, what):
    backup, sha = backup_with_a_file
    if what == "file":
        damage(backup / "files" / sha)
    elif what == "database":
        damage(backup / "hub.sqlite")
    elif what == "manifest":
        manifest = json.loads((backup / "manifest.json").read_text())
        manifest["files"][0]["sha256"] = "../../etc/passwd"
        (backup / "manifest.json").write_text(json.dumps(manifest))
    elif what == "no manifest":
        (backup / "manifest.json").unlink()
    else:
        (backup / "files" / sha).unlink()

    result = run_hub("restore", str(backup), data_dir=tmp_path / "r")

    assert result.returncode == 1, result.stdout
    expected = {"file": f"files/{sha} is damaged", "database": "does not match the manifest",
                "manifest": "manifest.json is damaged", "no manifest": "is not a backup",
                "file gone": f"files/{sha} is missing"}[what]
    assert expected in result.stderr and "Traceback" not in result.stderr
    if what not in ("manifest", "no manifest"):
        assert "nothing was restored" in result.stderr
    assert not (tmp_path / "r").exists()


def test_restore_into_an_empty_data_dir_keeps_it_and_makes_it_private(tmp_path, backup_with_a_file):
    backup, sha = backup_with_a_file
    (tmp_path / "r").mkdir(mode=0o755)
    assert run_hub("restore", str(backup), data_dir=tmp_path / "r").returncode == 0
    assert ((tmp_path / "r").stat().st_mode & 0o777) == 0o700
    check_restored(tmp_path / "r")
    assert ((tmp_path / "r" / "files" / sha).stat().st_mode & 0o777) == 0o600


def test_a_file_cleanup_removed_is_listed_as_missing_and_restores_as_state_none(tmp_path, make_hub):
    from tests.support import fetched, listed

    hub = make_hub()
    listed(hub, {"id": "7", "filename": "a.pdf"}, {"id": "8", "filename": "b.pdf"})
    gone = fetched(hub, "7", content("7"))
    kept = fetched(hub, "8", content("8"))
    # What cleanup does between the database snapshot and the files' copy: the
    # row stays, the file goes.
    (hub.config.files_dir / gone).unlink()

    made = run_hub("backup", "--copy", str(tmp_path / "b"), data_dir=hub.config.data_dir)
    assert made.returncode == 0 and "1 files named by the database were gone" in made.stderr
    assert "(0 hard-linked, 1 copied)" in made.stdout
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["missing"] == [gone] and [f["sha256"] for f in manifest["files"]] == [kept]

    assert run_hub("restore", str(tmp_path / "b"), data_dir=tmp_path / "r").returncode == 0
    open_database(tmp_path / "r" / "hub.sqlite")
    attachments = built_services(Config(data_dir=tmp_path / "r")).attachments
    assert {s["attachment_id"]: s["state"] for s in attachments.states(["7", "8"])} == {
        "7": "none", "8": "ready"}


def test_the_upload_of_a_write_still_to_be_sent_to_jira_is_backed_up_and_restored(tmp_path, make_hub):
    import hashlib
    import io

    from hub.services.access.tokens import Principal
    from hub.services.writes.service import Upload, WriteService
    from tests.support.protocol import issue, load

    hub = make_hub()
    load(hub, [issue("X-1")])
    data = b"a screenshot" * 100
    sha, size = hub.built.services.store.receive(io.BytesIO(data), length=len(data), max_bytes=10**6,
                                                 expected_sha256=None)
    assert sha == hashlib.sha256(data).hexdigest()
    WriteService(hub.built.services.commands, hub.clock).request(
        "attach", "X-1", {"filename": "shot.png", "size": size, "mime_type": "image/png"},
        Principal(None, "alice", "interface"),  # type: ignore[arg-type]
        upload=Upload(sha, size, "shot.png", "image/png"))

    assert run_hub("backup", str(tmp_path / "b"), data_dir=hub.config.data_dir).returncode == 0
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert [f["sha256"] for f in manifest["files"]] == [sha]
    assert run_hub("restore", str(tmp_path / "b"), data_dir=tmp_path / "r").returncode == 0
    assert (tmp_path / "r" / "files" / sha).read_bytes() == data


def test_a_store_file_that_no_longer_matches_its_name_is_left_out_and_said(tmp_path, make_hub):
    from tests.support import fetched, listed

    hub = make_hub()
    listed(hub, {"id": "7", "filename": "a.pdf"})
    sha = fetched(hub, "7", content("7"))
    (hub.config.files_dir / sha).write_bytes(b"rotten")

    made = run_hub("backup", str(tmp_path / "b"), data_dir=hub.config.data_dir)

    assert made.returncode == 0 and "1 did not match their sha256" in made.stderr
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["missing"] == [sha] and manifest["files"] == []
    assert list((tmp_path / "b" / "files").iterdir()) == []
    assert (hub.config.files_dir / sha).read_bytes() == b"rotten"  # the store is left alone


def test_a_restore_killed_midway_is_redone(tmp_path, backup_with_a_file):
    backup, _ = backup_with_a_file
    (tmp_path / "r" / ".restoring" / "files").mkdir(parents=True)  # what a killed restore leaves
    assert run_hub("restore", str(backup), data_dir=tmp_path / "r").returncode == 0
    check_restored(tmp_path / "r")
    assert not (tmp_path / "r" / ".restoring").exists()
