"""The benchmarks that a small run keeps honest: ``bench/jql.py`` on 2,000 issues runs its
filters through a real hub and finds the hub's pages the same as the raw queries'."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_jql_bench_runs_its_filters_and_the_hub_agrees_with_the_raw_queries():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "jql.py"), "--issues", "2000", "--rounds", "3"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "MISMATCH" not in run.stdout, run.stdout
    assert run.stdout.startswith("2000 issues, 6000 comments, "), run.stdout
    # Every filter prints its total and its baseline, then the hub's figure or why there is none.
    filters = re.findall(r"^(\S.*)\n  total (\d+), (\d+) items on the first page\n"
                         r"  raw sqlite3 \(baseline\) .*\n  (GET /api/v1/issues\?jql=…|hub: )",
                         run.stdout, re.MULTILINE)
    assert len(filters) == 9, run.stdout
    assert all(int(total) > 0 and int(items) == min(int(total), 50) for _, total, items, _ in filters), filters


def test_the_jql_bench_help_ends_with_an_example():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "jql.py"), "--help"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0
    assert run.stdout.rstrip().splitlines()[-1].startswith("example: python bench/jql.py --issues 2000")
