"""What the MCP tests check through every transport: the same calls and answers, whether the
client reaches ``hub mcp`` in-process, over stdio or over Streamable HTTP.

The hub behind it is :func:`tests.support.seeded_hub`; the client is an ``mcp.Client``.
"""

from __future__ import annotations

import base64

import httpx
from mcp import Client
from mcp_types import CallToolResult

from hub.vocabulary import ISSUE_KEY_PATTERN, JIRA_ID_PATTERN
from tests.support import BASE, MCP_FILES, PNG, TEXT_FILE, call, scripted_agent

TOOLS = {"search_issues", "get_issue", "get_comments", "get_changelog", "get_worklogs", "list_sprints",
         "list_projects", "list_filters", "run_filter", "sync_status", "request_refresh", "fetch_attachment",
         "read_attachment", "list_notes", "add_note"}
# The tools that write to Jira, which `hub mcp --read-only` leaves out.
WRITE_TOOLS = {"add_comment", "transition_issue", "update_issue", "log_work", "create_issue", "link_issues",
               "get_write"}
TOOLS = TOOLS | WRITE_TOOLS
READ_ONLY = {"search_issues", "get_issue", "get_comments", "get_changelog", "get_worklogs", "list_sprints",
             "list_projects", "list_filters", "run_filter", "sync_status", "read_attachment", "list_notes",
             "get_write"}



class CountingTransport(httpx.AsyncBaseTransport):
    """The MCP server's way to the hub, counting its requests: ``sent`` holds ``(method, path)``.

    Every tool call's client closes its transport; this one stays open for the next until
    :meth:`close`.
    """

    def __init__(self):
        self.sent: list[tuple[str, str]] = []
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((request.method, request.url.raw_path.decode()))
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        """Kept open: the next tool call's client uses it too."""

    async def close(self) -> None:
        await self._inner.aclose()


async def ok(client: Client, name: str, arguments: dict | None = None) -> CallToolResult:
    result = await client.call_tool(name, arguments or {})
    assert not result.is_error, (name, arguments, result.content)
    return result


async def data(client: Client, name: str, arguments: dict | None = None) -> dict:
    return (await ok(client, name, arguments)).structured_content


async def refused(client: Client, name: str, arguments: dict, *words: str) -> str:
    """The call is a tool error whose text holds every one of ``words``; its text."""
    result = await client.call_tool(name, arguments)
    text = " ".join(block.text for block in result.content if block.type == "text")
    assert result.is_error, (name, arguments, result.structured_content)
    assert all(word in text for word in words), (words, text)
    assert "Traceback" not in text
    return text


async def check_tool_list(client: Client) -> None:
    """Every tool, each with a description, an input and an output schema, read-only where true."""
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert len(tool.description) > 60, name
        assert tool.input_schema["type"] == "object" and tool.output_schema, name
        assert tool.annotations.read_only_hint is (name in READ_ONLY), name
    search = tools["search_issues"].input_schema["properties"]
    assert {"q", "jql", "project", "issue_type", "sprint", "updated_since", "limit", "cursor", "resolution",
            "component", "fix_version", "affects_version", "parent", "gone", "sort"} <= set(search)
    assert "ORDER BY" in tools["search_issues"].description and "currentUser()" in tools["search_issues"].description
    assert tools["run_filter"].input_schema["required"] == ["filter_id"]
    assert search["parent"]["anyOf"][0]["pattern"] == ISSUE_KEY_PATTERN
    assert tools["get_worklogs"].input_schema["required"] == ["key"]
    assert tools["list_sprints"].input_schema["properties"]["state"]["anyOf"][0]["enum"] == [
        "future", "active", "closed"]
    assert {"custom_fields", "time_tracking", "worklogs", "subtasks"} <= set(
        tools["get_issue"].output_schema["properties"])
    assert search["limit"]["maximum"] == 100 and search["q"]["anyOf"][0]["type"] == "string"
    assert tools["get_issue"].input_schema["required"] == ["key"]
    # The shapes of keys and ids are in the schemas, for clients that check before they call.
    assert tools["get_issue"].input_schema["properties"]["key"]["pattern"] == ISSUE_KEY_PATTERN
    assert tools["read_attachment"].input_schema["properties"]["attachment_id"]["pattern"] == JIRA_ID_PATTERN
    assert tools["add_note"].input_schema["required"] == ["key", "body"]
    assert tools["add_note"].annotations.destructive_hint is False
    assert {"items", "total", "next_cursor"} <= set(tools["search_issues"].output_schema["properties"])
    assert {"kind", "text", "truncated", "download_url"} <= set(tools["read_attachment"].output_schema["properties"])


