"""The demo Jira takes writes as Jira Server/DC 9's REST API v2 does, over real HTTP, as a client sends them."""

from __future__ import annotations

import threading

import httpx
import pytest

from demo.fakejira import FakeJira
from demo.fakejira_writes import Fault

API = "/rest/api/2"


@pytest.fixture
def jira():
    fake = FakeJira().start()
    fake.add_issue("AURORA-1", labels=["AWPCA"])
    fake.add_issue("AURORA-2", status="In Progress")
    fake.user_tokens = {"pat-alice": "alice"}
    yield fake
    fake.stop()


def client(fake: FakeJira, token: str | None = None) -> httpx.Client:
    return httpx.Client(base_url=fake.url, headers={"Authorization": f"Bearer {token or fake.token}"}, timeout=5)


def history(fake: FakeJira, key: str) -> list[dict]:
    return fake.issues[key]["changelog"]["histories"]


# --- comments and entity properties ------------------------------------------------------------

def test_a_comment_posted_with_a_property_is_listed_with_it_when_properties_are_expanded(jira):
    with client(jira) as http:
        marker = [{"key": "sdlc-hub.write", "value": {"write": 17}}]
        made = http.post(f"{API}/issue/AURORA-1/comment", json={"body": "Done *here*", "properties": marker})
        assert made.status_code == 201
        assert made.json()["body"] == "Done *here*" and made.json()["author"]["name"] == "ivanov"
        listed = http.get(f"{API}/issue/AURORA-1/comment", params={"expand": "properties"}).json()
        assert listed["comments"][0]["properties"] == [{"key": "sdlc-hub.write", "value": {"write": 17}}]
        plain = http.get(f"{API}/issue/AURORA-1/comment").json()
        assert "properties" not in plain["comments"][0]


def test_a_comment_without_a_body_is_refused_with_jiras_400(jira):
    with client(jira) as http:
        answer = http.post(f"{API}/issue/AURORA-1/comment", json={"body": " "})
    assert answer.status_code == 400
    assert answer.json() == {"errorMessages": [], "errors": {"comment": "Comment body can not be empty!"}}


def test_a_comment_edited_keeps_its_id_and_names_who_edited_it(jira):
    with client(jira) as http:
        cid = http.post(f"{API}/issue/AURORA-1/comment", json={"body": "one"}).json()["id"]
        with client(jira, "pat-alice") as alice:
            edited = alice.put(f"{API}/issue/AURORA-1/comment/{cid}", json={"body": "two"})
        assert edited.status_code == 200
        assert (edited.json()["id"], edited.json()["body"]) == (cid, "two")
        assert edited.json()["updateAuthor"]["name"] == "alice" and edited.json()["author"]["name"] == "ivanov"
        assert http.put(f"{API}/issue/AURORA-1/comment/999", json={"body": "x"}).status_code == 404


def test_a_comment_property_is_put_then_read_back(jira):
    with client(jira) as http:
        cid = http.post(f"{API}/issue/AURORA-1/comment", json={"body": "one"}).json()["id"]
        path = f"{API}/comment/{cid}/properties/sdlc-hub.write"
        assert http.get(path).status_code == 404
        assert http.put(path, json={"write": 3}).status_code == 201
        assert http.put(path, json={"write": 4}).status_code == 200
        assert http.get(path).json() == {"key": "sdlc-hub.write", "value": {"write": 4}}


def test_a_write_made_with_a_users_token_is_authored_by_that_user(jira):
    with client(jira, "pat-alice") as alice:
        assert alice.get(f"{API}/myself").json()["name"] == "alice"
        assert alice.post(f"{API}/issue/AURORA-1/comment", json={"body": "hi"}).json()["author"]["name"] == "alice"
    with client(jira, "pat-nobody") as nobody:
        assert nobody.get(f"{API}/myself").status_code == 401


# --- transitions -----------------------------------------------------------------------------

def test_transitions_offered_from_open_carry_their_screens_when_fields_are_expanded(jira):
    with client(jira) as http:
        listed = http.get(f"{API}/issue/AURORA-1/transitions", params={"expand": "transitions.fields"}).json()
    by_id = {t["id"]: t for t in listed["transitions"]}
    assert {t["name"] for t in listed["transitions"]} == {"Start Progress", "Resolve Issue", "Close Issue"}
    assert by_id["4"]["to"]["name"] == "In Progress" and by_id["4"]["fields"] == {}
    resolution = by_id["5"]["fields"]["resolution"]
    assert resolution["required"] is True and resolution["schema"] == {"type": "resolution", "system": "resolution"}
    assert "Won't Fix" in [v["name"] for v in resolution["allowedValues"]]


