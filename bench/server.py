"""A hub served in a subprocess on a scratch data dir, for the benchmarks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

HUB = str(Path(sys.executable).parent / "hub")


def hub_command(data_dir: Path, *args: str) -> str:
    """Run ``hub ARGS`` on ``data_dir``; its stdout."""
    env = {**os.environ, "HUB_DATA_DIR": str(data_dir)}
    return subprocess.run([HUB, *args], env=env, capture_output=True, text=True, check=True).stdout


def serve(data_dir: Path, **settings: str) -> tuple[subprocess.Popen, int]:
    """``hub serve --no-worker`` on a free port; the process and the port."""
    env = {**os.environ, **settings, "HUB_DATA_DIR": str(data_dir), "HUB_PORT": "0",
           "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([HUB, "serve", "--no-worker"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("hub serve ended before serving")
        match = re.search(r"serving on http://[^:]+:(\d+)", line)
        if match:
            # Read its log (a line per request) all along: a full pipe would stall it.
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc, int(match.group(1))


def stop(proc: subprocess.Popen | None) -> None:
    if proc is not None:
        proc.terminate()
        proc.wait(timeout=60)
