"""Attachments end to end through the app: request, upload, state, download.

Requirement «Скачанные вложения»: one test per Scenario, by name. The tests that
take ``store`` run on each file store (``[local]``: files/, ``[s3]``: a bucket of
the run's SeaweedFS, see tests/support/s3.py).
"""

from __future__ import annotations

import hashlib

import pytest

from hub.models import AttachmentFile, Command
from tests.support import (
    PDF,
    attachment,
    claim,
    db_rows,
    fetch,
    fetched,
    listed,
    report,
    upload,
    wait_until,
    waiting_polls,
)
from tests.support.s3 import store_fixture  # noqa: F401 -- the fixture `store`

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture
def hub(make_hub, request):
    """The hub, on the file store of ``store`` when the test takes it."""
    if "store" not in request.fixturenames:
        return make_hub()
    view = request.getfixturevalue("store")
    built = make_hub(**view.settings)
    built.store = view
    return built


def state(hub, aid: str) -> dict:
    resp = hub.api("GET", f"/api/v1/attachments/{aid}")
    assert resp.status_code == 200, resp.json
    return resp.json


def store_files(hub) -> list[str]:
    return sorted(entry.name for entry in hub.built.services.store.files())


def tmp_files(hub) -> list[str]:
    """Uploads in progress or left behind: files/.tmp/, or on S3 .tmp/ objects and multipart uploads."""
    return sorted(entry.name for entry in hub.built.services.store.uploads())


def test_request_upload_and_ready(hub, store):
    listed(hub, attachment("31337", "spec.pdf", len(PDF)))
    assert state(hub, "31337") == {"attachment_id": "31337", "key": "X-1", "filename": "spec.pdf",
                                   "size": len(PDF), "mime_type": "application/pdf",
                                   "state": "none", "error": None, "command_id": None,
                                   "author": "ivanov", "author_display": None,
                                   "created": "2026-10-22T13:05:11.000+0300",
                                   "created_at": "2026-10-22T10:05:11+00:00"}
    first = fetch(hub, "31337")
    assert first.status_code == 201 and first.json["state"] == "fetching"
    again = fetch(hub, "31337")
    assert again.status_code == 200 and again.json["command"]["id"] == first.json["command"]["id"]
    assert db_rows(hub, "SELECT count(*) FROM command WHERE type = 'fetch_attachment'") == [(1,)]

    [claimed] = claim(hub, types=["fetch_attachment"])
    assert state(hub, "31337")["state"] == "fetching"
    stored = upload(hub, claimed["id"], PDF)
    sha = hashlib.sha256(PDF).hexdigest()
    assert stored.json == {"sha256": sha, "size": len(PDF)}
    assert state(hub, "31337")["state"] == "fetching"  # only done records it
    assert db_rows(hub, "SELECT count(*) FROM attachment_file") == [(0,)]
    report(hub, claimed["id"], "done", {"result": stored.json})

    assert state(hub, "31337")["state"] == "ready"
    assert db_rows(hub, "SELECT attachment_id, file, size FROM attachment_file") == [("31337", sha, len(PDF))]
    if store.kind == "local":
        assert (hub.config.files_dir / sha).stat().st_mode & 0o777 == 0o600
    assert store.read(sha) == PDF
    ready = fetch(hub, "31337")
    assert ready.status_code == 200 and ready.json["command"] is None
    assert tmp_files(hub) == []


def test_file_removed_by_cleanup(hub, store):
    """Scenario: Файл убран уборкой."""
    listed(hub, attachment("31337", "spec.pdf"))
    sha = fetched(hub, "31337")
    store.remove(sha)

    current = state(hub, "31337")
    assert (current["state"], current["error"]) == ("none", None)
    assert db_rows(hub, "SELECT count(*) FROM attachment_file") == [(1,)]
    again = fetch(hub, "31337")
    assert again.status_code == 201 and again.json["state"] == "fetching"
    assert db_rows(hub, "SELECT count(*) FROM command WHERE type = 'fetch_attachment'") == [(2,)]


