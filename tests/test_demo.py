"""``make demo`` runs the whole flow and prints its summary."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_refreshes_fetches_and_summarises():
    run = subprocess.run([sys.executable, str(ROOT / "demo" / "run.py")], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "refresh: done" in run.stdout and "issues 120, neighbours 10" in run.stdout
    assert "fetch of attachment 31337: done" in run.stdout and "2097152 bytes, sha256 " in run.stdout
