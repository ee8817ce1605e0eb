"""The interface API for writes to Jira (docs/writes.md): asked for over HTTP by a token granted
writes, answered as the write object, read, waited on, cancelled and retried; and what agents of
each protocol version are given of them, claimed over HTTP."""

from __future__ import annotations

import threading

import pytest

from tests.support.protocol import claim, issue, load, report

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def writer(hub, name: str = "alice", write: bool = True) -> dict:
    """The headers of a new interface token, granted writes unless ``write`` is False."""
    token = hub.built.services.tokens.add(name, "interface", write=write)
    return {"Authorization": f"Bearer {token}"}


def ask(hub, headers: dict, method: str, path: str, body=None, **kwargs):
    return hub.client.simulate_request(method, path, json=body, headers={**headers, **kwargs.pop("extra", {})},
                                       **kwargs)


def mirrored(hub, *keys: str) -> None:
    load(hub, [issue(key, status="Open", priority="Major") for key in keys], version=19)


def test_a_comment_asked_for_is_202_with_the_write_object(hub):
    mirrored(hub, "AURORA-1")
    alice = writer(hub)
    resp = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "hello"})
    assert resp.status_code == 202, resp.json
    assert resp.headers["Location"] == f"/api/v1/writes/{resp.json['id']}"
    assert set(resp.json) == {"id", "op", "key", "params", "status", "requested_by", "created_at", "updated_at",
                              "error", "conflict", "result", "command_id"}
    assert resp.json["op"] == "comment" and resp.json["key"] == "AURORA-1"
    assert resp.json["params"] == {"body": "hello"} and resp.json["status"] == "pending"
    assert resp.json["requested_by"] == "alice" and resp.json["command_id"] is not None


def test_each_operation_is_queued_with_its_params(hub):
    mirrored(hub, "AURORA-1", "AURORA-2")
    alice = writer(hub)
    asked = [
        ("PATCH", "/api/v1/issues/AURORA-1/comments/10001", {"body": "*fixed*", "format": "markdown"}, "edit_comment"),
        ("POST", "/api/v1/issues/AURORA-1/transitions", {"to": "Resolved", "fields": {"resolution": "Fixed"}},
         "transition"),
        ("PATCH", "/api/v1/issues/AURORA-1", {"fields": {"priority": "Minor"}}, "edit"),
        ("POST", "/api/v1/issues/AURORA-1/worklogs", {"time_spent": "1h 30m"}, "log_work"),
        ("POST", "/api/v1/issues", {"project": "AURORA", "issue_type": "Bug", "summary": "New"}, "create_issue"),
        ("POST", "/api/v1/issues/AURORA-1/links", {"type": "Blocks", "outward": "AURORA-2"}, "link"),
        ("DELETE", "/api/v1/issues/AURORA-1/links/10200", None, "remove_link"),
    ]
    for method, path, body, op in asked:
        resp = ask(hub, alice, method, path, body)
        assert resp.status_code == 202, (path, resp.json)
        assert resp.json["op"] == op
    listed = hub.api("GET", "/api/v1/writes?limit=50").json["items"]
    by_op = {item["op"]: item for item in listed}
    assert by_op["edit_comment"]["params"] == {"comment_id": "10001", "body": "_fixed_"}  # Markdown made wiki
    assert by_op["transition"]["params"] == {"to": "Resolved", "fields": {"resolution": "Fixed"}}
    assert by_op["edit"]["params"] == {"fields": {"priority": "Minor"}}
    assert by_op["create_issue"]["key"] is None
    assert by_op["remove_link"]["params"] == {"link_id": "10200"}


def test_a_link_is_removed_by_its_type_and_other_issue_when_its_id_is_not_at_hand(hub):
    # A link named so must be one the mirror holds (docs/writes.md, what the hub checks first).
    load(hub, [issue("AURORA-1", status="Open", links=[{"type": "Blocks", "outward": "AURORA-2"}]),
               issue("AURORA-2", status="Open")], version=19)
    alice = writer(hub)
    resp = ask(hub, alice, "DELETE", "/api/v1/issues/AURORA-1/links", query_string="type=Blocks&outward=AURORA-2")
    assert resp.status_code == 202, resp.json
    assert (resp.json["op"], resp.json["params"]) == ("remove_link", {"type": "Blocks", "outward": "AURORA-2"})
    both = ask(hub, alice, "DELETE", "/api/v1/issues/AURORA-1/links",
               query_string="type=Blocks&outward=AURORA-2&inward=AURORA-3")
    assert both.status_code == 422