def test_attachment_list_updated(hub):
    """Scenario: Список вложений обновился."""
    listed(hub, attachment("31337", "spec.pdf"))
    fetched(hub, "31337")
    assert state(hub, "31337")["state"] == "ready"

    listed(hub, attachment("31337", "spec.pdf"), attachment("31338", "new.png"))

    assert state(hub, "31337")["state"] == "ready"
    assert state(hub, "31338")["state"] == "none"


def test_failed_and_cancelled_fetches_read_as_failed_with_the_error(hub):
    listed(hub, attachment("1", "a.pdf"), attachment("2", "b.pdf"))
    command = fetch(hub, "1").json["command"]
    claim(hub, types=["fetch_attachment"])
    report(hub, command["id"], "failed", {"error": "Jira answered 404: attachment deleted"})
    failed = state(hub, "1")
    assert (failed["state"], failed["error"], failed["command_id"]) == (
        "failed", "Jira answered 404: attachment deleted", command["id"])

    cancelled = fetch(hub, "2").json["command"]
    hub.api("POST", f"/api/v1/commands/{cancelled['id']}/cancel")
    assert state(hub, "2")["state"] == "failed"
    # A new request after a failure enqueues a new command.
    assert fetch(hub, "1").status_code == 201
    assert state(hub, "1")["state"] == "fetching"


def test_same_content_shares_one_file_and_cleanup_follows_the_file(hub, store):
    from hub.clock import Clock
    from hub.services.files.cleanup import CleanupService

    listed(hub, attachment("1", "a.pdf"), attachment("2", "copy-of-a.pdf"))
    sha1, sha2 = fetched(hub, "1"), fetched(hub, "2")
    assert sha1 == sha2 and store_files(hub) == [sha1]
    cleanup = CleanupService(hub.built.services.store, 10**12, 30, Clock())

    listed(hub, attachment("2", "copy-of-a.pdf"))  # 1 is gone from the issue
    assert cleanup.run().files == 0  # 2 still names the file
    assert state(hub, "2")["state"] == "ready"

    AttachmentFile.update(fetched_at="2000-01-01T00:00:00+00:00").execute()
    assert cleanup.run().removed["old"] == [(sha1, len(PDF))]
    assert state(hub, "2")["state"] == "none"


def test_sha_mismatch_is_422_and_stores_nothing(hub, store):
    listed(hub, attachment("1", "a.pdf"))
    command = fetch(hub, "1").json["command"]
    claim(hub, types=["fetch_attachment"])
    resp = upload(hub, command["id"], PDF, sha="0" * 64)
    assert resp.status_code == 422 and resp.json["field"] == "X-Content-SHA256"
    assert store_files(hub) == [] and tmp_files(hub) == []
    bad = upload(hub, command["id"], PDF, sha="../../etc/passwd")
    assert bad.status_code == 422
    assert upload(hub, command["id"], PDF, sha=None).status_code == 200


def test_done_naming_a_file_that_is_not_there_is_409(hub, store):
    listed(hub, attachment("1", "a.pdf"))
    command = fetch(hub, "1").json["command"]
    claim(hub, types=["fetch_attachment"])
    missing = report(hub, command["id"], "done", {"result": {"sha256": "a" * 64, "size": 3}})
    assert missing.status_code == 409
    stored = upload(hub, command["id"], PDF).json
    wrong_size = report(hub, command["id"], "done", {"result": {**stored, "size": 1}})
    assert wrong_size.status_code == 409
    bad = report(hub, command["id"], "done", {"result": {"sha256": "../x", "size": 1}})
    assert bad.status_code == 422 and bad.json["field"] == "result.sha256"
    assert db_rows(hub, "SELECT count(*) FROM attachment_file") == [(0,)]
    assert report(hub, command["id"], "done", {"result": stored}).status_code == 200


def test_uploads_only_from_the_holder_of_a_fetch(hub, store):
    listed(hub, attachment("1", "a.pdf"))
    command = fetch(hub, "1").json["command"]
    assert upload(hub, command["id"], PDF).status_code == 409  # queued, not held
    [claimed] = claim(hub, types=["fetch_attachment"])
    assert upload(hub, command["id"], PDF, agent_id="someone-else").status_code == 409
    assert upload(hub, command["id"], PDF, delivery=claimed["deliveries"] + 1).status_code == 409
    refresh = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "x"}}).json
    claim(hub, types=["refresh"])
    assert upload(hub, refresh["id"], PDF).status_code == 409
    assert store_files(hub) == []