async def check_reading(client: Client) -> None:
    """The mirror's read tools, with good and bad arguments."""
    everything = await data(client, "search_issues")
    assert [i["key"] for i in everything["items"]] == ["AURORA-3", "AURORA-2", "AURORA-1"]
    assert everything["total"] == 3 and everything["next_cursor"] is None  # counted on the first page
    first = await data(client, "search_issues", {"limit": 2})
    rest = await data(client, "search_issues", {"limit": 2, "cursor": first["next_cursor"]})
    assert [i["key"] for i in first["items"] + rest["items"]] == ["AURORA-3", "AURORA-2", "AURORA-1"]
    assert rest["next_cursor"] is None
    done = await data(client, "search_issues", {"status": "Done", "label": "AWPCA"})
    assert [i["key"] for i in done["items"]] == ["AURORA-2"]
    # Full-text search: ranked, with a snippet; a word only a comment holds; odd syntax is the hub's 422.
    cards = await data(client, "search_issues", {"q": "cards"})
    assert cards["total"] == 2 and {i["key"] for i in cards["items"]} == {"AURORA-1", "AURORA-3"}
    assert all("[[" in i["snippet"] for i in cards["items"])
    in_comment = await data(client, "search_issues", {"q": "third", "label": "AWPCA"})
    assert [i["key"] for i in in_comment["items"]] == ["AURORA-1"]
    await refused(client, "search_issues", {"q": '"unbalanced'}, "q")
    await refused(client, "search_issues", {"limit": 0}, "limit")
    await refused(client, "search_issues", {"limit": 101}, "limit")
    await refused(client, "search_issues", {"status": ""}, "status")

    issue = await data(client, "get_issue", {"key": "AURORA-1"})
    # Text fields come as Markdown the hub renders from Jira's wiki markup; format=wiki as Jira holds them.
    assert issue["format"] == "markdown" and issue["fields"]["description"] == "# Cards\n**bold** text"
    assert "description_markdown" not in issue["fields"]
    wiki = await data(client, "get_issue", {"key": "AURORA-1", "format": "wiki", "include": ["comments"]})
    assert wiki["format"] == "jira-wiki" and wiki["fields"]["description"] == "h1. Cards\n*bold* text"
    assert wiki["comments"]["items"][0]["body"] == "first *wiki*"
    await refused(client, "get_issue", {"key": "AURORA-1", "format": "html"}, "format")
    assert issue["fields"]["summary"] == "Cards list" and issue["fields"]["status"] == "In Progress"
    assert issue["links"] == {
        "outward": [{"type": "Blocks", "phrase": "Blocks", "text": "Blocks AURORA-2", "key": "AURORA-2",
                     "summary": "Card details", "status": "Done", "in_mirror": True, "gone": False},
                    {"type": "Relates", "phrase": "Relates", "text": "Relates OTHER-9", "key": "OTHER-9",
                     "summary": None, "status": None, "in_mirror": False, "gone": False}],
        "inward": [{"type": "Relates", "phrase": "Relates", "text": "Relates AURORA-3", "key": "AURORA-3",
                    "summary": "Cards epic", "status": "Open", "in_mirror": True, "gone": False}]}
    assert issue["gone"] is None and issue["fields"]["gone"] is False
    assert [(a["attachment_id"], a["filename"], a["state"]) for a in issue["attachments"]] == [
        ("9001", "notes.txt", "none"), ("9002", "shot.png", "none"), ("9003", "spec.pdf", "none")]
    assert issue["comments"] is None and issue["changes"] is None
    full = await data(client, "get_issue", {"key": "AURORA-1", "include": ["comments", "changes"]})
    assert full["comments"]["total"] == 3 and full["changes"]["total"] == 2
    assert [c["body"] for c in full["comments"]["items"]] == ["first **wiki**", "second", "third"]
    linked = await data(client, "get_issue", {"key": "AURORA-2"})
    assert linked["links"]["inward"][0]["key"] == "AURORA-1" and linked["attachments"] == []
    await refused(client, "get_issue", {"key": "NOPE-1"}, "404", "no issue 'NOPE-1' in the mirror")
    await refused(client, "get_issue", {"key": "AURORA-1", "include": ["everything"]}, "include")
    await refused(client, "get_issue", {}, "key")

    page = await data(client, "get_comments", {"key": "AURORA-1", "limit": 2})
    assert page["format"] == "markdown" and page["total"] == 3 and page["next_cursor"] == 2
    assert page["items"][0]["body"] == "first **wiki**" and "body_markdown" not in page["items"][0]
    wiki_page = await data(client, "get_comments", {"key": "AURORA-1", "limit": 1, "format": "wiki"})
    assert wiki_page["format"] == "jira-wiki" and wiki_page["items"][0]["body"] == "first *wiki*"
    assert [c["id"] for c in page["items"]] == ["101", "102"]
    last = await data(client, "get_comments", {"key": "AURORA-1", "limit": 2, "cursor": 2})
    assert [c["id"] for c in last["items"]] == ["103"] and last["next_cursor"] is None and last["total"] == 3
    await refused(client, "get_comments", {"key": "NOPE-1"}, "no issue 'NOPE-1'")
    await refused(client, "get_comments", {"key": "AURORA-1", "limit": 0}, "limit")
    await refused(client, "get_comments", {"key": "AURORA-1", "cursor": -1}, "cursor")

    changes = await data(client, "get_changelog", {"key": "AURORA-1", "limit": 1})
    assert changes["total"] == 2 and changes["next_cursor"] == 1
    assert changes["items"][0]["field"] == "status" and changes["items"][0]["to_string"] == "In Progress"
    more = await data(client, "get_changelog", {"key": "AURORA-1", "cursor": 1})
    assert more["items"][0]["field"] == "assignee" and more["next_cursor"] is None
    await refused(client, "get_changelog", {"key": "NOPE-1"}, "no issue 'NOPE-1'")

    projects = await data(client, "list_projects")
    assert projects["base_jql"] == BASE and [p["label"] for p in projects["items"]] == ["AWPCA"]

    status = await data(client, "sync_status")
    assert status["agents_online"] == 1 and status["agents"][0]["agent_id"] == "a"
    assert status["last_runs"]["full"]["status"] == "done" and status["last_runs"]["incremental"] is None
    assert {"type": "refresh", "status": "done", "count": 1} in status["queue"]