def test_a_token_not_granted_writes_is_refused_403(hub):
    mirrored(hub, "AURORA-1")
    bob = writer(hub, "bob", write=False)
    resp = ask(hub, bob, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "hello"})
    assert resp.status_code == 403
    assert "hub token add NAME --role interface --write" in resp.json["description"]
    assert hub.api("POST", "/api/v1/issues/AURORA-1/comments", {"body": "x"}, role="interface").status_code == 403
    assert hub.api("POST", "/api/v1/issues/AURORA-1/comments", {"body": "x"}, role="admin").status_code == 202
    # Reading stays open to every interface token.
    assert ask(hub, bob, "GET", "/api/v1/issues/AURORA-1/comments").status_code == 200
    assert ask(hub, bob, "GET", "/api/v1/writes").status_code == 200


def test_me_lists_write_only_for_tokens_that_may(hub):
    alice, bob = writer(hub), writer(hub, "bob", write=False)
    assert "write" in ask(hub, alice, "GET", "/api/v1/me").json["may"]
    assert "write" not in ask(hub, bob, "GET", "/api/v1/me").json["may"]
    assert "write" in hub.api("GET", "/api/v1/me", role="admin").json["may"]


def test_the_token_list_says_which_tokens_may_write(hub):
    writer(hub)
    resp = hub.api("POST", "/api/v1/tokens", {"name": "carol", "role": "interface", "write": True}, role="admin")
    assert resp.status_code == 201 and resp.json["write"] is True
    listed = {t["name"]: t["write"] for t in hub.api("GET", "/api/v1/tokens", role="admin").json["items"]}
    assert listed["alice"] is True and listed["carol"] is True
    assert listed["test-interface"] is False and listed["test-admin"] is True
    refused = hub.api("POST", "/api/v1/tokens", {"name": "dave", "role": "agent", "write": True}, role="admin")
    assert refused.status_code == 422 and refused.json["field"] == "write"


def test_a_write_to_an_unknown_issue_or_with_a_bad_body_is_422_naming_the_field(hub):
    mirrored(hub, "AURORA-1")
    alice = writer(hub)
    resp = ask(hub, alice, "POST", "/api/v1/issues/AURORA-9/comments", {"body": "hello"})
    assert resp.status_code == 422 and resp.json["field"] == "key"
    resp = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "hello", "colour": "red"})
    assert resp.status_code == 422
    resp = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "x" * 32_768})
    assert resp.status_code == 422 and resp.json["field"] == "body"
    resp = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/worklogs", {"time_spent": "1h", "adjust_estimate": "x"})
    assert resp.status_code == 422 and resp.json["field"] == "adjust_estimate"
    resp = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "hi"},
               extra={"Idempotency-Key": "has space"})
    assert resp.status_code == 422 and resp.json["field"] == "Idempotency-Key"
    assert hub.api("GET", "/api/v1/writes").json["items"] == []


def test_the_same_idempotency_key_twice_makes_one_write_and_answers_it_200(hub):
    mirrored(hub, "AURORA-1")
    alice = writer(hub)
    key = {"Idempotency-Key": "retry-7f3a"}
    first = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "once"}, extra=key)
    again = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "once"}, extra=key)
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json["id"] == first.json["id"]
    assert len(hub.api("GET", "/api/v1/writes").json["items"]) == 1
    other = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "another"}, extra=key)
    assert other.status_code == 409


