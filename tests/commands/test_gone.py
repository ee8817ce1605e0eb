"""Gone issues: after a full run by a v16 agent the hub asks it to check, with ``check_issues``,
the issues the run did not load; those Jira no longer returns are marked gone, kept, left out of
lists by default, and back once Jira returns them again."""

from __future__ import annotations

import pytest

from hub.vocabulary import GONE_REASON
from tests.support import claim, db_rows, enqueue, issue, jira_id, load, report, with_projects

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def full_run(hub, keys, version=16, agent_id="agent-1") -> dict:
    """A full run of the base JQL that loads ``keys``, by an agent of ``version``."""
    command = enqueue(hub)
    [claimed] = claim(hub, agent_id=agent_id, version=version, types=["refresh"])
    assert claimed["id"] == command["id"]
    resp = report(hub, command["id"], "state", {"issues": [issue(key) for key in keys]})
    assert resp.status_code == 200, resp.json
    resp = report(hub, command["id"], "done", {"result": {"total": len(keys)}})
    assert resp.status_code == 200, resp.json
    return command


def checks(hub) -> list[dict]:
    """The check_issues commands, oldest first."""
    resp = hub.api("GET", "/api/v1/commands", params={"type": "check_issues", "limit": 500})
    assert resp.status_code == 200, resp.json
    return sorted(resp.json["items"], key=lambda command: command["id"])


def run_check(hub, neighbors=(), missing=None, version=16) -> dict:
    """Claim the oldest check, report ``neighbors`` as Jira returned them, then done with ``missing``
    (by default, every key asked for that is not among ``neighbors``)."""
    [command] = claim(hub, version=version, types=["check_issues"])
    if neighbors:
        resp = report(hub, command["id"], "state", {"neighbors": list(neighbors)})
        assert resp.status_code == 200, resp.json
    if missing is None:
        returned = {state["key"] for state in neighbors}
        missing = [key for key in command["params"]["keys"] if key not in returned]
    resp = report(hub, command["id"], "done", {"result": {"checked": len(command["params"]["keys"]),
                                                              "missing": missing}})
    assert resp.status_code == 200, resp.json
    return command


def listed_keys(hub, **params) -> list[str]:
    resp = hub.api("GET", "/api/v1/issues", params=params)
    assert resp.status_code == 200, resp.json
    return sorted(item["key"] for item in resp.json["items"])


def mirror_with_one_gone(hub) -> None:
    """AURORA-1..3 mirrored; a full run loads AURORA-1 and 2; the check finds AURORA-3 gone."""
    with_projects()
    full_run(hub, ["AURORA-1", "AURORA-2", "AURORA-3"])
    assert checks(hub) == []  # the run left nothing out: nothing to check
    full_run(hub, ["AURORA-1", "AURORA-2"])
    run_check(hub)


def test_a_full_run_that_does_not_load_an_issue_enqueues_a_check_for_a_v16_agent(hub):
    with_projects()
    load(hub, [issue("AURORA-3"), issue("OTHER-1")], jql="key in (AURORA-3, OTHER-1)")
    run = full_run(hub, ["AURORA-1", "AURORA-2"])
    [check] = checks(hub)
    assert check["status"] == "queued" and check["type"] == "check_issues"
    [run_row] = hub.api("GET", "/api/v1/sync-runs").json["items"][:1]
    assert run_row["command_id"] == run["id"]
    assert check["params"] == {"keys": ["AURORA-3", "OTHER-1"], "run_id": run_row["id"]}
    assert db_rows(hub, "SELECT checks_enqueued, agent_version FROM sync_run WHERE id = ?",
                   run_row["id"]) == [(1, 16)]


def test_a_full_run_by_a_v15_agent_marks_neighbours_and_enqueues_no_check(hub):
    with_projects()
    load(hub, [issue("AURORA-3")], jql="key in (AURORA-3)")
    full_run(hub, ["AURORA-1"], version=15)
    assert checks(hub) == []
    assert db_rows(hub, "SELECT neighbor FROM issue WHERE key = 'AURORA-3'") == [(1,)]


