"""Writes end to end: asked of a real hub through its write routes (the interface API), claimed by the reference agent
running its loop, applied to the fake Jira once, the issue's fresh state in the mirror, and the
write's outcome shown by the hub."""

from __future__ import annotations

import json
import urllib.request

import pytest

from agent.jira_writes import MARKER
from tests.support import added_tokens, looping_agent
from tests.support.engine_rows import rows

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def send(url: str, token: str, method: str, path: str, body: bytes | dict | None = None,
         content_type: str = "application/json") -> dict:
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    request = urllib.request.Request(url + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=60) as resp:
        return json.loads(resp.read())


def settled(url: str, token: str, write_id: int) -> dict:
    """The write once it is no longer pending or applying (long-polled, as interfaces wait)."""
    shown = send(url, token, "GET", f"/api/v1/writes/{write_id}")
    for _ in range(30):
        if shown["status"] not in ("pending", "applying"):
            return shown
        shown = send(url, token, "GET", f"/api/v1/writes/{write_id}?wait=5&known={shown['status']}")
    raise AssertionError(f"write {write_id} still {shown['status']}")


@pytest.fixture
def world(tmp_path, database_url):
    """A hub that mirrors AURORA-1 and AURORA-2, an admin token ``alice`` who may write, the fake
    Jira, and the reference agent looping."""
    with looping_agent(tmp_path / "data", database_url, "agent-writes") as (url, db, _ui, jira):
        [alice] = added_tokens(db, ("alice", "admin"))
        yield url, alice, jira, db


def test_a_comment_asked_of_the_hub_is_in_jira_once_and_in_the_mirror_when_the_write_shows_done(world):
    url, alice, jira, db = world
    asked = send(url, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "Looks good"})
    shown = settled(url, alice, asked["id"])
    [made] = jira.issues["AURORA-1"]["fields"]["comment"]["comments"]
    assert shown["status"] == "done" and shown["result"] == {"comment_id": made["id"]}
    assert made["body"] == "Looks good\n\n— alice, via sdlc-hub"
    assert jira.writes.comment_properties[made["id"]][MARKER] == {"write": asked["id"]}
    assert rows(db, "SELECT comment_id FROM issue_comment WHERE key = 'AURORA-1'") == [(made["id"],)]


def test_a_transition_from_a_status_jira_no_longer_shows_is_a_conflict_the_hub_shows(world):
    url, alice, jira, db = world
    jira.issues["AURORA-1"]["fields"]["status"] = {"name": "In Progress"}  # moved in Jira since the refresh
    asked = send(url, alice, "POST", "/api/v1/issues/AURORA-1/transitions", {"to": "Resolved",
                                                                              "fields": {"resolution": "Fixed"}})
    shown = settled(url, alice, asked["id"])
    assert shown["status"] == "conflict"
    assert shown["conflict"] == {"status": {"base": "Open", "jira": "In Progress"}}
    # The fresh state went to the mirror all the same: it now shows what Jira holds.
    assert rows(db, "SELECT status FROM issue WHERE key = 'AURORA-1'") == [("In Progress",)]


def test_an_upload_to_the_hub_is_attached_in_jira_by_the_agent(world):
    url, alice, jira, _db = world
    asked = send(url, alice, "POST", "/api/v1/issues/AURORA-2/attachments?filename=notes.txt", b"some notes",
                 "application/octet-stream")
    shown = settled(url, alice, asked["id"])
    [attached] = jira.issues["AURORA-2"]["fields"]["attachment"]
    assert shown["status"] == "done" and shown["result"] == {"attachment_id": attached["id"]}
    assert attached["filename"] == "notes.txt" and jira.files[attached["id"]] == b"some notes"