def test_writes_are_listed_newest_first_by_issue_status_and_op_with_a_cursor(hub):
    mirrored(hub, "AURORA-1", "AURORA-2")
    alice = writer(hub)
    ids = [ask(hub, alice, "POST", f"/api/v1/issues/{key}/comments", {"body": str(n)}).json["id"]
           for n, key in enumerate(["AURORA-1", "AURORA-1", "AURORA-2"])]
    ask(hub, alice, "POST", "/api/v1/issues/AURORA-2/worklogs", {"time_spent": 3600})
    one = hub.api("GET", "/api/v1/writes?key=AURORA-1").json
    assert [w["id"] for w in one["items"]] == [ids[1], ids[0]] and one["next_cursor"] is None
    assert [w["op"] for w in hub.api("GET", "/api/v1/writes?op=log_work").json["items"]] == ["log_work"]
    ask(hub, alice, "POST", f"/api/v1/writes/{ids[2]}/cancel")
    assert [w["id"] for w in hub.api("GET", "/api/v1/writes?status=cancelled").json["items"]] == [ids[2]]
    first = hub.api("GET", "/api/v1/writes?limit=2").json
    rest = hub.api("GET", f"/api/v1/writes?limit=2&cursor={first['next_cursor']}").json
    assert len(first["items"]) == 2 and len(rest["items"]) == 2 and rest["next_cursor"] is None
    assert hub.api("GET", "/api/v1/writes?status=lost").status_code == 422


def test_waiting_on_a_write_returns_once_its_status_changes(hub):
    mirrored(hub, "AURORA-1")
    alice = writer(hub)
    write = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "hello"}).json
    claimed = threading.Timer(0.5, lambda: claim(hub, version=19))
    claimed.start()
    try:
        resp = hub.api("GET", f"/api/v1/writes/{write['id']}?wait=10&known=pending")
    finally:
        claimed.join()
    assert resp.status_code == 200 and resp.json["status"] == "applying"
    assert hub.api("GET", f"/api/v1/writes/{write['id']}?wait=31&known=pending").status_code == 422


def test_a_pending_write_is_cancelled_and_an_applying_one_is_409(hub):
    mirrored(hub, "AURORA-1", "AURORA-2")
    alice = writer(hub)
    pending = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "a"}).json
    resp = ask(hub, alice, "POST", f"/api/v1/writes/{pending['id']}/cancel")
    assert resp.status_code == 200 and resp.json["status"] == "cancelled"
    applying = ask(hub, alice, "POST", "/api/v1/issues/AURORA-2/comments", {"body": "b"}).json
    claim(hub, version=19)
    resp = ask(hub, alice, "POST", f"/api/v1/writes/{applying['id']}/cancel")
    assert resp.status_code == 409
    assert hub.api("GET", f"/api/v1/writes/{applying['id']}").json["status"] == "applying"


def test_a_failed_write_retried_is_queued_again(hub):
    mirrored(hub, "AURORA-1")
    alice = writer(hub)
    write = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "a"}).json
    assert ask(hub, alice, "POST", f"/api/v1/writes/{write['id']}/retry", {}).status_code == 409
    [command] = claim(hub, version=19)
    done = {"result": {"outcome": "failed", "result": None, "error": "Comment body can not be empty!",
                       "conflict": None}}
    assert report(hub, command["id"], "done", done).status_code == 200
    assert hub.api("GET", f"/api/v1/writes/{write['id']}").json["status"] == "failed"
    # No body at all: the base is not asked to change.
    resp = ask(hub, alice, "POST", f"/api/v1/writes/{write['id']}/retry")
    assert resp.status_code == 202 and resp.json["status"] == "pending"
    assert resp.json["command_id"] != command["id"] and resp.json["error"] is None


def test_the_issue_object_lists_its_pending_writes_and_its_screens(hub):
    mirrored(hub, "AURORA-1")
    alice = writer(hub)
    write = ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": "a"}).json
    shown = hub.api("GET", "/api/v1/issues/AURORA-1").json
    assert [w["id"] for w in shown["pending_writes"]] == [write["id"]]
    assert shown["transitions"] is None and shown["edit_fields"] is None
    ask(hub, alice, "POST", f"/api/v1/writes/{write['id']}/cancel")
    assert hub.api("GET", "/api/v1/issues/AURORA-1").json["pending_writes"] == []


