"""However many agents claim at once, each command goes to exactly one of them: on SQLite,
where every claim waits its turn to write, and on PostgreSQL, where claims run at once and
``FOR UPDATE SKIP LOCKED`` keeps them apart."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from hub import startup
from hub.config import Config
from hub.db import open_hub_database
from tests.support import start, stop, wait_for_line, wait_until
from tests.support.engine_rows import rows
from tests.support.hubs import built_services

pytestmark = pytest.mark.backends("sqlite", "postgresql")

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = 300

CLAIMER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from hub.config import Config
    from hub.db import open_hub_database
    from tests.support.hubs import built_services

    data_dir, go, name, url = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    config = Config(data_dir=data_dir, database_url=url or None, busy_timeout_seconds=60)
    open_hub_database(config)
    dispatcher = built_services(config).dispatcher  # a 300 s lease, 5 deliveries: the defaults
    (go.parent / f"ready-{name}").touch()
    while not go.exists():
        time.sleep(0.001)
    got = []
    while True:
        claimed = dispatcher.claim(name, 14, limit=3)
        if not claimed:
            break
        got += [c["id"] for c in claimed]
    print(json.dumps(got))
    """
)


def seeded(config: Config, count: int) -> list[int]:
    startup.prepare(config)
    open_hub_database(config)
    commands = built_services(config).commands
    return [commands.enqueue("refresh", {"jql": f"key = A-{i}"})[0].id for i in range(count)]


def test_processes_claiming_at_once_get_each_command_once(config, tmp_path):
    ids = seeded(config, COMMANDS)
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", CLAIMER, str(config.data_dir), str(go), f"agent-{n}",
                               config.database_url or ""],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in range(6)]
    wait_until(lambda: len(list(tmp_path.glob("ready-*"))) == 6, timeout=60,
               message="every claimer ready")
    go.touch()
    claimed = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        claimed += json.loads(out)

    counts = Counter(claimed)
    assert sorted(counts) == ids
    assert set(counts.values()) == {1}

    assert rows(config, "SELECT DISTINCT status, deliveries FROM command") == [("claimed", 1)]
    assert rows(config, "SELECT count(*), count(DISTINCT command_id) FROM sync_run") == [
        (COMMANDS, COMMANDS)]


def test_agents_claiming_over_http_at_once_get_each_command_once(config):
    ids = seeded(config, 120)
    token = built_services(config).tokens.add("field", "agent")
    server = start("serve", "--no-worker", data_dir=config.data_dir, database_url=config.database_url)
    try:
        url = wait_for_line(server, r"serving on (http://\S+)").group(1)
        results: list[list[int]] = []
        errors: list[BaseException] = []

        def agent(n: int) -> None:
            got = []
            try:
                while True:
                    body = json.dumps({"agent_id": f"agent-{n}", "version": 14, "limit": 2}).encode()
                    request = urllib.request.Request(
                        url + "/agent/v1/claim", data=body, method="POST",
                        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
                    with urllib.request.urlopen(request, timeout=30) as resp:
                        commands = json.loads(resp.read())["commands"]
                    if not commands:
                        break
                    got += [c["id"] for c in commands]
            except BaseException as exc:  # reported below
                errors.append(exc)
            results.append(got)

        threads = [threading.Thread(target=agent, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        assert stop(server) == 0
    assert errors == []
    claimed = [i for got in results for i in got]
    assert sorted(claimed) == ids