def test_a_transition_changes_status_and_resolution_and_leaves_a_history(jira):
    with client(jira, "pat-alice") as http:
        answer = http.post(f"{API}/issue/AURORA-2/transitions",
                           json={"transition": {"id": "5"}, "fields": {"resolution": {"name": "Fixed"}},
                                 "update": {"comment": [{"add": {"body": "Fixed in 2.3"}}]}})
    assert answer.status_code == 204 and answer.content == b""
    fields = jira.issues["AURORA-2"]["fields"]
    assert fields["status"]["name"] == "Resolved" and fields["resolution"]["name"] == "Fixed"
    assert fields["resolutiondate"] and fields["updated"] > "2026-11"
    assert fields["comment"]["comments"][-1]["body"] == "Fixed in 2.3"
    [last] = history(jira, "AURORA-2")
    assert last["author"]["name"] == "alice"
    assert [(i["field"], i["fromString"], i["toString"]) for i in last["items"]] == [
        ("status", "In Progress", "Resolved"), ("resolution", None, "Fixed")]


def test_a_comment_sent_with_a_transition_without_a_screen_is_dropped_as_jira_drops_it(jira):
    with client(jira) as http:
        answer = http.post(f"{API}/issue/AURORA-1/transitions",
                           json={"transition": {"id": "4"}, "update": {"comment": [{"add": {"body": "lost"}}]}})
    assert answer.status_code == 204
    assert jira.issues["AURORA-1"]["fields"]["status"]["name"] == "In Progress"
    assert jira.issues["AURORA-1"]["fields"]["comment"]["comments"] == []


def test_a_transition_without_its_required_resolution_is_refused_naming_the_field(jira):
    with client(jira) as http:
        answer = http.post(f"{API}/issue/AURORA-1/transitions", json={"transition": {"id": "5"}})
    assert answer.status_code == 400
    assert answer.json() == {"errorMessages": [], "errors": {"resolution": "Resolution is required."}}
    assert jira.issues["AURORA-1"]["fields"]["status"]["name"] == "Open"


def test_a_transition_not_offered_from_the_status_is_refused_in_jiras_words(jira):
    with client(jira) as http:
        answer = http.post(f"{API}/issue/AURORA-1/transitions", json={"transition": {"id": "3"}})
    assert answer.status_code == 400
    assert answer.json()["errorMessages"][0].startswith(
        "It seems that you have tried to perform a workflow operation (Reopen Issue) that is not valid")


def test_a_review_step_requires_logged_work_and_logs_it(jira):
    with client(jira) as http:
        refused = http.post(f"{API}/issue/AURORA-2/transitions", json={"transition": {"id": "711"}})
        assert refused.json()["errors"] == {"worklog": "Log Work is required."}
        done = http.post(f"{API}/issue/AURORA-2/transitions",
                         json={"transition": {"id": "711"}, "update": {"worklog": [{"add": {"timeSpent": "1h 30m"}}]}})
    assert done.status_code == 204
    fields = jira.issues["AURORA-2"]["fields"]
    assert fields["status"]["name"] == "Review" and fields["timespent"] == 5400


def test_a_field_not_on_a_transitions_screen_is_refused(jira):
    with client(jira) as http:
        answer = http.post(f"{API}/issue/AURORA-1/transitions",
                           json={"transition": {"id": "4"}, "fields": {"summary": "x"}})
    assert answer.json()["errors"] == {
        "summary": "Field 'summary' cannot be set. It is not on the appropriate screen, or unknown."}


def test_search_expands_transitions_editmeta_and_issue_properties(jira):
    with client(jira) as http:
        assert http.put(f"{API}/issue/AURORA-1/properties/sdlc-hub.write", json={"write": 5}).status_code == 201
        page = http.post(f"{API}/search", json={"jql": "key = AURORA-1", "fields": ["summary"],
                                                "expand": ["transitions", "editmeta"],
                                                "properties": ["sdlc-hub.write"]}).json()
    [issue] = page["issues"]
    assert [t["id"] for t in issue["transitions"]] == ["4", "5", "2"]
    assert issue["editmeta"]["fields"]["priority"]["allowedValues"][0]["name"] == "Blocker"
    assert issue["properties"] == {"sdlc-hub.write": {"write": 5}}


# --- faults ----------------------------------------------------------------------------------