def test_an_upload_over_the_limit_is_413_and_leaves_nothing(config, store):
    from tests.support.hubs import Hub

    small = Hub(type(config)(data_dir=config.data_dir, database_url=config.database_url,
                             max_upload_bytes=1000, store_url=store.url))
    listed(small, attachment("1", "a.pdf"))
    command = fetch(small, "1").json["command"]
    claim(small, types=["fetch_attachment"])
    assert upload(small, command["id"], b"x" * 1001).status_code == 413
    assert store_files(small) == [] and tmp_files(small) == []
    assert upload(small, command["id"], b"x" * 1000).status_code == 200


def test_download_with_validators_and_ranges(hub, store):
    # Quotes, a right-to-left override, ';' and non-ASCII: all Jira allows in a name.
    listed(hub, attachment("1", 'we"ird\u202ename; ..évidence.pdf'))
    sha = fetched(hub, "1")
    url = "/api/v1/attachments/1/content"

    whole = hub.api("GET", url)
    assert whole.status_code == 200 and whole.content == PDF
    assert whole.headers["content-type"] == "application/pdf"
    assert whole.headers["etag"] == f'"{sha}"'
    assert whole.headers["content-length"] == str(len(PDF))
    disposition = whole.headers["content-disposition"]
    assert "\r" not in disposition and "\n" not in disposition
    assert disposition.startswith('attachment; filename="we_ird_name_ .._vidence.pdf"')
    assert "filename*=UTF-8''we%22ird_name%3B%20..%C3%A9vidence.pdf" in disposition

    assert hub.api("GET", url, headers={"If-None-Match": f'"{sha}"'}).status_code == 304
    part = hub.api("GET", url, headers={"Range": "bytes=10-19"})
    assert part.status_code == 206 and part.content == PDF[10:20]
    assert part.headers["content-range"] == f"bytes 10-19/{len(PDF)}"
    tail = hub.api("GET", url, headers={"Range": "bytes=-5"})
    assert tail.status_code == 206 and tail.content == PDF[-5:]
    beyond = hub.api("GET", url, headers={"Range": f"bytes={len(PDF)}-"})
    assert beyond.status_code == 416 and beyond.headers["content-range"] == f"bytes */{len(PDF)}"
    several = hub.api("GET", url, headers={"Range": "bytes=0-1,5-6"})
    assert several.status_code == 200 and several.content == PDF


def test_content_of_an_attachment_that_is_not_ready_is_409_with_its_state(hub):
    listed(hub, attachment("1", "a.pdf"))
    resp = hub.api("GET", "/api/v1/attachments/1/content")
    assert resp.status_code == 409 and resp.json["state"] == "none"
    fetch(hub, "1")
    assert hub.api("GET", "/api/v1/attachments/1/content").json["state"] == "fetching"


@pytest.mark.parametrize("aid, status", [("..%2F..%2Fetc%2Fpasswd", 400), ("%2e%2e", 400),
                                         ("1%0d%0aX-Evil:%201", 404), ("nope", 404), ("2", 404)])
def test_unknown_or_hostile_ids_are_404_and_paths_that_are_no_ids_400(hub, aid, status):
    listed(hub, attachment("1", "a.pdf"))
    for suffix in ("", "/content"):
        assert hub.api("GET", f"/api/v1/attachments/{aid}{suffix}").status_code == status
    assert hub.api("POST", f"/api/v1/attachments/{aid}/fetch").status_code == status