async def check_notes(client: Client) -> None:
    assert (await data(client, "list_notes", {"key": "AURORA-1"}))["items"] == []
    note = await data(client, "add_note", {"key": "AURORA-1", "body": "Блокер снят, see *AURORA-2*"})
    assert note["author"] == "ui" and note["key"] == "AURORA-1"
    notes = await data(client, "list_notes", {"key": "AURORA-1"})
    assert [n["body"] for n in notes["items"]] == ["Блокер снят, see *AURORA-2*"]
    assert (await data(client, "get_issue", {"key": "AURORA-1"}))["notes"] == notes["items"]
    await refused(client, "add_note", {"key": "AURORA-1", "body": ""}, "body")
    await refused(client, "add_note", {"key": "NOPE-1", "body": "x"}, "no issue 'NOPE-1'")
    await refused(client, "list_notes", {"key": "NOPE-1"}, "no issue 'NOPE-1'")


async def check_filters(client: Client, url: str, interface: str) -> None:
    """The team's saved filters: listed, run; and JQL in search_issues."""
    assert (await data(client, "list_filters"))["items"] == []
    saved = call(url, interface, "/api/v1/filters", {"name": "Done", "jql": "status = done ORDER BY key"})
    listed = await data(client, "list_filters")
    assert [(f["id"], f["name"], f["jql"], f["owner"]) for f in listed["items"]] == [
        (saved["id"], "Done", "status = done ORDER BY key", "ui")]
    assert listed["next_cursor"] is None
    await refused(client, "run_filter", {"filter_id": 999}, "404", "no saved filter 999")
    await refused(client, "run_filter", {"filter_id": 0}, "filter_id")
    await refused(client, "list_filters", {"limit": 0}, "limit")
    ran = await data(client, "run_filter", {"filter_id": saved["id"]})
    assert [i["key"] for i in ran["items"]] == ["AURORA-2"] and ran["total"] == 1
    found = await data(client, "search_issues", {"jql": "status in (Done, Open) ORDER BY key ASC"})
    assert [i["key"] for i in found["items"]] == ["AURORA-2", "AURORA-3"]
    await refused(client, "search_issues", {"jql": "status = "}, "422", "Error in the JQL Query",
                  "(field jql, line 1, character 10)")
    await refused(client, "search_issues", {"jql": "assignee = currentUser()"}, "currentUser()")
    # An empty JQL is every issue, as Jira's search answers it; so is a filter saved empty.
    every = [i["key"] for i in (await data(client, "search_issues", {}))["items"]]
    assert [i["key"] for i in (await data(client, "search_issues", {"jql": ""}))["items"]] == every
    empty = call(url, interface, "/api/v1/filters", {"name": "Everything", "jql": ""})
    assert [i["key"] for i in (await data(client, "run_filter", {"filter_id": empty["id"]}))["items"]] == every