def test_an_agent_below_v19_is_never_given_a_write_and_a_v19_agent_is(hub):
    mirrored(hub, "AURORA-1")
    write = ask(hub, writer(hub), "POST", "/api/v1/issues/AURORA-1/comments", {"body": "a"}).json
    assert claim(hub, version=18) == []
    [command] = claim(hub, version=19)
    assert command["type"] == "write" and command["params"]["write_id"] == write["id"]


def test_writes_to_one_issue_are_claimed_one_at_a_time_in_the_order_made(hub):
    mirrored(hub, "AURORA-1")
    alice = writer(hub)
    first, second = (ask(hub, alice, "POST", "/api/v1/issues/AURORA-1/comments", {"body": body}).json
                     for body in ("one", "two"))
    taken: dict[str, list] = {}
    agents = [threading.Thread(target=lambda name=name: taken.__setitem__(name, claim(
        hub, agent_id=name, version=19, limit=5))) for name in ("agent-1", "agent-2")]
    for thread in agents:
        thread.start()
    for thread in agents:
        thread.join()
    given = [c["params"]["write_id"] for commands in taken.values() for c in commands]
    assert given == [first["id"]]
    holder = next(name for name, commands in taken.items() if commands)
    command = taken[holder][0]
    done = {"result": {"outcome": "done", "result": {"comment_id": "7"}, "error": None, "conflict": None}}
    assert hub.agent("POST", f"/agent/v1/commands/{command['id']}/done", done).status_code == 200
    [later] = claim(hub, agent_id="agent-2", version=19, limit=5)
    assert later["params"]["write_id"] == second["id"]


def test_an_attachment_uploaded_is_queued_and_its_agent_downloads_it(hub):
    mirrored(hub, "AURORA-1")
    alice = writer(hub)
    content = b"%PDF-1.4 report" * 1000
    resp = hub.client.simulate_post("/api/v1/issues/AURORA-1/attachments", params={"filename": "report.pdf"},
                                    body=content, headers={**alice, "Content-Type": "application/pdf"})
    assert resp.status_code == 202, resp.json
    assert resp.json["op"] == "attach"
    assert resp.json["params"] == {"filename": "report.pdf", "size": len(content), "mime_type": "application/pdf"}
    [command] = claim(hub, version=19)
    assert command["params"]["file"]["size"] == len(content)
    got = hub.agent("GET", f"/agent/v1/commands/{command['id']}/file?agent_id=agent-1&delivery={command['deliveries']}")
    assert got.status_code == 200 and got.content == content
    assert got.headers["Content-Type"] == "application/pdf"
    assert "report.pdf" in got.headers["Content-Disposition"]
    other = hub.agent("GET", f"/agent/v1/commands/{command['id']}/file?agent_id=agent-2")
    assert other.status_code == 409


def test_a_command_with_no_file_answers_404_to_its_holder(hub):
    mirrored(hub, "AURORA-1")
    ask(hub, writer(hub), "POST", "/api/v1/issues/AURORA-1/comments", {"body": "a"})
    [command] = claim(hub, version=19)
    assert hub.agent("GET", f"/agent/v1/commands/{command['id']}/file?agent_id=agent-1").status_code == 404


def test_an_attachment_past_the_upload_limit_is_refused_and_nothing_is_queued(make_hub):
    hub = make_hub(max_upload_bytes=1000)
    mirrored(hub, "AURORA-1")
    resp = hub.client.simulate_post("/api/v1/issues/AURORA-1/attachments", params={"filename": "big.bin"},
                                    body=b"x" * 1001, headers=writer(hub))
    assert resp.status_code == 413
    assert hub.api("GET", "/api/v1/writes").json["items"] == []



def test_an_attachment_without_a_body_is_refused_naming_the_body_and_nothing_is_queued(hub):
    mirrored(hub, "AURORA-1")
    resp = hub.client.simulate_post("/api/v1/issues/AURORA-1/attachments", params={"filename": "empty.txt"},
                                    headers=writer(hub))
    assert resp.status_code == 422 and resp.json["field"] == "body"
    assert hub.api("GET", "/api/v1/writes").json["items"] == []