def test_marking_a_run_twice_enqueues_its_checks_once(hub):
    with_projects()
    load(hub, [issue("AURORA-3")], jql="key in (AURORA-3)")
    full_run(hub, ["AURORA-1"])
    [run_id] = [row[0] for row in db_rows(hub, "SELECT id FROM sync_run WHERE checks_enqueued = 1")]
    assert hub.built.services.runs.mark_neighbours(run_id) == 0
    hub.built.services.runs.mark_due()
    assert len(checks(hub)) == 1


def test_a_check_names_at_most_500_keys_sorted_and_an_open_check_is_not_asked_again(hub):
    with_projects()
    keys = [f"OTHER-{n}" for n in range(1, 1202)]
    for start in range(0, len(keys), 100):
        load(hub, [issue(key) for key in keys[start:start + 100]], jql="project = OTHER")
    full_run(hub, ["AURORA-1"])
    asked = [command["params"]["keys"] for command in checks(hub)]
    assert [len(batch) for batch in asked] == [500, 500, 201]
    assert [key for batch in asked for key in batch] == sorted(keys)
    # A second full run while those are still queued asks for none of them again.
    full_run(hub, ["AURORA-1"])
    assert len(checks(hub)) == 3


def test_an_agent_below_v16_is_never_given_a_check(hub):
    with_projects()
    load(hub, [issue("AURORA-3")], jql="key in (AURORA-3)")
    full_run(hub, ["AURORA-1"])
    assert claim(hub, version=15) == []
    assert claim(hub, version=16)[0]["type"] == "check_issues"


def test_an_interface_may_not_enqueue_a_check(hub):
    resp = hub.api("POST", "/api/v1/commands", {"type": "check_issues", "params": {"keys": ["AURORA-1"]}})
    assert resp.status_code == 422 and resp.json["field"] == "type"


def test_a_check_whose_result_names_a_key_marks_it_gone_with_the_reason(hub):
    mirror_with_one_gone(hub)
    [row] = db_rows(hub, "SELECT gone_at, gone_reason FROM issue WHERE key = 'AURORA-3'")
    assert row[0] is not None and row[1] == GONE_REASON
    assert db_rows(hub, "SELECT count(*) FROM issue WHERE gone_at IS NOT NULL") == [(1,)]
    check = checks(hub)[-1]
    assert check["status"] == "done" and check["result"] == {"checked": 1, "missing": ["AURORA-3"]}


def test_issues_returned_by_a_check_are_mirrored_as_neighbours_and_not_gone(hub):
    with_projects()
    load(hub, [issue("AURORA-3"), issue("OTHER-1")], jql="key in (AURORA-3, OTHER-1)")
    full_run(hub, ["AURORA-1"])
    run_check(hub, neighbors=[issue("OTHER-1", summary="Still in Jira")])
    assert db_rows(hub, "SELECT key, summary, neighbor, gone_at IS NOT NULL FROM issue "
                        "WHERE key IN ('AURORA-3', 'OTHER-1') ORDER BY key") == [
        ("AURORA-3", "Summary AURORA-3", 1, 1), ("OTHER-1", "Still in Jira", 1, 0)]


def test_a_missing_key_fetched_since_the_check_was_claimed_is_not_marked_gone(hub):
    with_projects()
    load(hub, [issue("AURORA-3"), issue("AURORA-4")], jql="key in (AURORA-3, AURORA-4)")
    full_run(hub, ["AURORA-1"])
    [command] = claim(hub, version=16, types=["check_issues"])
    # While the check runs, another refresh loads AURORA-3: Jira has it, whatever the check says.
    load(hub, [issue("AURORA-3")], jql="key = AURORA-3", version=16)
    resp = report(hub, command["id"], "done", {"result": {"checked": 2, "missing": ["AURORA-3", "AURORA-4"]}})
    assert resp.status_code == 200, resp.json
    assert db_rows(hub, "SELECT key FROM issue WHERE gone_at IS NOT NULL") == [("AURORA-4",)]