async def check_commands(client: Client, url: str, agent: str) -> None:
    """Refreshes and attachments, served by a scripted agent: read as text, as an image, described."""
    queued = await data(client, "request_refresh", {"jql": "key = AURORA-1"})
    assert queued["finished"] is False and queued["command"]["params"] == {"jql": "key = AURORA-1"}
    await refused(client, "request_refresh", {"wait_seconds": -1}, "wait_seconds")
    await refused(client, "request_refresh", {"jql": ""}, "jql")
    await refused(client, "fetch_attachment", {"attachment_id": "404404"}, "404", "no attachment '404404'")
    await refused(client, "read_attachment", {"attachment_id": "404404"}, "no attachment '404404'")
    await refused(client, "read_attachment", {"attachment_id": "9001"}, "not ready", "fetch_attachment")
    asked = await data(client, "fetch_attachment", {"attachment_id": "9001", "wait_seconds": 0})
    assert asked["ready"] is False and asked["attachment"]["state"] == "fetching"
    await refused(client, "read_attachment", {"attachment_id": "9001"}, "being fetched")
    await refused(client, "fetch_attachment", {"attachment_id": "9001", "wait_seconds": 301}, "wait_seconds")

    # The queued refresh, the text fetch, then the image, the PDF and one more refresh.
    agent_thread = scripted_agent(url, agent, MCP_FILES, 5)
    for aid in ("9001", "9002", "9003"):
        fetched = await data(client, "fetch_attachment", {"attachment_id": aid, "wait_seconds": 60})
        assert fetched["ready"] is True and fetched["attachment"]["state"] == "ready", fetched
        assert fetched["command"]["status"] == "done"
    waited = await data(client, "request_refresh", {"wait_seconds": 60})
    assert waited["finished"] is True and waited["command"]["status"] == "done"
    agent_thread.join(timeout=60)
    assert not agent_thread.is_alive()

    text = await ok(client, "read_attachment", {"attachment_id": "9001"})
    assert text.content[0].type == "text" and text.content[0].text == TEXT_FILE.decode()
    assert text.structured_content["kind"] == "text" and text.structured_content["truncated"] is False
    # 12 bytes end inside "т": the text stops before it instead of showing a broken character.
    cut = (await ok(client, "read_attachment", {"attachment_id": "9001", "max_bytes": 12})).structured_content
    assert cut["text"] == "line one\nс" and cut["truncated"] is True and cut["bytes_returned"] == 12
    image = await ok(client, "read_attachment", {"attachment_id": "9002"})
    assert image.content[0].type == "image" and image.content[0].mime_type == "image/png"
    assert base64.b64decode(image.content[0].data) == PNG and image.structured_content["kind"] == "image"
    pdf = await ok(client, "read_attachment", {"attachment_id": "9003"})
    assert pdf.structured_content["kind"] == "binary" and pdf.structured_content["text"] is None
    assert pdf.structured_content["download_url"] == f"{url}/api/v1/attachments/9003/content"
    assert f"{len(MCP_FILES['9003'])} bytes" in pdf.content[0].text
    await refused(client, "read_attachment", {"attachment_id": "9001", "max_bytes": 0}, "max_bytes")
    status = await data(client, "sync_status")
    assert status["store"]["files"] == 3


