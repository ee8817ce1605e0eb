"""The comment editor in headless Chromium, against the demo Jira through ``hub-agent``: from a click
on "Comment" to the comment shown pending, and to it shown as Jira's comment.

A hub served on loopback with the scope and project of the other benchmarks, the demo Jira (the
tests' fake, in this process) holding one issue per round and ``hub-agent`` long-polling for work
(its default claim wait). Each round opens an issue of its own in the page (signed in with a token
that may write), types a comment in ``#comment-body`` and clicks "Comment"; the page times, from
that click (``performance.now()`` in the click's capture), the frame that paints ``.comment.pending``
and the frame that paints a ``.comment[data-comment-id]`` the issue did not show before: the write
asked of the hub, claimed by the agent, posted to Jira, the issue's fresh state sent back, the write
``done``, and the page's re-read of the comments. Beside each figure its baseline, the API's own
round trips for the same write over HTTP without a browser, alternating with the page's rounds: the
``POST /api/v1/issues/{key}/comments`` to its 202, and to the write ``done`` as an API client sees it
(long-polls of ``GET /api/v1/writes/{id}?wait=20&known=STATUS``). Targets: p50 < 100 ms to pending,
p50 < 1.5 s to Jira's.

Run by bench/web.py (``--rounds``), in the same Chromium.
"""

from __future__ import annotations

import re
import statistics
import threading
import time

from bench.figures import latency, verdict
from bench.server import ScratchHub, hub_command
from bench.writes import request, until_logged
from demo.fakejira import FakeJira

TARGET_PENDING_MS = 100
TARGET_DONE_MS = 1500

# Armed in the page before each click: the times (ms since the navigation) of the click on the
# comment form's submit button, and of the frames that paint the pending comment and the new
# mirrored comment. A MutationObserver sees each change; nothing polls.
ARM = """() => {
  const ids = () => [...document.querySelectorAll('.comment[data-comment-id]')].map((c) => c.dataset.commentId);
  const before = new Set(ids());
  const times = window.__comment = {click: null, pending: null, done: null};
  const seen = {};
  const painted = (name) => requestAnimationFrame(() => { times[name] = performance.now(); });
  document.querySelector('#comment-form button[type=submit]')
    .addEventListener('click', () => { times.click = performance.now(); }, {once: true, capture: true});
  const look = () => {
    if (times.click === null) return;
    if (!seen.pending && document.querySelector('.comment.pending')) { seen.pending = true; painted('pending'); }
    if (!seen.done && ids().some((id) => !before.has(id))) { seen.done = true; painted('done'); watch.disconnect(); }
  };
  const watch = new MutationObserver(look);
  watch.observe(document.body, {childList: true, subtree: true, attributes: true,
                                attributeFilter: ['class', 'data-comment-id']});
}"""


def api_round(port: int, token: str, key: str, body: str) -> tuple[float, float]:
    """The API's own round trips for one comment: (seconds to its 202, seconds to its write done)."""
    started = time.perf_counter()
    write = request(port, token, "POST", f"/api/v1/issues/{key}/comments", {"body": body})
    answered = time.perf_counter() - started
    while write["status"] in ("pending", "applying"):
        write = request(port, token, "GET", f"/api/v1/writes/{write['id']}?wait=20&known={write['status']}")
    if write["status"] != "done":
        raise SystemExit(f"the API's comment on {key} ended {write['status']}: {write['error']}")
    return answered, time.perf_counter() - started


def page_round(page, url: str, key: str, body: str) -> tuple[float, float]:
    """One comment made in the page: (seconds from the click to pending drawn, to Jira's drawn)."""
    page.goto(f"{url}/#/issue/{key}")
    page.locator("#comment-body").wait_for()
    page.evaluate(ARM)
    page.locator("#comment-body").fill(body)
    page.locator("#comment-form").get_by_role("button", name="Comment", exact=True).click()
    page.wait_for_function("() => window.__comment.done !== null", timeout=60_000)
    times = page.evaluate("window.__comment")
    if times["pending"] is None:
        raise SystemExit(f"{key}: the comment was shown as Jira's but never pending")
    return (times["pending"] - times["click"]) / 1000, (times["done"] - times["click"]) / 1000


def comment_figures(browser, rounds: int) -> bool:
    """The comment figures in ``browser`` (Playwright's, launched), ``rounds`` of each; whether both
    meet their targets."""
    jira = FakeJira(max_results=100).start()
    for n in range(1, 2 * rounds + 2):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"], summary=f"Bench issue {n}")
    with ScratchHub("hub-bench-web-writes-") as scratch:
        scratch.callback(jira.stop)
        port, interface, agent = scratch.serve_with_agent(jira.url, jira.token)
        writer = hub_command(scratch.data_dir, "token", "add", "writer", "--role", "interface", "--write").strip()
        full = request(port, interface, "POST", "/api/v1/commands", {"type": "refresh"})
        until_logged(agent, re.compile(rf"command {full['id']}: refresh done"))
        # The agent's log is read away from now on: a full pipe would stall it.
        threading.Thread(target=lambda: [None for _ in agent.stdout], daemon=True).start()  # type: ignore[union-attr]
        url = f"http://127.0.0.1:{port}"
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            page.goto(url + "/")
            page.get_by_label("Token").fill(writer)
            page.get_by_role("button", name="Sign in").click()
            page.get_by_role("heading", name="Issues").wait_for()
            page_round(page, url, f"AURORA-{2 * rounds + 1}", "warming the page up")  # not counted
            pending, shown, answered, done = [], [], [], []
            for n in range(1, rounds + 1):
                to_pending, to_shown = page_round(page, url, f"AURORA-{n}", f"Checked on staging, build *{n}*.")
                pending.append(to_pending)
                shown.append(to_shown)
                to_answer, to_done = api_round(port, writer, f"AURORA-{rounds + n}", f"API comment {n}")
                answered.append(to_answer)
                done.append(to_done)
        finally:
            context.close()
    print(f"the comment editor: {rounds} comments made in the page, as many through the API alone, alternating;"
          " hub-agent long-polling, the demo Jira on loopback")
    print(latency("  API POST …/comments to its 202 (baseline)", answered, width=52))
    print(latency("  in Chromium, click on Comment to pending drawn", pending, width=52))
    print(latency("  API POST …/comments to its write done (baseline)", done, width=52))
    print(latency("  in Chromium, click on Comment to Jira's drawn", shown, width=52))
    p_pending, p_shown = statistics.median(pending) * 1000, statistics.median(shown) * 1000
    met_pending, met_shown = p_pending < TARGET_PENDING_MS, p_shown < TARGET_DONE_MS
    print(f"  pending: p50 {p_pending:.1f} ms {verdict(met_pending, f'< {TARGET_PENDING_MS} ms')};"
          f" Jira's: p50 {p_shown:.1f} ms {verdict(met_shown, f'< {TARGET_DONE_MS} ms')}")
    return met_pending and met_shown