def test_states_of_many_and_of_an_issue(hub):
    listed(hub, attachment("1", "a.pdf"), attachment("2", "b.pdf"), attachment("3", "c.pdf"))
    fetched(hub, "2")
    fetch(hub, "3")
    many = hub.api("POST", "/api/v1/attachments/states", {"ids": ["3", "404", "1", "2", "3"]})
    assert [(a["attachment_id"], a["state"]) for a in many.json["items"]] == [
        ("3", "fetching"), ("1", "none"), ("2", "ready")]
    of_issue = hub.api("GET", "/api/v1/issues/X-1/attachments").json["items"]
    assert [(a["attachment_id"], a["state"]) for a in of_issue] == [
        ("1", "none"), ("2", "ready"), ("3", "fetching")]
    assert hub.api("GET", "/api/v1/issues/NOPE-1/attachments").status_code == 404
    too_many = hub.api("POST", "/api/v1/attachments/states", {"ids": [str(i) for i in range(1, 1002)]})
    assert too_many.status_code == 422
    not_an_id = hub.api("POST", "/api/v1/attachments/states", {"ids": ["1", "../1"]})
    assert not_an_id.status_code == 422 and not_an_id.json["field"] == "ids.1"


def test_long_poll_answers_when_the_state_changes(hub):
    import threading

    listed(hub, attachment("1", "a.pdf"))
    command = fetch(hub, "1").json["command"]
    result = {}

    def poll():
        result["state"] = hub.api("GET", "/api/v1/attachments/1",
                                  params={"wait": 10, "known": "fetching"}).json["state"]

    poller = threading.Thread(target=poll)
    poller.start()
    wait_until(lambda: waiting_polls(hub) == 1, message="the read waiting")
    Command.update(status="failed", error="gone").where(Command.id == command["id"]).execute()
    poller.join(timeout=15)
    assert result["state"] == "failed"
    unchanged = hub.api("GET", "/api/v1/attachments/1", params={"wait": 1, "known": "failed"})
    assert unchanged.json["state"] == "failed"


def test_enqueue_fetch_through_the_commands_endpoint_is_idempotent(hub):
    listed(hub, attachment("1", "a.pdf"))
    body = {"type": "fetch_attachment", "params": {"attachment_id": "1"}}
    first = hub.api("POST", "/api/v1/commands", body)
    second = hub.api("POST", "/api/v1/commands", body)
    assert first.status_code == 201 and second.status_code == 200
    assert first.json["id"] == second.json["id"] and first.json["type"] == "fetch_attachment"
    unknown = hub.api("POST", "/api/v1/commands", {"type": "fetch_attachment", "params": {"attachment_id": "9"}})
    assert unknown.status_code == 404


def test_states_follow_new_and_changing_commands_of_many_attachments(hub):
    """The newest fetch decides, the newest open one wins, other commands never count."""
    listed(hub, *(attachment(str(n), f"{n}.pdf") for n in range(1, 6)))

    def add(aid, status, error=None, **params):
        return Command.create(type="fetch_attachment", params={"attachment_id": aid, **params},
                              status=status, error=error, created_at="2026-11-02T09:00:00+00:00").id

    def states(*ids):
        items = hub.api("POST", "/api/v1/attachments/states", {"ids": list(ids)}).json["items"]
        return [(a["attachment_id"], a["state"], a["error"], a["command_id"]) for a in items]

    # Params that name no attachment, or name it in another command type, count for nothing.
    Command.create(type="refresh", params={"jql": "x", "attachment_id": "1"}, created_at="2026-11-02T09:00:00+00:00")
    Command.create(type="fetch_attachment", params="not an object", created_at="2026-11-02T09:00:00+00:00")
    Command.create(type="fetch_attachment", params={"attachment_id": 1}, created_at="2026-11-02T09:00:00+00:00")
    assert states("1") == [("1", "none", None, None)]

    first = add("1", "queued")
    gave_up = add("2", "failed", "Jira answered 404")
    add("3", "failed", "old")
    done = add("3", "done")
    cancelled = add("4", "cancelled", "cancelled by ivanov")
    assert states("4", "1", "2", "3", "5") == [
        ("4", "failed", "cancelled by ivanov", cancelled), ("1", "fetching", None, first),
        ("2", "failed", "Jira answered 404", gave_up), ("3", "none", None, done),
        ("5", "none", None, None)]

    Command.update(status="failed", error="404").where(Command.id == first).execute()
    second = add("1", "claimed")
    assert states("1") == [("1", "fetching", None, second)]
    newer_failure = add("1", "failed", "later")
    # An open fetch wins over a newer one that failed; its id comes with the state.
    assert states("1") == [("1", "fetching", None, second)]
    Command.update(status="cancelled", error="lease gone").where(Command.id == second).execute()
    assert states("1") == [("1", "failed", "later", newer_failure)]