# Values that are not Jira keys or ids: a path, its parts, a Cyrillic А, a newline (a key in lower
# case is the key: tests/mcp/test_mcp.py).
HOSTILE_IDS = ("att-1/content", "..", "AURORA-1/notes", "aurora-1/notes", "\u0410URORA-1", "1\n")
# Each tool that takes a key or an attachment id, with its other arguments.
ID_TOOLS = (("get_issue", "key", {}), ("get_comments", "key", {}), ("get_changelog", "key", {}),
            ("get_worklogs", "key", {}), ("search_issues", "parent", {}), ("list_notes", "key", {}),
            ("add_note", "key", {"body": "x"}),
            ("fetch_attachment", "attachment_id", {"wait_seconds": 0}), ("read_attachment", "attachment_id", {}))


async def check_hostile_ids(client: Client) -> None:
    """Every tool that takes a key or an attachment id refuses what is not one, naming the argument."""
    for name, argument, rest in ID_TOOLS:
        for value in HOSTILE_IDS:
            if argument in ("key", "parent") and value == "1\n":
                value = "AURORA-1\n"  # a good key but for the newline, which $ alone would let through
            text = await refused(client, name, {argument: value, **rest}, argument, "should match pattern")
            assert "404" not in text and "hub answered" not in text, (name, value, text)


async def check_every_tool(client: Client, url: str, agent: str, interface: str) -> None:
    """The whole tour: the tool list, then every tool with good and bad arguments, then the whole
    of a Jira issue (loaded by a v15 agent once the commands are done)."""
    await check_tool_list(client)
    await check_reading(client)
    await check_hostile_ids(client)
    await check_notes(client)
    await check_filters(client, url, interface)
    await check_commands(client, url, agent)
    load_whole_issues(url, agent, interface)
    await check_whole_issue(client)


