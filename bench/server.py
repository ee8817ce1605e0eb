"""A hub served in a subprocess on a scratch data dir, for the benchmarks."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
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


class ScratchHub(ExitStack):
    """A migrated hub on a new scratch dir, for ``with``; on exit what was started
    stops (last started first) and the dir goes.

    ``work`` is the scratch dir, ``data_dir`` the hub's, ``proc`` the served hub
    (once :meth:`serve` ran); :meth:`callback` adds anything else to stop on the
    way out.
    """

    def __init__(self, prefix: str, directory: str | None = None):
        super().__init__()
        self.work = Path(tempfile.mkdtemp(prefix=prefix, dir=directory))
        self.data_dir = self.work / "data"
        self.proc: subprocess.Popen | None = None
        self.callback(shutil.rmtree, self.work, ignore_errors=True)

    def __enter__(self) -> ScratchHub:
        super().__enter__()
        try:
            hub_command(self.data_dir, "migrate")
        except BaseException:
            self.close()
            raise
        return self

    def token(self, name: str, role: str) -> str:
        """A new token of ``role``."""
        return hub_command(self.data_dir, "token", "add", name, "--role", role).strip()

    def serve(self, **settings: str) -> int:
        """:func:`serve` this hub until the ``with`` ends; the port."""
        self.proc, port = serve(self.data_dir, **settings)
        self.callback(stop, self.proc)
        return port
