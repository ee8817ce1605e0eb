"""Data the tests send: hostile request bodies, rich issues, files of each kind."""

from __future__ import annotations

import random

from tests.support.protocol import PDF, attachment, comment, issue

POSTS = [
    ("/agent/v1/heartbeat", "agent"),
    ("/agent/v1/claim", "agent"),
    ("/agent/v1/commands/1/state", "agent"),
    ("/agent/v1/commands/1/done", "agent"),
    ("/agent/v1/commands/1/failed", "agent"),
    ("/api/v1/commands", "interface"),
    ("/api/v1/commands/1/cancel", "interface"),
    ("/api/v1/attachments/states", "interface"),
    ("/api/v1/attachments/1/fetch", "interface"),
    ("/api/v1/issues/X-1/notes", "interface"),
]


def garbage(rng: random.Random, depth: int = 0):
    choices = [
        lambda: None, lambda: True, lambda: rng.randint(-10**30, 10**30), lambda: rng.random() * 1e308,
        lambda: "".join(chr(rng.randint(0, 0x10FFFF)) for _ in range(rng.randint(0, 20))),
        lambda: "AURORA-1", lambda: "refresh", lambda: 14,
    ]
    if depth < 3:
        keys = ["agent_id", "version", "issues", "neighbors", "key", "id", "links", "comments",
                "result", "total", "error", "delivery", "type", "params", "jql", "limit", "wait",
                "types", "attachments", "changes", "items", "outward", "inward"]
        choices += [
            lambda: [garbage(rng, depth + 1) for _ in range(rng.randint(0, 3))],
            lambda: {rng.choice(keys): garbage(rng, depth + 1) for _ in range(rng.randint(0, 5))},
        ]
    return rng.choice(choices)()


JIRA_TIME = "2026-10-22T13:05:11.000+0300"


def rich(key: str, n: int) -> dict:
    """A rich issue state: 1 KB description, 3 comments, 2 links, 2 attachments, 5 changes."""
    return issue(key, description="d" * 1024, status="Open", labels=["AWPCA"], updated=JIRA_TIME,
                 links=[{"type": "Blocks", "outward": f"Y-{n}"}, {"type": "Relates", "inward": f"Y-{n + 1}"}],
                 comments=[{"id": str(c), "created": JIRA_TIME, "body": "b"} for c in range(1, 4)],
                 attachments=[{"id": f"{n + 1}0{a}", "filename": "f.pdf", "created": JIRA_TIME}
                              for a in range(2)],
                 changes=[{"id": str(h), "created": JIRA_TIME, "items": [{"field": "status"}]}
                          for h in range(1, 6)])


# A 1x1 PNG: what an assistant gets back as image content.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082")
TEXT_FILE = "line one\nстрока два\n".encode()
MCP_FILES = {"9001": TEXT_FILE, "9002": PNG, "9003": PDF}


def mcp_mirror() -> list[dict]:
    """The issues the MCP tests read: AURORA-1 in full (wiki text, links both ways and to an issue
    the mirror lacks, three comments, two changes, a text, an image and a PDF attachment)."""
    files = [("9001", "notes.txt", "text/plain"), ("9002", "shot.png", "image/png"),
             ("9003", "spec.pdf", "application/pdf")]
    return [
        issue("AURORA-1", issue_type="Story", summary="Cards list", status="In Progress", labels=["AWPCA"],
              assignee="ivanov", description="h1. Cards\n*bold* text",
              links=[{"type": "Blocks", "outward": "AURORA-2"}, {"type": "Relates", "inward": "AURORA-3"},
                     {"type": "Relates", "outward": "OTHER-9"}],
              comments=[comment("101", "first *wiki*"), comment("102", "second"), comment("103", "third")],
              changes=[{"id": "5001", "author": "ivanov", "created": JIRA_TIME,
                        "items": [{"field": "status", "from": "1", "from_string": "Open", "to": "3",
                                   "to_string": "In Progress"},
                                  {"field": "assignee", "to_string": "ivanov"}]}],
              attachments=[{**attachment(aid, name, len(MCP_FILES[aid])), "mime_type": mime}
                           for aid, name, mime in files]),
        issue("AURORA-2", summary="Card details", status="Done", labels=["AWPCA"]),
        issue("AURORA-3", summary="Cards epic", status="Open", labels=["AWPCA"]),
    ]
