"""``make demo`` runs the whole flow and prints its summary; ``make demo-keep`` keeps it running to browse."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.support import call, rest_of_output, wait_for_line

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_refreshes_fetches_and_summarises():
    run = subprocess.run([sys.executable, str(ROOT / "demo" / "run.py")], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "refresh: done" in run.stdout and "issues 120, neighbours 10" in run.stdout
    assert "fetch of attachment 31337: done" in run.stdout and "2097152 bytes, sha256 " in run.stdout


def test_the_kept_demo_serves_for_browsing_until_sigterm_then_leaves_nothing_running():
    proc = subprocess.Popen([sys.executable, str(ROOT / "demo" / "run.py"), "--keep"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        url = wait_for_line(proc, r"Open (http://\S+)/ and sign in", timeout=120).group(1)
        token = wait_for_line(proc, r"^  (\S+)$").group(1)
        wait_for_line(proc, r"Ctrl-C stops")
        # Still serving after the summary: the mirror is there to browse with the token it printed.
        assert len(call(url, token, "/api/v1/issues?limit=5")["items"]) == 5
        with urllib.request.urlopen(url + "/", timeout=30) as page:
            assert b"sdlc-hub" in page.read()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "demo stopped" in rest_of_output(proc)
    # The hub it kept is gone with it.
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "/healthz", timeout=5)
