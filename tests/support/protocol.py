"""A hub's agents and interfaces in a few words, in process: what a test enqueues, claims,
reports and loads through the app's test client, and the rows it reads back."""

from __future__ import annotations

import hashlib
import sqlite3
import zlib
from pathlib import Path

from hub.clock import Clock, iso
from hub.config import Config
from hub.models import Project, Setting
from tests.support import engine_rows

BASE = 'project = AURORA AND labels in ("AWPCA")'


def issue(key: str, **fields) -> dict:
    return {"key": key, "id": jira_id(key), "summary": f"Summary {key}", **fields}


def jira_id(key: str) -> str:
    """A Jira id for a key, the same on every call: an issue's number in AURORA, and
    numbers of their own in other projects (an issue is its id, so two keys must not share one)."""
    project, number = key.rsplit("-", 1)
    if project == "AURORA":
        return number
    return str((zlib.crc32(project.encode()) % 900 + 100) * 10**9 + int(number))


def with_projects():
    (Setting.insert(key="jql_scope", value="project = AURORA")
     .on_conflict(conflict_target=[Setting.key], preserve=[Setting.value]).execute())
    Project.create(label="AWPCA", name="АРМ КА", created_at=iso(Clock().now()))


def enqueue(hub, jql: str | None = None) -> dict:
    body = {"type": "refresh", "params": {"jql": jql}} if jql else {"type": "refresh"}
    resp = hub.api("POST", "/api/v1/commands", body)
    assert resp.status_code == 201, resp.json
    return resp.json


def claim(hub, agent_id="agent-1", version=14, **extra) -> list[dict]:
    resp = hub.agent("POST", "/agent/v1/claim", {"agent_id": agent_id, "version": version, **extra})
    assert resp.status_code == 200, resp.json
    return resp.json["commands"]


def report(hub, command_id: int, what: str, body: dict):
    return hub.agent("POST", f"/agent/v1/commands/{command_id}/{what}", body)


def db_rows(hub, sql: str, *args) -> list[tuple]:
    """The rows of ``sql`` (written with ``?``) on the hub's database, whichever engine."""
    return engine_rows.rows(hub.config, sql, *args)


def hub_config(data_dir: Path, database_url: str | None = None) -> Config:
    """The settings naming a hub's database as its processes find it: ``data_dir`` (its
    hub.sqlite), or the PostgreSQL database ``database_url`` names."""
    return Config(data_dir=data_dir, database_url=database_url)


def db_records(config: Config, sql: str, *args) -> list[dict]:
    """The rows of ``sql`` (written with ``?``) on ``config``'s database, each as a dict by
    column name, as another process reads them."""
    if config.database_url:
        import psycopg
        from psycopg.rows import dict_row

        from hub.db import qmark_to_format

        with psycopg.connect(config.database_url, autocommit=True, row_factory=dict_row) as conn:
            return list(conn.execute(qmark_to_format(sql), args).fetchall())
    conn = sqlite3.connect(f"file:{config.db_path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in conn.execute(sql, args)]
    finally:
        conn.close()


def load(hub, issues, neighbors=(), jql="key in (X, Y, Z)", version=14, done=True, catalogues=None):
    """One refresh by an agent: claim, one state page (with ``catalogues`` if given), done."""
    command = enqueue(hub, jql)
    claim(hub, version=version)
    body = {"issues": list(issues), "neighbors": list(neighbors)}
    if catalogues is not None:
        body["catalogues"] = catalogues
    resp = report(hub, command["id"], "state", body)
    assert resp.status_code == 200, resp.json
    if done:
        assert report(hub, command["id"], "done", {"result": {"total": len(issues)}}).status_code == 200
    return command


def comment(cid: str, body: str = "text") -> dict:
    return {"id": cid, "author": "ivanov", "created": "2026-10-22T13:05:11.000+0300",
            "updated": "2026-10-22T13:05:11.000+0300", "body": body}


def attachment(aid: str, filename: str, size: int = 10) -> dict:
    return {"id": aid, "filename": filename, "size": size, "mime_type": "application/pdf",
            "author": "ivanov", "created": "2026-10-22T13:05:11.000+0300"}


PDF = b"%PDF-1.7 " + bytes(range(256)) * 64


def listed(hub, *attachments_, key="X-1"):
    load(hub, [issue(key, attachments=list(attachments_))])


def fetch(hub, aid: str):
    return hub.api("POST", f"/api/v1/attachments/{aid}/fetch")


def upload(hub, command_id: int, content: bytes, sha: str | None = "auto", **params):
    headers = hub.headers("agent")
    if sha == "auto":
        sha = hashlib.sha256(content).hexdigest()
    if sha is not None:
        headers["X-Content-SHA256"] = sha
    return hub.client.simulate_put(f"/agent/v1/commands/{command_id}/file", body=content,
                                   headers=headers, params=params or None)


def fetched(hub, aid: str, content: bytes = PDF) -> str:
    """Request, claim, upload and finish one fetch; returns the sha256."""
    command = fetch(hub, aid).json["command"]
    [claimed] = claim(hub, types=["fetch_attachment"])
    assert claimed["id"] == command["id"] and claimed["params"] == {"attachment_id": aid}
    stored = upload(hub, command["id"], content, delivery=claimed["deliveries"])
    assert stored.status_code == 200, stored.json
    done = report(hub, command["id"], "done", {"result": stored.json, "delivery": 1})
    assert done.status_code == 200, done.json
    return stored.json["sha256"]


def mirrored(hub):
    """One full run: X-1..X-3 match the base JQL, Y-1 is a neighbour."""
    with_projects()
    change = {"id": "5001", "author": "ivanov", "created": "2026-10-22T13:05:11.000+0300",
              "items": [{"field": "status", "from": "1", "from_string": "Open", "to": "3",
                         "to_string": "In Progress"}]}
    load(hub, [
        issue("X-1", status="Open", assignee="ivanov", labels=["AWPCA"], description="h1. one",
              links=[{"type": "Blocks", "outward": "X-2"}, {"type": "Relates", "inward": "X-3"}],
              comments=[comment("102", "second"), comment("101", "first")], changes=[change]),
        issue("X-2", status="Done", assignee="petrov", labels=["KPI"], epic_key="X-9",
              links=[{"type": "Cloners", "outward": "X-1"}]),
        issue("X-3", status="Open", labels=["AWPCA", "KPI"]),
    ], neighbors=[issue("Y-1")], jql=BASE)
