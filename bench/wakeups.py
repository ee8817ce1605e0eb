"""How soon a command enqueued through one hub node wakes an agent long-polling another.

Two ``hub serve --no-worker`` nodes share one fresh PostgreSQL database (a
throw-away server of the machine's own packages, as the tests start, or
``--database-url``), started as bench/nodes.py starts them. An agent long-polls
``POST /agent/v1/claim`` (``wait`` 30 s) on one node; once it waits, the
interface enqueues a refresh through a node; the figure is the time from
sending the enqueue to the claim's answer holding the command, which the agent
then reports done. The baseline is the same with the agent on the node that
enqueues, where the wake-up never leaves the process; the figure is the same
through the other node, where it travels by PostgreSQL's ``NOTIFY``.

A claim that hears nothing looks again every ``dispatch.POLL_SECONDS`` (1 s): a
lost notification costs at most that. Wake-ups far below it are the
notification's; the verdict is on the slowest one, against the issue's "within
a second".

    python bench/wakeups.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace

from bench.figures import latency, verdict
from bench.server import KeepAlive

TARGET_SECONDS = 1.0


def _body(value: dict) -> bytes:
    return json.dumps(value).encode()


def wake_up(agent: KeepAlive, interface: KeepAlive, settle: float) -> float:
    """Seconds from sending one enqueue to the waiting claim's answer with the command."""
    answered: dict[str, object] = {}

    def claim() -> None:
        answered["commands"] = agent.post("/agent/v1/claim", _body({"agent_id": "bench-waker", "version": 18,
                                                                    "wait": 30, "types": ["refresh"]}))["commands"]
        answered["at"] = time.perf_counter()

    waiting = threading.Thread(target=claim)
    waiting.start()
    time.sleep(settle)  # the claim is in its long-poll by then: it found no work at once
    sent = time.perf_counter()
    command = interface.post("/api/v1/commands", _body({"type": "refresh", "params": {"jql": f"key = W-{sent}"}}))
    waiting.join(60)
    commands = answered.get("commands")
    if not commands or commands[0]["id"] != command["id"]:  # type: ignore[index]
        raise SystemExit(f"the waiting claim did not get command {command['id']}: {commands}")
    claimed = commands[0]  # type: ignore[index]
    agent.post(f"/agent/v1/commands/{claimed['id']}/done",
               _body({"result": {"total": 0}, "delivery": claimed["deliveries"]}))
    return float(answered["at"]) - sent  # type: ignore[arg-type]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="example: python bench/wakeups.py --rounds 30")
    parser.add_argument("--database-url", help="a PostgreSQL superuser's URL (default: a throw-away server)")
    parser.add_argument("--rounds", type=int, default=30, help="wake-ups of each kind")
    parser.add_argument("--settle", type=float, default=0.2,
                        help="seconds a claim waits before the enqueue is sent")
    args = parser.parse_args()

    from bench.nodes import Nodes
    from bench.server import postgres_server_for
    from hub.services.commands.dispatch import POLL_SECONDS

    server = postgres_server_for(args.database_url)
    work = Path(tempfile.mkdtemp(prefix="hub-bench-wakeups-"))
    print(f"postgresql; 2 nodes; {args.rounds} wake-ups of each kind; a waiting claim looks again "
          f"every {POLL_SECONDS:g} s")
    try:
        with Nodes(2, "postgresql", work, server, SimpleNamespace(issues=0, commands=0)) as nodes:
            interface = KeepAlive(nodes.ports[0], nodes.tokens["interface"])
            same = KeepAlive(nodes.ports[0], nodes.tokens["agent"])
            other = KeepAlive(nodes.ports[1], nodes.tokens["agent"])
            wake_up(same, interface, args.settle)  # each node's connections made
            wake_up(other, interface, args.settle)
            same_node, other_node = [], []
            for _ in range(args.rounds):
                same_node.append(wake_up(same, interface, args.settle))
                other_node.append(wake_up(other, interface, args.settle))
            for caller in (interface, same, other):
                caller.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(latency("  the same node (baseline)", same_node))
    print(latency("  another node (NOTIFY)", other_node))
    slowest = max(other_node)
    ratio = sorted(other_node)[len(other_node) // 2] / sorted(same_node)[len(same_node) // 2]
    print(f"  ratio to baseline (p50) {ratio:.2f}x; slowest {slowest * 1000:.1f} ms "
          f"{verdict(slowest < TARGET_SECONDS, f'< {TARGET_SECONDS * 1000:g} ms')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