def test_a_missing_key_that_moved_is_found_under_its_new_key_and_not_marked_gone(hub):
    with_projects()
    load(hub, [issue("AURORA-12")], jql="key = AURORA-12")
    full_run(hub, ["AURORA-1"])
    # Jira answers AURORA-12 with the issue under its new key, OPS-7 (the same id): the check's page
    # re-keys it, and AURORA-12 is among the keys Jira returned no issue under.
    run_check(hub, neighbors=[issue("OPS-7", id=jira_id("AURORA-12"), summary="Moved away")],
              missing=["AURORA-12"])
    assert db_rows(hub, "SELECT key, summary, gone_at FROM issue WHERE id = ?", jira_id("AURORA-12")) == [
        ("OPS-7", "Moved away", None)]
    assert db_rows(hub, "SELECT old_key, key FROM issue_alias") == [("AURORA-12", "OPS-7")]
    assert db_rows(hub, "SELECT count(*) FROM issue WHERE gone_at IS NOT NULL") == [(0,)]


def test_a_key_the_check_did_not_ask_for_is_not_marked_gone(hub):
    with_projects()
    load(hub, [issue("AURORA-3")], jql="key = AURORA-3")
    full_run(hub, ["AURORA-1", "AURORA-2"])
    run_check(hub, missing=["AURORA-3", "AURORA-2"])
    assert db_rows(hub, "SELECT key FROM issue WHERE gone_at IS NOT NULL") == [("AURORA-3",)]


def test_gone_issues_are_left_out_of_lists_and_search_by_default_and_in_on_asking(hub):
    mirror_with_one_gone(hub)
    assert listed_keys(hub) == ["AURORA-1", "AURORA-2"]
    assert listed_keys(hub, gone="false") == ["AURORA-1", "AURORA-2"]
    assert listed_keys(hub, gone="true") == ["AURORA-3"]
    assert listed_keys(hub, gone="any") == ["AURORA-1", "AURORA-2", "AURORA-3"]
    assert listed_keys(hub, q="Summary") == ["AURORA-1", "AURORA-2"]
    assert listed_keys(hub, q="Summary", gone="true") == ["AURORA-3"]
    assert listed_keys(hub, q="Summary", gone="any") == ["AURORA-1", "AURORA-2", "AURORA-3"]
    # The neighbour listing too: AURORA-3 became a neighbour before it was found gone.
    assert listed_keys(hub, neighbor=1) == []
    assert listed_keys(hub, neighbor=1, gone="any") == ["AURORA-3"]
    first = hub.api("GET", "/api/v1/issues").json
    assert first["total"] == 2
    assert {item["key"]: item["gone"] for item in hub.api("GET", "/api/v1/issues",
                                                          params={"gone": "any"}).json["items"]} == {
        "AURORA-1": False, "AURORA-2": False, "AURORA-3": True}
    resp = hub.api("GET", "/api/v1/issues", params={"gone": "maybe"})
    assert resp.status_code == 422 and resp.json["field"] == "gone"