def test_a_lost_answer_applies_the_write_but_the_client_sees_the_connection_drop(jira):
    jira.faults.append(("lose_answer", "POST", r"/comment$"))
    with client(jira) as http, pytest.raises(httpx.RemoteProtocolError):
        http.post(f"{API}/issue/AURORA-1/comment", json={"body": "once"})
    assert [c["body"] for c in jira.issues["AURORA-1"]["fields"]["comment"]["comments"]] == ["once"]
    assert jira.faults == [] and jira.writes.fired == [("lose_answer", "POST", "/rest/api/2/issue/AURORA-1/comment")]


def test_a_gateway_timeout_applies_the_write_and_answers_a_proxys_504(jira):
    jira.faults.append(Fault("gateway_timeout", "POST", r"/transitions$"))
    with client(jira) as http:
        answer = http.post(f"{API}/issue/AURORA-1/transitions", json={"transition": {"id": "4"}})
    assert answer.status_code == 504 and answer.headers["content-type"] == "text/html"
    assert jira.issues["AURORA-1"]["fields"]["status"]["name"] == "In Progress"


def test_a_dropped_request_is_not_applied(jira):
    jira.faults.append(Fault("drop", "POST", r"/comment$", times=2))
    with client(jira) as http:
        for _ in range(2):
            with pytest.raises(httpx.RemoteProtocolError):
                http.post(f"{API}/issue/AURORA-1/comment", json={"body": "never"})
        assert http.post(f"{API}/issue/AURORA-1/comment", json={"body": "third"}).status_code == 201
    assert [c["body"] for c in jira.issues["AURORA-1"]["fields"]["comment"]["comments"]] == ["third"]


def test_a_jira_that_is_down_answers_503_then_refuses_connections_when_stopped(jira):
    jira.down = True
    with client(jira) as http:
        assert http.get(f"{API}/myself").status_code == 503
        jira.down = False
        assert http.get(f"{API}/myself").status_code == 200
    port = jira.stop()
    # The serving loop lets go of the listening socket when it next wakes: until then a connection
    # may still be taken and reset.
    refused = False
    with client(jira) as http:
        for _ in range(50):
            try:
                http.get(f"{API}/myself")
            except httpx.ConnectError:
                refused = True
                break
            except httpx.TransportError:
                threading.Event().wait(0.1)
    assert refused
    jira.start(port)
    with client(jira) as http:
        assert http.get(f"{API}/myself").status_code == 200


# --- edits ---------------------------------------------------------------------------------------

def test_an_edit_sets_adds_and_removes_and_leaves_one_history(jira):
    jira.issues["AURORA-1"]["fields"]["fixVersions"] = [{"id": "10100", "name": "2.2"}]
    with client(jira) as http:
        answer = http.put(f"{API}/issue/AURORA-1", json={
            "fields": {"summary": "New summary", "priority": {"name": "Critical"}, "duedate": "2026-12-31"},
            "update": {"labels": [{"add": "urgent"}, {"remove": "AWPCA"}],
                       "fixVersions": [{"add": {"name": "2.3"}}, {"remove": {"name": "2.2"}}]}})
    assert answer.status_code == 204
    fields = jira.issues["AURORA-1"]["fields"]
    assert (fields["summary"], fields["priority"]["name"]) == ("New summary", "Critical")
    assert fields["duedate"] == "2026-12-31"
    assert fields["labels"] == ["urgent"] and [v["name"] for v in fields["fixVersions"]] == ["2.3"]
    [last] = history(jira, "AURORA-1")
    assert {i["field"] for i in last["items"]} == {"summary", "priority", "duedate", "labels", "Fix Version"}


def test_an_edit_of_a_field_not_on_the_screen_is_refused_and_writes_nothing(jira):
    with client(jira) as http:
        answer = http.put(f"{API}/issue/AURORA-1", json={"fields": {"summary": "x", "status": {"name": "Done"}}})
    assert answer.status_code == 400
    assert answer.json()["errors"] == {
        "status": "Field 'status' cannot be set. It is not on the appropriate screen, or unknown."}
    assert jira.issues["AURORA-1"]["fields"]["summary"] == "Summary AURORA-1"


def test_an_edit_with_a_value_jira_does_not_know_names_the_field(jira):
    with client(jira) as http:
        answer = http.put(f"{API}/issue/AURORA-1", json={"fields": {"fixVersions": [{"name": "9.9"}]}})
    assert answer.json() == {"errorMessages": [], "errors": {"fixVersions": "Version name '9.9' is not valid"}}


