"""The benchmarks that a small run keeps honest: ``bench/jql.py`` on 2,000 issues runs its
filters through a real hub and finds the hub's pages the same as the raw queries'; ``bench/web.py``
on a few issues draws the list and an issue page in Chromium and prints each figure beside the
API's (no figure is asserted: a small run on a shared machine times nothing worth comparing)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import chromium

ROOT = Path(__file__).resolve().parents[2]


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


def test_the_web_bench_draws_the_list_and_an_issue_in_chromium_beside_the_apis_figures(tmp_path):
    path, reason = chromium()
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the web bench cannot run in CI: {reason}")
        pytest.skip(reason)
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "web.py"), "--loads", "2", "--issues", "7",
                          "--comments", "3", "--description-kb", "2", "--cards", "12", "--rounds", "2",
                          "--trace", str(tmp_path)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert out.startswith("7 issues in the list, AURORA-500 with 3 comments and a 2 KB wiki description, "
                          "a board of 12 cards;"), out
    pages = re.findall(r"^(the list: 7 issues drawn|the issue: 3 comments and a 2 KB description rendered|"
                       r"the board: 12 cards drawn)\n"
                       r"((?:  API /api/v1/\S* \(baseline\) +p50 .*\n)+)"
                       r"  in Chromium, navigation to drawn +p50 .*\n"
                       r"    start to the page's requests .*, the requests .*, then parse and draw .*\n"
                       r"    one more load, traced: the page's thread ran script .*; it waited .*\n"
                       r"    before its own requests it waited on \d+, one after another: / \(.*\n"
                       r"  ratio to baseline .*; p50 [\d.]+ ms \((ok|OVER TARGET), target < 300 ms\)$",
                       out, re.MULTILINE)
    assert [page[0] for page in pages] == ["the list: 7 issues drawn",
                                          "the issue: 3 comments and a 2 KB description rendered",
                                          "the board: 12 cards drawn"], out
    assert [page[1].count("(baseline)") for page in pages] == [1, 2, 1], out
    # A reload asks for the page alone: the files the browser kept are no wait.
    assert all("/ui/" not in line for line in out.splitlines() if "one after another" in line), out
    comments = re.search(r"^the comment editor: 2 comments made in the page.*\n"
                         r"  API POST …/comments to its 202 \(baseline\) +p50 .*\n"
                         r"  in Chromium, click on Comment to pending drawn +p50 .*\n"
                         r"  API POST …/comments to its write done \(baseline\) +p50 .*\n"
                         r"  in Chromium, click on Comment to Jira's drawn +p50 .*\n"
                         r"  pending: p50 [\d.]+ ms \((ok|OVER TARGET), target < 100 ms\); "
                         r"Jira's: p50 [\d.]+ ms \((ok|OVER TARGET), target < 1500 ms\)$", out, re.MULTILINE)
    assert comments, out
    # Chromium's timeline of one load of each page, kept where asked.
    for name in ("web-list.json", "web-issue.json", "web-board.json"):
        assert json.loads((tmp_path / name).read_text("utf-8")), name


def test_the_web_bench_help_ends_with_an_example():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "web.py"), "--help"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0
    assert run.stdout.rstrip().splitlines()[-1].startswith("example: python bench/web.py --loads 5")


def test_the_nodes_bench_help_ends_with_an_example():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "nodes.py"), "--help"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0
    assert run.stdout.rstrip().splitlines()[-1].startswith("example: python bench/nodes.py --nodes 1,2,3")


def test_the_wakeups_bench_wakes_claims_on_both_nodes_and_prints_each_figure_beside_its_baseline():
    from tests.support.engines import postgres_server, require

    server, reason = postgres_server()
    require(reason)
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "wakeups.py"), "--rounds", "2",
                          "--database-url", server.admin_url],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[1].startswith("  the same node (baseline)") and lines[2].startswith("  another node (NOTIFY)"), lines
    assert "ratio to baseline (p50)" in lines[3], lines


def test_the_wakeups_bench_help_ends_with_an_example():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "wakeups.py"), "--help"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0
    assert run.stdout.rstrip().splitlines()[-1].startswith("example: python bench/wakeups.py --rounds")
