"""Schemathesis against a live hub on loopback, with a token of each role.

The hub is seeded first (a project, issues with attachments loaded by an agent,
a ready file, a note, a batch, commands), then Schemathesis reads /openapi.json
and runs every check with a bounded number of examples: no answer may be a 5xx,
and every answer must conform to the document.

One run takes every operation, each called with a token of a role the document opens
it to (its ``x-roles``; fuzz_hooks.py's ``RoleToken`` picks the agent, the interface or
the admin, in that order). An operation closed to a role answers 403 before it reads
anything, whatever is sent: fuzzing it with that role's token would send every example
to the same refusal. That refusal is held, for every operation and role, by
tests/access/test_tokens.py's test_every_operation_refuses_the_roles_it_is_closed_to.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import Client, created_hub, run_script, start, stop, wait_for_line
from tests.support.engine_rows import engine_database

pytestmark = [pytest.mark.backends("sqlite", "postgresql", shared=True), pytest.mark.long]

ST = str(Path(sys.executable).parent / "st")
HOOKS = str(Path(__file__).with_name("fuzz_hooks.py"))
CONFIG = str(Path(__file__).with_name("schemathesis.toml"))
# Examples per operation, role and engine: 25 keeps the module to a few minutes
# of a CI run; each engine has a seed of its own, so that the two runs try
# different examples (HUB_FUZZ_EXAMPLES and HUB_FUZZ_SEED run it longer or
# otherwise; a seed given is used on both engines).
EXAMPLES = int(os.environ.get("HUB_FUZZ_EXAMPLES", "25"))
SEEDS = {"sqlite": 7, "postgresql": 8}
CONTENT = b"%PDF-1.7 fuzz " * 100


def seed(client: Client) -> None:
    """Rows for every table the API reads, through the API itself."""
    status, _ = client.json("POST", "/api/v1/projects", "admin",
                            {"label": "AWPCA", "name": "Cards", "board_id": 4216, "board_type": "scrum"})
    assert status == 201
    status, batch = client.json("POST", "/api/v1/batches", "interface", {"title": "seed", "project": "AWPCA"})
    assert status == 201
    status, refresh = client.json("POST", "/api/v1/commands", "interface",
                                  {"type": "refresh", "params": {"jql": "key in (X-1, X-2)"},
                                   "batch_id": batch["id"]})
    assert status == 201
    client.json("POST", "/agent/v1/claim", "agent", {"agent_id": "seed", "version": 14})
    issues = [{"key": f"X-{n}", "id": str(n), "summary": f"issue {n}", "labels": ["AWPCA"],
               "created": "2026-10-01T09:00:00.000+0300", "updated": "2026-10-22T13:05:11.000+0300",
               "links": [{"type": "Blocks", "outward": f"X-{n + 1}"}],
               "comments": [{"id": f"{n}01", "author": "a", "created": "2026-10-22T13:05:11.000+0300",
                             "body": "text"}],
               "changes": [{"id": f"{n}001", "created": "2026-10-22T13:05:11.000+0300",
                            "items": [{"field": "status", "from": "1", "to": "3"}]}],
               "attachments": [{"id": f"{n}0", "filename": f"f{n}.pdf", "size": len(CONTENT),
                                "mime_type": "application/pdf"}],
               "resolution": "Fixed", "components": ["Cards"], "parent_key": "X-1" if n == 2 else None,
               "fix_versions": [{"id": "10100", "name": "2.3"}], "time_spent": 3600,
               "custom_fields": {"customfield_10002": {"name": "Story Points", "value": 5}},
               "sprints": [{"id": 24, "name": "Sprint 14", "state": "active", "board_id": 4216}],
               "worklogs": [{"id": f"{n}0001", "author": "a", "started": "2026-10-22T13:05:11.000+0300",
                             "time_spent": 3600}]} for n in (1, 2)]
    catalogues = {"priorities": [{"id": "1", "name": "Blocker"}],
                  "link_types": [{"id": "10000", "name": "Blocks", "outward": "blocks", "inward": "is blocked by"}],
                  "users": [{"name": "a", "key": "JIRAUSER10100", "display_name": "A"}]}
    status, _ = client.json("POST", f"/agent/v1/commands/{refresh['id']}/state", "agent",
                            {"issues": issues, "neighbors": [{"key": "Y-1", "id": "99"}],
                             "catalogues": catalogues})
    assert status == 200
    client.json("POST", f"/agent/v1/commands/{refresh['id']}/done", "agent", {"result": {"total": 2}})
    status, fetched = client.json("POST", "/api/v1/attachments/10/fetch", "interface")
    assert status == 201
    client.json("POST", "/agent/v1/claim", "agent",
                {"agent_id": "seed", "version": 14, "types": ["fetch_attachment"]})
    conn = client.connection()
    conn.request("PUT", f"/agent/v1/commands/{fetched['command']['id']}/file", body=CONTENT,
                 headers={"Authorization": f"Bearer {client.tokens['agent']}"})
    assert conn.getresponse().status == 200
    conn.close()
    status, _ = client.json("POST", f"/agent/v1/commands/{fetched['command']['id']}/done", "agent",
                            {"result": {"sha256": hashlib.sha256(CONTENT).hexdigest(), "size": len(CONTENT)}})
    assert status == 200
    client.json("POST", "/api/v1/attachments/20/fetch", "interface")
    client.json("POST", "/api/v1/issues/X-1/notes", "interface", {"body": "seeded"})
    for n in range(20):  # work for the fuzzer's claims, so that they need not wait
        # Each its own query: a refresh asked for again while open is answered, not queued twice.
        client.json("POST", "/api/v1/commands", "interface", {"type": "refresh", "params": {"jql": f"x {n}"}})


@pytest.fixture(scope="module")
def live_hub(tmp_path_factory, backend, request):
    with engine_database(request, backend) as database_url:
        yield from _live_hub(tmp_path_factory.mktemp("fuzz") / "data", database_url)


def _live_hub(data_dir, database_url):
    created_hub(data_dir, database_url)
    tokens = {role: run_script("token", "add", f"fuzz-{role}", "--role", role, data_dir=data_dir,
                               database_url=database_url).stdout.strip()
              for role in ("agent", "interface", "admin")}
    # An interface token granted writes to Jira, for the operations that ask for one.
    tokens["writer"] = run_script("token", "add", "fuzz-writer", "--role", "interface", "--write",
                                  data_dir=data_dir, database_url=database_url).stdout.strip()
    proc = start("serve", "--no-worker", data_dir=data_dir, database_url=database_url)
    # The worker in a process of its own, as a deployment runs it: the run lasts longer
    # than the time after which /healthz says, rightly, that no worker runs.
    worker = start("worker", data_dir=data_dir, database_url=database_url)
    try:
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)  # start() reads the rest all along
        client = Client(url, tokens["agent"], tokens["interface"])
        client.tokens["admin"] = tokens["admin"]
        seed(client)
        yield url, tokens, proc
    finally:
        assert stop(proc) == 0
        stop(worker)


def logged_answers(proc) -> list[tuple[str, str, str]]:
    """The method, route and status of each request the hub has logged since last asked."""
    lines = []
    with contextlib.suppress(queue.Empty):
        while (line := proc.lines.get_nowait()) is not None:
            lines.append(line)
    return re.findall(r"method=(\w+) route=(\S+) status=(\d+)", "".join(lines))


def test_fuzzing_the_openapi_document_finds_no_5xx_and_no_nonconformance(live_hub, backend, tmp_path):
    url, tokens, proc = live_hub
    logged_answers(proc)  # the seed's
    fuzz_seed = os.environ.get("HUB_FUZZ_SEED", str(SEEDS[backend]))
    command = [ST, "--config-file", CONFIG, "run", f"{url}/openapi.json", "--checks", "all",
               "--max-examples", str(EXAMPLES), "--seed", fuzz_seed,
               "--no-shrink", "--workers", "1", "--request-timeout", "20",
               "--suppress-health-check", "all", "--report-dir", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={**os.environ, "SCHEMATHESIS_HOOKS": HOOKS, "NO_COLOR": "1",
                               "HUB_FUZZ_TOKENS": json.dumps(tokens)})
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
    tested = re.search(r"Tested: (\d+)", done.stdout)
    assert tested and int(tested.group(1)) >= 55, done.stdout[-5000:]
    # Every operation was called with a role it is open to: none was refused for its role
    # (the session's 403 is for a sign-in without the page's header, not for a role).
    answers = logged_answers(proc)
    assert len(answers) > 1000
    assert [a for a in answers if a[2] == "403" and a[1] != "/api/v1/session"] == []