def test_editmeta_lists_the_edit_screen_with_allowed_values(jira):
    with client(jira) as http:
        fields = http.get(f"{API}/issue/AURORA-1/editmeta").json()["fields"]
    assert {"summary", "description", "priority", "assignee", "labels", "fixVersions", "timetracking"} <= set(fields)
    assert fields["labels"]["operations"] == ["add", "set", "remove"]
    assert [v["name"] for v in fields["fixVersions"]["allowedValues"]] == ["2.2", "2.3", "2.4"]


def test_an_issue_read_gives_the_fields_asked_for(jira):
    with client(jira) as http:
        issue = http.get(f"{API}/issue/AURORA-1", params={"fields": "status,labels"}).json()
    assert issue["key"] == "AURORA-1" and set(issue["fields"]) == {"status", "labels"}
    assert "changelog" not in issue


# --- work logs -------------------------------------------------------------------------------

def test_logged_work_reduces_the_remaining_estimate_and_takes_a_property(jira):
    jira.issues["AURORA-1"]["fields"].update(timeoriginalestimate=28800, timeestimate=14400)
    with client(jira, "pat-alice") as http:
        made = http.post(f"{API}/issue/AURORA-1/worklog", params={"adjustEstimate": "auto"},
                         json={"timeSpent": "1h 30m", "started": "2026-12-07T10:00:00.000+0300", "comment": "x"})
        assert made.status_code == 201
        entry = made.json()
        assert (entry["timeSpentSeconds"], entry["author"]["name"], entry["timeSpent"]) == (5400, "alice", "1h 30m")
        path = f"{API}/issue/AURORA-1/worklog/{entry['id']}/properties/sdlc-hub.write"
        assert http.put(path, json={"write": 9}).status_code == 201
        assert http.get(path).json()["value"] == {"write": 9}
    fields = jira.issues["AURORA-1"]["fields"]
    assert (fields["timespent"], fields["timeestimate"]) == (5400, 9000)


def test_logged_work_with_a_new_estimate_sets_it_and_needs_one(jira):
    with client(jira) as http:
        refused = http.post(f"{API}/issue/AURORA-1/worklog", params={"adjustEstimate": "new"}, json={"timeSpent": "1h"})
        assert refused.json()["errors"] == {"newEstimate": "You must supply a valid new estimate."}
        http.post(f"{API}/issue/AURORA-1/worklog", params={"adjustEstimate": "new", "newEstimate": "1d"},
                  json={"timeSpentSeconds": 600})
    assert jira.issues["AURORA-1"]["fields"]["timeestimate"] == 8 * 3600


def test_logged_work_of_a_time_jira_cannot_read_is_refused(jira):
    with client(jira) as http:
        answer = http.post(f"{API}/issue/AURORA-1/worklog", json={"timeSpent": "soon"})
    assert answer.json() == {"errorMessages": [], "errors": {"timeLogged": "Invalid time duration entered."}}


# --- new issues, the create screens ---------------------------------------------------------

def test_a_new_issue_gets_the_next_key_its_reporter_and_its_property(jira):
    with client(jira, "pat-alice") as http:
        made = http.post(f"{API}/issue", json={
            "fields": {"project": {"key": "AURORA"}, "issuetype": {"name": "Bug"}, "summary": "Broken",
                       "labels": ["x"]},
            "properties": [{"key": "sdlc-hub.write", "value": {"write": 21}}]})
        assert made.status_code == 201 and made.json()["key"] == "AURORA-3"
        page = http.post(f"{API}/search", json={"jql": "project = AURORA AND created >= \"2026/12/01 00:00\"",
                                                "properties": ["sdlc-hub.write"], "fields": ["reporter"]}).json()
    [issue] = page["issues"]
    assert issue["key"] == "AURORA-3" and issue["properties"] == {"sdlc-hub.write": {"write": 21}}
    assert issue["fields"]["reporter"]["name"] == "alice"


def test_a_new_issue_without_what_its_screen_requires_is_refused_naming_each_field(jira):
    with client(jira) as http:
        epic = {"project": {"key": "AURORA"}, "issuetype": {"name": "Epic"}}
        answer = http.post(f"{API}/issue", json={"fields": epic})
        subtask = http.post(f"{API}/issue", json={
            "fields": {"project": {"key": "AURORA"}, "issuetype": {"name": "Sub-task"}, "summary": "s"}})
        created = http.post(f"{API}/issue", json={
            "fields": {"project": {"key": "AURORA"}, "issuetype": {"name": "Sub-task"}, "summary": "s",
                       "parent": {"key": "AURORA-1"}}})
    assert answer.status_code == 400
    assert answer.json()["errors"] == {"summary": "You must specify a summary of the issue.",
                                       "customfield_10301": "Epic Name is required."}
    assert subtask.json()["errors"] == {
        "issuetype": "Issue type is a sub-task but parent issue key or id not specified."}
    assert created.status_code == 201
    assert jira.issues["AURORA-1"]["fields"]["subtasks"][0]["key"] == created.json()["key"]