# The whole of a Jira issue (protocol v15), as a team's Jira holds it: AURORA-20 with every new
# field, two of its sub-tasks, an issue it blocks, one more in the active sprint; and the catalogues.
STARTED = "2026-10-22T13:05:11.000+0300"
SPRINTS = {
    23: {"id": 23, "name": "AURORA Sprint 13", "state": "closed", "start": "2026-09-24T09:00:00.000+03:00",
         "end": "2026-10-08T18:00:00.000+03:00", "complete": "2026-10-08T17:40:00.000+03:00", "board_id": 3,
         "goal": "Cards"},
    24: {"id": 24, "name": "AURORA Sprint 14", "state": "active", "start": "2026-10-09T09:00:00.000+03:00",
         "end": "2026-10-23T18:00:00.000+03:00", "complete": None, "board_id": 3, "goal": "Checkout"},
    25: {"id": 25, "name": "OTHER Sprint 2", "state": "future", "start": None, "end": None, "complete": None,
         "board_id": 7, "goal": None},
}
LONG_NOTE = "Шаг. " * 600  # 3,000 characters of a team's own text field


def worklog(wid: str, seconds: int, comment: str, author: str = "ivanov") -> dict:
    return {"id": wid, "author": author, "started": STARTED, "time_spent": seconds, "comment": comment,
            "created": STARTED, "updated": STARTED}


def whole_issues() -> list[dict]:
    """AURORA-20..24: every field of protocol v15 on AURORA-20, the rest for the filters."""
    version = {"id": "10100", "name": "2.3", "released": False, "release_date": "2026-12-20"}
    custom = {
        "customfield_10002": {"name": "Story Points", "type": "number",
                              "custom": "com.atlassian.jira.plugin.system.customfieldtypes:float", "value": 5.0},
        "customfield_10100": {"name": "Team", "type": "option", "custom": None, "value": "Platform"},
        "customfield_10101": {"name": "Team", "type": "string", "custom": None, "value": "Core"},
        "customfield_10200": {"name": "Platforms", "type": "array", "custom": None, "value": ["iOS", "Android"]},
        "customfield_10300": {"name": "Region", "type": "option-with-child", "custom": None,
                              "value": {"parent": "EMEA", "child": "Kazan"}},
        "customfield_10400": {"name": "Reviewer", "type": "user", "custom": None, "value": "petrov"},
        "customfield_10500": {"name": "Release notes", "type": "string", "custom": None, "value": LONG_NOTE},
        "customfield_10600": {"name": "Account", "type": "any", "custom": None, "value": {"id": 3, "key": "ACC"}},
    }
    return [
        {"key": "AURORA-20", "id": "20", "issue_type": "Story", "summary": "Checkout flow", "status": "Done",
         "priority": "Blocker", "assignee": "ivanov", "reporter": "petrov", "labels": ["AWPCA"],
         "resolution": "Fixed", "resolved": STARTED, "components": ["Web", "Payments"],
         "fix_versions": [version],
         "affects_versions": [{"id": "10090", "name": "2.2", "released": True, "release_date": "2026-10-01"}],
         "environment": "Firefox 130 on the *staging* stand", "time_original_estimate": 2 * 8 * 3600,
         "time_estimate": 12 * 3600, "time_spent": 9000, "sprint": "AURORA Sprint 14",
         "sprints": [SPRINTS[24], SPRINTS[23]], "custom_fields": custom,
         "worklogs": [worklog("40001", 3600, "the *form*"), worklog("40002", 1800, "review", "petrov"),
                      worklog("40003", 3600, "fixes")],
         "links": [{"type": "Blocks", "outward": "AURORA-21"}, {"type": "Blocks", "inward": "OTHER-7"}]},
        {"key": "AURORA-21", "id": "21", "summary": "Receipts", "status": "Open", "labels": ["AWPCA"]},
        *({"key": f"AURORA-{n}", "id": str(n), "issue_type": "Sub-task", "summary": f"Step {n}",
           "status": "Done", "parent_key": "AURORA-20", "labels": ["AWPCA"]} for n in (22, 23)),
        {"key": "AURORA-24", "id": "24", "summary": "Card limits", "status": "Open", "priority": "Minor",
         "labels": ["AWPCA"], "resolution": None, "components": ["Web"], "fix_versions": [version],
         "sprint": "OTHER Sprint 2", "sprints": [SPRINTS[24], SPRINTS[25]]},
    ]


