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
from tests.support import BASE, MCP_FILES, PNG, TEXT_FILE, scripted_agent

TOOLS = {"search_issues", "get_issue", "get_comments", "get_changelog", "list_projects", "sync_status",
         "request_refresh", "fetch_attachment", "read_attachment", "list_notes", "add_note"}
READ_ONLY = {"search_issues", "get_issue", "get_comments", "get_changelog", "list_projects", "sync_status",
             "read_attachment", "list_notes"}


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
    assert {"q", "project", "issue_type", "sprint", "updated_since", "limit", "cursor"} <= set(search)
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
    assert issue["format"] == "jira-wiki" and issue["fields"]["description"] == "h1. Cards\n*bold* text"
    assert issue["fields"]["summary"] == "Cards list" and issue["fields"]["status"] == "In Progress"
    assert issue["links"] == {
        "outward": [{"type": "Blocks", "key": "AURORA-2", "summary": "Card details", "status": "Done",
                     "in_mirror": True},
                    {"type": "Relates", "key": "OTHER-9", "summary": None, "status": None, "in_mirror": False}],
        "inward": [{"type": "Relates", "key": "AURORA-3", "summary": "Cards epic", "status": "Open",
                    "in_mirror": True}]}
    assert [(a["attachment_id"], a["filename"], a["state"]) for a in issue["attachments"]] == [
        ("9001", "notes.txt", "none"), ("9002", "shot.png", "none"), ("9003", "spec.pdf", "none")]
    assert issue["comments"] is None and issue["changes"] is None
    full = await data(client, "get_issue", {"key": "AURORA-1", "include": ["comments", "changes"]})
    assert full["comments"]["total"] == 3 and full["changes"]["total"] == 2
    assert [c["body"] for c in full["comments"]["items"]] == ["first *wiki*", "second", "third"]
    linked = await data(client, "get_issue", {"key": "AURORA-2"})
    assert linked["links"]["inward"][0]["key"] == "AURORA-1" and linked["attachments"] == []
    await refused(client, "get_issue", {"key": "NOPE-1"}, "404", "no issue 'NOPE-1' in the mirror")
    await refused(client, "get_issue", {"key": "AURORA-1", "include": ["everything"]}, "include")
    await refused(client, "get_issue", {}, "key")

    page = await data(client, "get_comments", {"key": "AURORA-1", "limit": 2})
    assert page["format"] == "jira-wiki" and page["total"] == 3 and page["next_cursor"] == 2
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


# Values that are not Jira keys or ids: a path, its parts, lower case, a Cyrillic А, a newline.
HOSTILE_IDS = ("att-1/content", "..", "AURORA-1/notes", "aurora-1", "\u0410URORA-1", "1\n")
# Each tool that takes a key or an attachment id, with its other arguments.
ID_TOOLS = (("get_issue", "key", {}), ("get_comments", "key", {}), ("get_changelog", "key", {}),
            ("list_notes", "key", {}), ("add_note", "key", {"body": "x"}),
            ("fetch_attachment", "attachment_id", {"wait_seconds": 0}), ("read_attachment", "attachment_id", {}))


async def check_hostile_ids(client: Client) -> None:
    """Every tool that takes a key or an attachment id refuses what is not one, naming the argument."""
    for name, argument, rest in ID_TOOLS:
        for value in HOSTILE_IDS:
            if argument == "key" and value == "1\n":
                value = "AURORA-1\n"  # a good key but for the newline, which $ alone would let through
            text = await refused(client, name, {argument: value, **rest}, argument, "should match pattern")
            assert "404" not in text and "hub answered" not in text, (name, value, text)


async def check_every_tool(client: Client, url: str, agent: str) -> None:
    """The whole tour: the tool list, then every tool with good and bad arguments."""
    await check_tool_list(client)
    await check_reading(client)
    await check_hostile_ids(client)
    await check_notes(client)
    await check_commands(client, url, agent)