def test_the_detail_answers_a_gone_issue_and_marks_gone_links_and_subtasks(hub):
    with_projects()
    load(hub, [issue("AURORA-3", parent_key="AURORA-1")], jql="key = AURORA-3")
    full_run(hub, ["AURORA-1"])
    hub.api("GET", "/api/v1/issues/AURORA-1")
    run_check(hub)
    load(hub, [issue("AURORA-1", links=[{"type": "Blocks", "outward": "AURORA-3"}])], jql="key = AURORA-1")
    resp = hub.api("GET", "/api/v1/issues/AURORA-3")
    assert resp.status_code == 200
    gone = resp.json
    assert gone["gone"] is True and gone["gone_reason"] == GONE_REASON and gone["gone_at"]
    parent = hub.api("GET", "/api/v1/issues/AURORA-1").json
    assert parent["gone"] is False and parent["gone_at"] is None and parent["gone_reason"] is None
    assert [(task["key"], task["gone"]) for task in parent["subtasks"]] == [("AURORA-3", True)]
    assert [(link["key"], link["gone"]) for link in parent["links"]["outward"]] == [("AURORA-3", True)]
    # The list of the parent's sub-tasks leaves it out, as every list does, unless asked.
    assert listed_keys(hub, parent="AURORA-1") == []
    assert listed_keys(hub, parent="AURORA-1", gone="any") == ["AURORA-3"]


def test_a_state_loaded_for_a_gone_issue_brings_it_back(hub):
    mirror_with_one_gone(hub)
    load(hub, [], neighbors=[issue("AURORA-3", summary="Back again")], jql="key = AURORA-9")
    assert db_rows(hub, "SELECT summary, gone_at, gone_reason FROM issue WHERE key = 'AURORA-3'") == [
        ("Back again", None, None)]
    assert listed_keys(hub) == ["AURORA-1", "AURORA-2", "AURORA-3"]


def test_the_overview_and_the_metrics_count_gone_issues(hub):
    assert hub.api("GET", "/api/v1/overview").json["gone_issues"] == 0
    mirror_with_one_gone(hub)
    assert hub.api("GET", "/api/v1/overview").json["gone_issues"] == 1
    text = hub.client.simulate_get("/metrics", headers=hub.headers("admin")).text
    assert "\nhub_issues_gone 1.0\n" in text


def test_a_check_reports_what_jira_returned_as_neighbours_only(hub):
    with_projects()
    load(hub, [issue("AURORA-3")], jql="key = AURORA-3")
    full_run(hub, ["AURORA-1"])
    [command] = claim(hub, version=16, types=["check_issues"])
    resp = report(hub, command["id"], "state", {"issues": [issue("AURORA-3")]})
    assert resp.status_code == 422 and resp.json["field"] == "issues"


def test_bad_check_results_answer_422_naming_the_field_and_change_nothing(hub):
    with_projects()
    load(hub, [issue("AURORA-3")], jql="key = AURORA-3")
    full_run(hub, ["AURORA-1"])
    [command] = claim(hub, version=16, types=["check_issues"])
    done = f"/agent/v1/commands/{command['id']}/done"
    for result, field in [({"checked": 0}, "result"), ({"missing": []}, "result"),
                          ({"checked": -1, "missing": []}, "result"),
                          ({"checked": 0, "missing": "AURORA-3"}, "result"),
                          ({"checked": 0, "missing": ["aurora-3"]}, "result"),
                          ({"checked": 0, "missing": [f"AURORA-{n}" for n in range(1, 502)]}, "result"),
                          ({"total": 1}, "result.checked"), ({"sha256": "a" * 64, "size": 1}, "result.checked")]:
        resp = hub.agent("POST", done, {"result": result})
        assert resp.status_code == 422, (result, resp.json)
        assert resp.json["field"].startswith(field), (result, resp.json)
    assert db_rows(hub, "SELECT status FROM command WHERE id = ?", command["id"]) == [("claimed",)]
    assert db_rows(hub, "SELECT count(*) FROM issue WHERE gone_at IS NOT NULL") == [(0,)]
    # The right result, twice: 200 both times, the second changing nothing.
    good = {"result": {"checked": 1, "missing": ["AURORA-3"]}}
    assert hub.agent("POST", done, good).status_code == 200
    assert hub.agent("POST", done, good).status_code == 200
    other = hub.agent("POST", done, {"result": {"checked": 1, "missing": []}})
    assert other.status_code == 409
