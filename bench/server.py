"""A hub served in a subprocess on a scratch data dir, for the benchmarks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

HUB = str(Path(sys.executable).parent / "hub")


def hub_command(data_dir: Path, *args: str) -> str:
    """Run ``hub ARGS`` on ``data_dir``; its stdout."""
    env = {**os.environ, "HUB_DATA_DIR": str(data_dir)}
    return subprocess.run([HUB, *args], env=env, capture_output=True, text=True, check=True).stdout


def serve(data_dir: Path, **settings: str) -> tuple[subprocess.Popen, int]:
    """``hub serve --no-worker`` on a free port; the process and the port.

    Its output (a line per request) goes to a file beside ``data_dir``, as it would
    to a journal: read from a pipe, it would need a reader in the benchmark's own
    process, taking turns at the GIL with what the benchmark measures.
    """
    env = {**os.environ, **settings, "HUB_DATA_DIR": str(data_dir), "HUB_PORT": "0",
           "PYTHONUNBUFFERED": "1"}
    log_path = data_dir.parent / f"{data_dir.name}-serve.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([HUB, "serve", "--no-worker"], env=env, stdout=log, stderr=subprocess.STDOUT)
    while True:
        match = re.search(r"serving on http://[^:]+:(\d+)", log_path.read_text(errors="replace"))
        if match:
            return proc, int(match.group(1))
        if proc.poll() is not None:
            raise SystemExit(f"hub serve ended before serving:\n{log_path.read_text(errors='replace')[-2000:]}")
        time.sleep(0.02)


def stop(proc: subprocess.Popen | None) -> None:
    if proc is not None:
        proc.terminate()
        proc.wait(timeout=60)