@pytest.mark.backends("sqlite")  # SQLite's query plan (EXPLAIN QUERY PLAN); PostgreSQL's is the next test
def test_states_read_fetches_through_the_attachment_index(hub):
    """Both fetch lookups seek the partial expression index; nothing scans a table."""
    from hub.db import database
    from hub.services.files.attachments import GIVEN_UP, OPEN, STATES_SQL

    params = (*GIVEN_UP, *GIVEN_UP, '["1", "2"]', *OPEN)
    plan = [row[3] for row in database.execute_sql("EXPLAIN QUERY PLAN " + STATES_SQL, params)]
    command_reads = [step for step in plan if step.startswith(("SEARCH c ", "SCAN c"))]
    assert command_reads == ["SEARCH c USING INDEX command_attachment (<expr>=?)"] * 2, plan
    # Only the asked ids (json_each) are walked one by one.
    assert [step for step in plan if step.startswith("SCAN") and not step.startswith("SCAN asked")] == [], plan


@pytest.mark.backends("postgresql")
def test_states_on_postgresql_can_read_fetches_through_the_attachment_index(hub):
    """The expression is the index's: with scans priced out, both lookups use it."""
    from hub.db import database
    from hub.dialect import POSTGRES
    from hub.services.files.attachments import GIVEN_UP, OPEN, states_sql

    params = (*GIVEN_UP, *GIVEN_UP, '["1", "2"]', *OPEN)
    with database.atomic():
        database.execute_sql("SET LOCAL enable_seqscan = off")
        plan = "\n".join(row[0] for row in database.execute_sql("EXPLAIN " + states_sql(POSTGRES), params))
    assert plan.count("command_attachment") == 2, plan


def test_fetch_requests_at_once_make_one_command(hub):
    import threading

    listed(hub, attachment("1", "a.pdf"))
    start = threading.Barrier(8)
    answers = []

    def ask():
        start.wait()
        resp = fetch(hub, "1")
        answers.append((resp.status_code, resp.json["command"]["id"]))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(code for code, _ in answers) == [200] * 7 + [201]
    assert len({command_id for _, command_id in answers}) == 1
    assert db_rows(hub, "SELECT count(*) FROM command WHERE type = 'fetch_attachment'") == [(1,)]


def test_a_fetch_enqueued_into_a_batch_keeps_its_batch_id(hub):
    listed(hub, attachment("1", "a.pdf"), attachment("2", "b.pdf"))
    batch = hub.api("POST", "/api/v1/batches", {"title": "attachments"}).json
    other = hub.api("POST", "/api/v1/batches", {"title": "another"}).json
    first = hub.api("POST", "/api/v1/commands", {"type": "fetch_attachment",
                                                 "params": {"attachment_id": "1"}, "batch_id": batch["id"]})
    assert first.status_code == 201 and first.json["batch_id"] == batch["id"]
    # The open command comes back as it is: in the batch it was enqueued into.
    again = hub.api("POST", "/api/v1/commands", {"type": "fetch_attachment",
                                                 "params": {"attachment_id": "1"}, "batch_id": other["id"]})
    assert again.status_code == 200 and again.json["id"] == first.json["id"]
    assert again.json["batch_id"] == batch["id"]
    counted = hub.api("GET", f"/api/v1/batches/{batch['id']}").json
    assert counted["commands"] == {"queued": 1}
    unbatched = hub.api("POST", "/api/v1/commands", {"type": "fetch_attachment",
                                                     "params": {"attachment_id": "2"}})
    assert unbatched.status_code == 201 and unbatched.json["batch_id"] is None


def test_a_fetch_into_an_unknown_batch_is_422_and_enqueues_nothing(hub):
    listed(hub, attachment("1", "a.pdf"))
    resp = hub.api("POST", "/api/v1/commands", {"type": "fetch_attachment",
                                                "params": {"attachment_id": "1"}, "batch_id": 999})
    assert resp.status_code == 422 and resp.json["field"] == "batch_id"
    assert db_rows(hub, "SELECT count(*) FROM command WHERE type = 'fetch_attachment'") == [(0,)]