def test_createmeta_answers_in_the_paged_shape_of_jira_9_and_the_older_one_only_when_asked(jira):
    with client(jira) as http:
        gone = http.get(f"{API}/issue/createmeta", params={"projectKeys": "AURORA"})
        assert (gone.status_code, gone.json()["errorMessages"]) == (404, ["Issue Does Not Exist"])
        jira.writes.creation.createmeta = "both"
        kinds = http.get(f"{API}/issue/createmeta/AURORA/issuetypes").json()
        bug = next(k for k in kinds["values"] if k["name"] == "Bug")
        fields = http.get(f"{API}/issue/createmeta/AURORA/issuetypes/{bug['id']}").json()
        old = http.get(f"{API}/issue/createmeta", params={"projectKeys": "AURORA",
                                                          "expand": "projects.issuetypes.fields"}).json()
        jira.writes.creation.createmeta = "new"
        assert http.get(f"{API}/issue/createmeta", params={"projectKeys": "AURORA"}).status_code == 404
    assert kinds["isLast"] is True and kinds["total"] == len(kinds["values"])
    summary = next(f for f in fields["values"] if f["fieldId"] == "summary")
    assert summary["required"] is True and summary["name"] == "Summary"
    [project] = old["projects"]
    old_bug = next(k for k in project["issuetypes"] if k["name"] == "Bug")
    assert old_bug["fields"]["summary"]["required"] is True


# --- links and attachments --------------------------------------------------------------------

def test_a_link_is_made_from_the_inward_issue_listed_on_both_and_deleted(jira):
    with client(jira) as http:
        made = http.post(f"{API}/issueLink", json={"type": {"name": "Blocks"}, "inwardIssue": {"key": "AURORA-1"},
                                                   "outwardIssue": {"key": "AURORA-2"}})
        assert made.status_code == 201 and made.content == b""
        [link] = jira.issues["AURORA-1"]["fields"]["issuelinks"]
        assert link["outwardIssue"]["key"] == "AURORA-2" and link["type"]["outward"] == "blocks"
        assert jira.issues["AURORA-2"]["fields"]["issuelinks"][0]["inwardIssue"]["key"] == "AURORA-1"
        again = http.post(f"{API}/issueLink", json={"type": {"name": "Blocks"}, "inwardIssue": {"key": "AURORA-1"},
                                                    "outwardIssue": {"key": "AURORA-2"}})
        assert again.status_code == 201 and len(jira.issues["AURORA-1"]["fields"]["issuelinks"]) == 1
        assert http.get(f"{API}/issueLink/{link['id']}").json()["inwardIssue"]["key"] == "AURORA-1"
        assert http.delete(f"{API}/issueLink/{link['id']}").status_code == 204
        assert http.delete(f"{API}/issueLink/{link['id']}").status_code == 404
    assert jira.issues["AURORA-1"]["fields"]["issuelinks"] == jira.issues["AURORA-2"]["fields"]["issuelinks"] == []


def test_an_attachment_needs_the_xsrf_header_and_is_kept(jira):
    upload = {"file": ("Отчёт №1.png", b"\x89PNG data", "image/png")}
    with client(jira) as http:
        refused = http.post(f"{API}/issue/AURORA-1/attachments", files=upload)
        assert (refused.status_code, refused.text) == (403, "XSRF check failed")
        made = http.post(f"{API}/issue/AURORA-1/attachments", files=upload,
                         headers={"X-Atlassian-Token": "no-check"})
    assert made.status_code == 200
    [bean] = made.json()
    assert (bean["filename"], bean["size"], bean["mimeType"]) == ("Отчёт №1.png", 9, "image/png")
    assert jira.files[bean["id"]] == b"\x89PNG data"
    assert jira.issues["AURORA-1"]["fields"]["attachment"][-1]["id"] == bean["id"]


def test_a_slow_jira_takes_its_time_over_writes_only(jira):
    import time

    jira.slow = 0.3
    with client(jira) as http:
        began = time.monotonic()
        http.get(f"{API}/myself")
        read = time.monotonic() - began
        http.post(f"{API}/issue/AURORA-1/comment", json={"body": "slow"})
        written = time.monotonic() - began - read
    assert read < 0.3 <= written