CATALOGUES = {
    "priorities": [{"id": str(n), "name": name} for n, name in enumerate(("Blocker", "Major", "Minor"), 1)],
    "link_types": [{"id": "10000", "name": "Blocks", "outward": "blocks", "inward": "is blocked by"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Пётр Петров"}],
}


def load_whole_issues(url: str, agent: str, interface: str) -> None:
    """A refresh of AURORA-20..24 by a v15 agent: one state page with the catalogues."""
    command = call(url, interface, "/api/v1/commands", {"type": "refresh", "params": {"jql": "key >= AURORA-20"}})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": "a", "version": 15})["commands"]
    assert claimed["id"] == command["id"]
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
         {"issues": whole_issues(), "catalogues": CATALOGUES})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done", {"result": {"total": 5}})


async def check_whole_issue(client: Client) -> None:
    """Every field of protocol v15 through get_issue, the worklogs, the sprints and the new filters."""
    issue = await data(client, "get_issue", {"key": "AURORA-20"})
    fields = issue["fields"]
    assert (fields["resolution"], fields["resolved"]) == ("Fixed", STARTED)
    assert fields["resolved_at"].startswith("2026-10-22T10:05:11")
    assert fields["components"] == ["Web", "Payments"]
    assert [(v["name"], v["released"]) for v in fields["fix_versions"]] == [("2.3", False)]
    assert [(v["id"], v["name"], v["released"]) for v in fields["affects_versions"]] == [("10090", "2.2", True)]
    assert fields["environment"] == "Firefox 130 on the **staging** stand" and fields["parent_key"] is None
    assert [(s["id"], s["name"], s["state"]) for s in fields["sprints"]] == [
        (23, "AURORA Sprint 13", "closed"), (24, "AURORA Sprint 14", "active")]
    assert {"links", "subtasks", "custom_fields"}.isdisjoint(fields)
    assert issue["custom_fields"] == {
        "Account": '{"id":3,"key":"ACC"}', "Platforms": "iOS, Android", "Region": "EMEA / Kazan",
        "Release notes": LONG_NOTE[:999] + "…", "Reviewer": "petrov", "Story Points": "5",
        "Team (customfield_10100)": "Platform", "Team (customfield_10101)": "Core"}
    assert issue["time_tracking"] == {"original_estimate": "2d", "remaining": "1d 4h", "spent": "2h 30m"}
    assert issue["worklogs"] == {"count": 3, "time_spent": "2h 30m", "time_spent_seconds": 9000}
    assert [(s["key"], s["summary"], s["status"]) for s in issue["subtasks"]] == [
        ("AURORA-22", "Step 22", "Done"), ("AURORA-23", "Step 23", "Done")]
    [blocks], [blocked] = issue["links"]["outward"], issue["links"]["inward"]
    assert (blocks["phrase"], blocks["text"], blocks["summary"]) == ("blocks", "blocks AURORA-21", "Receipts")
    assert (blocked["text"], blocked["in_mirror"]) == ("is blocked by OTHER-7", False)
    step = await data(client, "get_issue", {"key": "AURORA-22"})
    assert step["fields"]["parent_key"] == "AURORA-20" and step["subtasks"] == [] and step["custom_fields"] == {}
    assert step["time_tracking"] == {"original_estimate": None, "remaining": None, "spent": None}
    assert step["worklogs"] == {"count": 0, "time_spent": "0m", "time_spent_seconds": 0}

    first = await data(client, "get_worklogs", {"key": "AURORA-20", "limit": 2})
    assert first["format"] == "markdown" and first["total"] == 3 and first["time_spent"] == "2h 30m"
    assert [(w["id"], w["time_spent_text"]) for w in first["items"]] == [("40001", "1h"), ("40002", "30m")]
    assert first["items"][1]["author_display"] == "Пётр Петров" and first["items"][0]["comment"] == "the **form**"
    wiki_logs = await data(client, "get_worklogs", {"key": "AURORA-20", "limit": 1, "format": "wiki"})
    assert wiki_logs["format"] == "jira-wiki" and wiki_logs["items"][0]["comment"] == "the *form*"
    rest = await data(client, "get_worklogs", {"key": "AURORA-20", "limit": 2, "cursor": first["next_cursor"]})
    assert [w["id"] for w in rest["items"]] == ["40003"] and rest["next_cursor"] is None and rest["total"] == 3
    await refused(client, "get_worklogs", {"key": "NOPE-1"}, "no issue 'NOPE-1'")
    await refused(client, "get_worklogs", {"key": "AURORA-20", "limit": 201}, "limit")
    await refused(client, "get_worklogs", {"key": "AURORA-20", "cursor": 0}, "cursor")

    sprints = await data(client, "list_sprints")
    assert [(s["id"], s["state"], s["issues"]) for s in sprints["items"]] == [
        (24, "active", 2), (25, "future", 1), (23, "closed", 1)]
    assert sprints["items"][0]["goal"] == "Checkout" and sprints["next_cursor"] is None
    closed = await data(client, "list_sprints", {"state": "closed", "board": 3})
    assert [(s["name"], s["start_date"], s["board_id"]) for s in closed["items"]] == [
        ("AURORA Sprint 13", SPRINTS[23]["start"], 3)]
    assert (await data(client, "list_sprints", {"board": 7}))["items"][0]["id"] == 25
    page = await data(client, "list_sprints", {"limit": 2})
    more = await data(client, "list_sprints", {"limit": 2, "cursor": page["next_cursor"]})
    assert [s["id"] for s in page["items"] + more["items"]] == [24, 25, 23] and more["next_cursor"] is None
    await refused(client, "list_sprints", {"state": "open"}, "state")
    await refused(client, "list_sprints", {"limit": 101}, "limit")
    await refused(client, "list_sprints", {"board": 0}, "board")

    async def keys(**filters) -> list[str]:
        return sorted(i["key"] for i in (await data(client, "search_issues", filters))["items"])

    assert await keys(resolution="Fixed") == ["AURORA-20"]
    assert "AURORA-24" in await keys(resolution="none") and "AURORA-20" not in await keys(resolution="none")
    assert await keys(component="Web") == ["AURORA-20", "AURORA-24"]
    assert await keys(fix_version="2.3") == await keys(fix_version="10100") == ["AURORA-20", "AURORA-24"]
    assert await keys(affects_version="2.2") == ["AURORA-20"]
    # Any sprint the issue was ever in, by name or id: a closed one too.
    assert await keys(sprint="AURORA Sprint 13") == await keys(sprint="23") == ["AURORA-20"]
    assert await keys(sprint="24") == ["AURORA-20", "AURORA-24"]
    assert await keys(parent="AURORA-20") == ["AURORA-22", "AURORA-23"]
    assert await keys(parent="AURORA-20", status="Open") == []
    assert await keys(q="staging") == await keys(q="Kazan", label="AWPCA") == ["AURORA-20"]
    ranked = await data(client, "search_issues", {"sprint": "24", "sort": "priority"})
    assert [i["key"] for i in ranked["items"]] == ["AURORA-20", "AURORA-24"]
    # Listed issues show their custom fields as get_issue does: by display name, as text, bounded.
    assert [i["custom_fields"] for i in ranked["items"]] == [issue["custom_fields"], {}]
    # A parent's key in any case is the key, as Jira reads it; in another alphabet it is no key.
    assert await keys(parent="aurora-20") == ["AURORA-22", "AURORA-23"]
    await refused(client, "search_issues", {"parent": "\u0430urora-20"}, "parent", "should match pattern")
    await refused(client, "search_issues", {"sort": "votes"}, "sort")
    await refused(client, "search_issues", {"component": ""}, "component")
