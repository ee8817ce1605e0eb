"""The web interface in headless Chromium: from navigation to the list of 50 issues drawn, to an
issue page with 50 comments and a 20 KB wiki description rendered, and to a board of 200 cards drawn;
and from a click on "Comment" to the comment shown pending, then shown as Jira's.

A hub is served on a scratch data dir and its mirror filled through the agent protocol (one
refresh, as an agent sends it): ``--issues`` issues as a team's list holds them and one issue
with ``--comments`` comments of Jira wiki text and a description of ``--description-kb`` KB of
it (headings, lists, tables, code, quotes, panels, colours, links, mentions). Debian's Chromium,
driven by Playwright, signs in through the page, then reloads each page ``--loads`` times (a
reload is a whole navigation: the documents and modules come from the browser's cache, as they
do for a team that keeps the page open all day). Each load is timed in the page, from the
navigation's start (``performance.timeOrigin``) to the frame in which a selector that exists only
once everything is there first matches:

- the list: ``#/issues?limit=50``, until the 50th row of the results table;
- the issue: ``#/issue/KEY``, until the description's elements and the 50th comment are there;
- the board: ``#/board/ID``, a scrum board whose active sprint holds ``--cards`` issues, until its
  cards are there (the page draws them all at once).

Beside each figure is its baseline, the API's own time for the requests the page waits for (the
same GETs over HTTP, one keep-alive client, no browser), as the project's other benchmarks print a
figure beside its baseline. Where the time goes is split from the page's own Resource Timing: the
page's start (documents, modules, the calls before the page's own request), the API request as
the browser saw it, and what is left to draw (parsing the answer, building and laying out the
page). One more load of each page is traced (Chromium's performance timeline, kept with
``--trace DIR``): what the page's thread spent its processor time on (script, receiving, the
document, style and layout, paint) and how long it waited, and the requests it waited on one
after another before its own. Target: p50 < 300 ms each.

Then the comment editor against the demo Jira through ``hub-agent`` (bench/web_writes.py): from a
click on "Comment" to the comment shown pending (target p50 < 100 ms), and to it shown as Jira's
comment (target p50 < 1.5 s), beside the API's own round trip for the same write.

    python bench/web.py [--loads 20] [--issues 50] [--comments 50] [--description-kb 20] [--cards 200]
                        [--rounds 20] [--trace DIR]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import sys
import time
from dataclasses import dataclass

from bench.figures import latency, verdict
from bench.server import ScratchHub, hub_command, timed_gets
from bench.web_writes import comment_figures

TARGET_MS = 300
BIG = "AURORA-500"
JIRA_TIME = "2026-10-22T13:05:11.000+0300"
AGENT_ID = "bench-web"
PAGE = 100  # issues in a state page, at most
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic"]
STATUSES = ("Open", "In Progress", "Review", "Done")
TYPES = ("Task", "Bug", "Story")
PEOPLE = ("ivanov", "petrov", "smirnova", "kozlova")
# The board: a scrum board of four columns, one status each, its active sprint holding the cards.
BOARD_ID = 4216
STATUS_IDS = {"Open": "1", "In Progress": "3", "Review": "10001", "Done": "6"}
CATEGORIES = {"Open": "new", "In Progress": "indeterminate", "Review": "indeterminate", "Done": "done"}
CATALOGUES = {
    "statuses": [{"id": sid, "name": name, "category": name, "category_key": CATEGORIES[name]}
                 for name, sid in STATUS_IDS.items()],
    "users": [{"name": login, "key": login, "display_name": login.title()} for login in PEOPLE],
    "boards": [{"id": str(BOARD_ID), "name": "Bench board", "type": "scrum",
                "columns": [{"name": name, "statuses": [sid]} for name, sid in STATUS_IDS.items()]}],
}
SPRINT = {"id": 21, "name": "Bench Sprint 21", "state": "active", "start": "2026-11-16T09:00:00.000+03:00",
          "end": "2026-11-30T18:00:00.000+03:00", "complete": None, "board_id": BOARD_ID, "goal": "Cards"}

# Installed before any script of the page: when ``window.__benchSelector`` first matches, the time
# of the next frame (the one that paints it) is kept as ``window.__benchDrawn``, in ms since the
# navigation began. A MutationObserver sees each change of the page; nothing polls.
WATCH = """
(() => {
  const selector = sessionStorage.getItem("bench.selector");
  if (!selector) return;
  const seen = () => {
    if (window.__benchDrawn !== undefined || !document.querySelector(selector)) return false;
    window.__benchDrawn = null;
    requestAnimationFrame(() => { window.__benchDrawn = performance.now(); performance.mark("bench:drawn"); });
    return true;
  };
  const start = () => {
    if (seen()) return;
    const watch = new MutationObserver(() => { if (seen()) watch.disconnect(); });
    watch.observe(document.documentElement, {childList: true, subtree: true});
  };
  if (document.documentElement) start(); else document.addEventListener("readystatechange", start, {once: true});
})();
"""

# What the page's Resource Timing says of one load: when the first of its requests to ``paths``
# began and the last ended (ms since the navigation began), and their answers' sizes.
TIMING = """(paths) => {
  const entries = performance.getEntriesByType("resource")
    .filter((entry) => paths.includes(new URL(entry.name).pathname));
  if (entries.length < paths.length) return null;
  return {start: Math.min(...entries.map((entry) => entry.startTime)),
          end: Math.max(...entries.map((entry) => entry.responseEnd)),
          size: entries.reduce((sum, entry) => sum + entry.encodedBodySize, 0)};
}"""

# The requests the page waited on, one after another, before the first of its own to ``paths``:
# from that request back, each time the one that ended last before the next began (the document
# first). Each with its start and end (ms since the navigation began) and its size.
CHAIN = """(paths) => {
  // The tab's icon is fetched beside the page, which never waits on it; a file the browser had
  // kept (transferSize 0: no request at all) is no wait either.
  const all = performance.getEntriesByType("resource").filter((entry) => !entry.name.includes("/favicon")
    && (entry.transferSize > 0 || paths.includes(new URL(entry.name).pathname)));
  const own = all.filter((entry) => paths.includes(new URL(entry.name).pathname));
  if (!own.length) return [];
  const [navigation] = performance.getEntriesByType("navigation");
  const name = (entry) => { const url = new URL(entry.name); return url.pathname + url.search; };
  const chain = [];
  let at = Math.min(...own.map((entry) => entry.startTime));
  for (;;) {
    const before = all.filter((entry) => entry.responseEnd <= at && !chain.includes(entry));
    if (!before.length) break;
    const last = before.reduce((a, b) => (b.responseEnd > a.responseEnd ? b : a));
    chain.unshift(last);
    at = last.startTime;
  }
  chain.unshift(navigation);
  return chain.map((entry) => ({name: name(entry), start: entry.startTime, end: entry.responseEnd,
                                size: entry.encodedBodySize}));
}"""


def paragraph(n: int) -> str:
    return (f"The *card list* of release {n} is _slow_ when the filter holds -many- values; see [the guide|"
            f"http://wiki.example/guide/{n}] and [~ivanov]'s notes, {{{{mono}}}} text, +underlined+, H^2^O, "
            f"and http://jira.example/browse/AURORA-{n}.")


def wiki_description(size: int) -> str:
    """Jira wiki text of about ``size`` characters, of the constructs real descriptions hold."""
    parts: list[str] = []
    n = 0
    while sum(len(part) + 1 for part in parts) < size:
        n += 1
        parts += [
            f"h2. Part {n}", paragraph(n), "",
            "* first point", "** nested point with *bold*", "*** deeper, _italic_", "* second point",
            "# step one", "# step two", "## sub-step", "",
            "||Field||Before||After||", f"|status|Open|Done {n}|", "|assignee|[~petrov]|[~ivanov]|", "",
            "{code:java}", f"int answer{n} = compute(\"<b>{n}</b>\");", "return answer;", "{code}",
            "{quote}A quote of the customer, on one line.{quote}",
            "{noformat}", f"ERROR 2026-10-22 13:05:11 [main] request {n} failed", "{noformat}",
            "{panel:title=Note}Check the export first.{panel}",
            "{color:red}Urgent{color} and (/) done, (!) warning, :)", "----", "",
        ]
    return "\n".join(parts)[:size]


def comment_body(n: int) -> str:
    return (f"Checked on staging, build {n}: *works* for [~ivanov].\n* the list _loads_\n* the export -fails-\n"
            f"{{code}}curl -s http://hub/api/v1/issues?limit={n}{{code}}\nSee [AURORA-{n}|http://jira.example/browse/"
            f"AURORA-{n}].")


def issues(count: int, comments: int, description_kb: int, cards: int = 0) -> list[dict]:
    """The mirror's issues: ``count`` as a team's list holds them, then ``BIG`` with ``comments``
    comments and a description of ``description_kb`` KB, then ``cards`` in the board's active sprint."""
    states = [{"key": f"AURORA-{n}", "id": str(10000 + n), "summary": f"Cards list filter {n} keeps its order",
               "issue_type": TYPES[n % 3], "status": STATUSES[n % 4], "assignee": PEOPLE[n % 4],
               "reporter": PEOPLE[(n + 1) % 4], "priority": "Major", "labels": ["AWPCA"],
               "updated": f"2026-10-{1 + n % 28:02d}T13:05:11.000+0300", "description": paragraph(n)}
              for n in range(1, count + 1)]
    states.append({
        "key": BIG, "id": "10500", "summary": "Export of the cards list", "issue_type": "Story", "status": "Open",
        "assignee": "ivanov", "reporter": "petrov", "priority": "Major", "labels": ["AWPCA"], "updated": JIRA_TIME,
        "description": wiki_description(description_kb * 1024),
        "comments": [{"id": str(20000 + c), "author": PEOPLE[c % 4], "created": JIRA_TIME, "updated": JIRA_TIME,
                      "body": comment_body(c)} for c in range(1, comments + 1)]})
    states += [{"key": f"AURORA-{1000 + n}", "id": str(11000 + n), "summary": f"Board card {n}: export the cards list",
                "issue_type": TYPES[n % 3], "status": STATUSES[n % 4], "assignee": PEOPLE[n % 4],
                "reporter": PEOPLE[(n + 1) % 4], "priority": "Major", "labels": ["AWPCA"], "sprints": [SPRINT],
                "updated": f"2026-09-{1 + n % 28:02d}T13:05:11.000+0300"} for n in range(1, cards + 1)]
    return states


def post(port: int, token: str, path: str, body: dict) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", path, body=json.dumps(body),
                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        resp = conn.getresponse()
        answer = json.loads(resp.read() or b"{}")
        if resp.status >= 300:
            raise SystemExit(f"POST {path} answered {resp.status}: {answer}")
        return answer
    finally:
        conn.close()


def fill(port: int, agent: str, interface: str, states: list[dict]) -> None:
    """One refresh of ``states``, as an agent reports it: claimed, its state pages, done."""
    command = post(port, interface, "/api/v1/commands", {"type": "refresh"})
    [claimed] = post(port, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 14})["commands"]
    assert claimed["id"] == command["id"], (claimed, command)
    for start in range(0, len(states), PAGE):  # pages of at most PAGE issues, the catalogues with the first
        post(port, agent, f"/agent/v1/commands/{claimed['id']}/state",
             {"agent_id": AGENT_ID, "delivery": 1, "issues": states[start:start + PAGE],
              **({"catalogues": CATALOGUES} if start == 0 else {})})
    post(port, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(states)}})


def chromium_path() -> str:
    for candidate in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit("no Chromium found (apt-get install chromium)")


@dataclass
class Loads:
    """One page's timed loads: to drawn, and the page's own API request within each."""

    drawn: list[float]
    request_start: list[float]
    request: list[float]
    after: list[float]
    size: int


def timed_loads(page, address: str, selector: str, api_paths: list[str], loads: int) -> Loads:
    """``loads`` whole navigations to ``address``, each timed in the page until ``selector``
    is drawn (seconds), with the Resource Timing of its requests to ``api_paths``."""
    page.evaluate("(selector) => sessionStorage.setItem('bench.selector', selector)", selector)
    result = Loads([], [], [], [], 0)
    page.goto(address)
    for _ in range(loads + 1):  # the first load warms the browser's cache and is not counted
        page.reload(wait_until="commit")
        page.wait_for_function("() => window.__benchDrawn", timeout=60_000)
        drawn = page.evaluate("window.__benchDrawn")
        timing = page.evaluate(TIMING, api_paths)
        if timing is None:
            raise SystemExit(f"the page did not request each of {api_paths}")
        result.drawn.append(drawn / 1000)
        result.request_start.append(timing["start"] / 1000)
        result.request.append((timing["end"] - timing["start"]) / 1000)
        result.after.append((drawn - timing["end"]) / 1000)
        result.size = timing["size"]
    for column in (result.drawn, result.request_start, result.request, result.after):
        del column[0]
    page.evaluate("sessionStorage.removeItem('bench.selector')")
    return result


# Chromium's timeline: what the renderer's main thread spent its processor time on, by the self time
# of each traced event (its thread time less its children's, as the DevTools' Performance panel
# sums it), by kind; a task's own time outside any known kind of work is "other".
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "blink.user_timing",
                    "loading", "toplevel"]
KINDS = {
    "script": ("EvaluateScript", "v8.compile", "v8.compileModule", "v8.evaluateModule", "FunctionCall",
               "v8.run", "V8.Execute", "RunMicrotasks", "TimerFire", "FireAnimationFrame", "EventDispatch",
               "MinorGC", "MajorGC", "v8.produceModuleCache", "XHRReadyStateChange", "V8.BytecodeBudgetInterrupt"),
    "receiving (IPC)": ("Receive mojo message", "SimpleWatcher::OnHandleReady", "Closed mojo endpoint",
                        "ResourceReceivedData", "ResourceReceiveResponse", "ResourceFinish"),
    "document": ("ParseHTML",),
    "style and layout": ("UpdateLayoutTree", "RecalculateStyles", "Layout", "ParseAuthorStyleSheet",
                         "InvalidateLayout", "ScheduleStyleRecalculation"),
    "paint": ("Paint", "PrePaint", "Layerize", "UpdateLayer", "CompositeLayers", "Commit", "PaintImage",
              "UpdateLayerTree"),
}
KIND_OF = {name: kind for kind, names in KINDS.items() for name in names}
KIND_PREFIXES = (("V8.GC", "script"), ("DocumentLoader::", "document"), ("HTMLDocumentParser::", "document"),
                 ("DecodedDataDocumentParser::", "document"))


def kind_of(name: str, outer: str) -> str:
    for prefix, kind in KIND_PREFIXES:
        if name.startswith(prefix):
            return kind
    return KIND_OF.get(name, outer)


def timeline(events: list[dict]) -> dict[str, float]:
    """Of one load's trace, from the navigation's start to the frame that drew the selector: the
    renderer main thread's processor time by kind (:data:`KINDS`, and "other"), and the rest of
    the wall time as "waiting" (on the network, or on a processor the machine's other work held),
    in seconds."""
    drawn = [e for e in events if e.get("name") == "bench:drawn"]
    # The page's own navigation names its address (the frames Chromium makes on the way name none).
    starts = [e for e in events if e.get("name") == "navigationStart" and drawn and e["ts"] <= drawn[-1]["ts"]
              and (e.get("args", {}).get("data") or {}).get("documentLoaderURL")]
    if not starts or not drawn:
        return {}
    end, start = drawn[-1]["ts"], starts[-1]["ts"]
    thread = (starts[-1]["pid"], starts[-1]["tid"])
    spans = sorted((e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) == thread
                    and start <= e["ts"] < end and "dur" in e), key=lambda e: (e["ts"], -e["dur"]))
    spent = dict.fromkeys([*KINDS, "other"], 0.0)
    stack: list[list] = []  # [the event's end, its kind, its own thread time so far]

    def close(until: float) -> None:
        while stack and stack[-1][0] <= until:
            _, kind, own = stack.pop()
            spent[kind] += own

    for event in spans:
        close(event["ts"])
        wall = min(event["dur"], end - event["ts"])
        cpu = min(event.get("tdur", event["dur"]), wall)
        if stack:
            stack[-1][2] -= cpu
        stack.append([event["ts"] + wall, kind_of(event["name"], stack[-1][1] if stack else "other"), cpu])
    close(float("inf"))
    result = {kind: max(value, 0) / 1e6 for kind, value in spent.items()}
    result["waiting"] = max((end - start) / 1e6 - sum(result.values()), 0)
    return result


def traced_load(browser, page, address: str, selector: str, api_paths: list[str],
                path: str | None) -> tuple[dict[str, float], list[dict]]:
    """One more load of ``address``, traced (the trace kept at ``path`` when given): its
    :func:`timeline`, and the requests it waited on before its own to ``api_paths`` (:data:`CHAIN`)."""
    import tempfile

    page.evaluate("(selector) => sessionStorage.setItem('bench.selector', selector)", selector)
    page.goto(address)  # (only the address's fragment may change: the reload is the navigation)
    with tempfile.TemporaryDirectory() as scratch:
        trace = path or os.path.join(scratch, "trace.json")
        browser.start_tracing(page=page, path=trace, categories=TRACE_CATEGORIES)
        try:
            page.reload(wait_until="commit")
            page.wait_for_function("() => window.__benchDrawn", timeout=60_000)
        finally:
            browser.stop_tracing()
        with open(trace, encoding="utf-8") as file:
            data = json.load(file)
    chain = page.evaluate(CHAIN, api_paths)
    page.evaluate("sessionStorage.removeItem('bench.selector')")
    return timeline(data["traceEvents"] if isinstance(data, dict) else data), chain


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:6.1f} ms"


def report(name: str, loads: Loads, api: dict[str, list[float]], traced: tuple[dict[str, float], list[dict]]) -> bool:
    """The page's figure beside the API's, and where one more load's time went; whether it meets
    the target."""
    print(name)
    for path, times in api.items():
        print(latency(f"  API {path} (baseline)", times, width=52))
    print(latency("  in Chromium, navigation to drawn", loads.drawn, width=52))
    print(f"    start to the page's requests {ms(loads.request_start)}, the requests {ms(loads.request)}"
          f" ({loads.size / 1024:.0f} KiB), then parse and draw {ms(loads.after)} (p50 each)")
    spent, chain = traced
    if spent:
        print("    one more load, traced: the page's thread ran " + ", ".join(
            f"{kind} {seconds * 1000:.1f} ms" for kind, seconds in spent.items() if kind != "waiting")
            + f"; it waited {spent['waiting'] * 1000:.1f} ms (on the network, or a processor)")
    if chain:
        print(f"    before its own requests it waited on {len(chain)}, one after another: " + " → ".join(
            f"{step['name']} ({step['end'] - step['start']:.0f} ms"
            + (f", {step['size'] / 1024:.0f} KiB)" if step["size"] > 10240 else ")") for step in chain))
    p50 = statistics.median(loads.drawn) * 1000
    slowest_api = max(statistics.median(times) for times in api.values())
    met = p50 < TARGET_MS
    print(f"  ratio to baseline {p50 / (slowest_api * 1000):6.1f}x; p50 {p50:.1f} ms"
          f" {verdict(met, f'< {TARGET_MS} ms')}")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: python bench/web.py --loads 5 --issues 10 --comments 5 --description-kb 2")
    parser.add_argument("--loads", type=int, default=20, help="timed loads of each page (default 20)")
    parser.add_argument("--issues", type=int, default=50, help="issues in the list, and rows drawn (default 50)")
    parser.add_argument("--comments", type=int, default=50, help="comments on the big issue (default 50)")
    parser.add_argument("--description-kb", type=int, default=20,
                        help="KB of wiki text in the big issue's description (default 20)")
    parser.add_argument("--cards", type=int, default=200, help="cards on the board (default 200)")
    parser.add_argument("--rounds", type=int, default=20,
                        help="comments timed from the click (default 20; 0 leaves the comment figures out)")
    parser.add_argument("--trace", metavar="DIR",
                        help="keep the Chromium trace of one load of each page in DIR (made if missing)")
    args = parser.parse_args()
    if args.trace:
        os.makedirs(args.trace, exist_ok=True)
    if not 1 <= args.issues <= 500 or not 1 <= args.comments <= 50 or not 1 <= args.cards <= 500:
        parser.error("--issues takes 1 to 500 (a page of the list), --comments 1 to 50 (a page of comments),"
                     " --cards 1 to 500 (a board's)")

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SystemExit("bench/web.py needs Playwright for Python: pip install -e '.[test]'") from None
    browser_path = chromium_path()

    with ScratchHub("hub-bench-web-") as scratch:
        agent, interface = scratch.token("agent", "agent"), scratch.token("ui", "interface")
        hub_command(scratch.data_dir, "scope", "set", "project = AURORA")
        hub_command(scratch.data_dir, "project", "add", "AWPCA", "--name", "Bench", "--board-id", str(BOARD_ID),
                    "--board-type", "scrum")
        port = scratch.serve()
        url = f"http://127.0.0.1:{port}"
        started = time.perf_counter()
        fill(port, agent, interface, issues(args.issues, args.comments, args.description_kb, args.cards))
        print(f"{args.issues} issues in the list, {BIG} with {args.comments} comments and a"
              f" {args.description_kb} KB wiki description, a board of {args.cards} cards;"
              f" filled in {time.perf_counter() - started:.1f} s;"
              f" {args.loads} loads of each page; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

        issue_path = f"/api/v1/issues/{BIG}"
        # Each page: its name, its address, the selector that exists once it is all drawn, the
        # requests of its own it draws from (as the browser names their paths), and the same
        # requests timed over HTTP as its baseline.
        pages = [
            (f"the list: {args.issues} issues drawn", f"{url}/#/issues?limit={args.issues}",
             f"#results tbody tr:nth-child({args.issues})", ["/api/v1/issues"],
             [f"/api/v1/issues?limit={args.issues}"]),
            # Both drawn, in whichever order the page draws them: the description's elements and
            # the last comment.
            (f"the issue: {args.comments} comments and a {args.description_kb} KB description rendered",
             f"{url}/#/issue/{BIG}", f"main:has(#description > *) .comments > li:nth-child({args.comments})",
             [issue_path, f"{issue_path}/comments", f"{issue_path}/changes"],
             # as the page asks for them: the wiki text rendered by the hub
             [f"{issue_path}?render=html", f"{issue_path}/comments?render=html"]),
            # The board draws its columns and every card at once, from one request.
            (f"the board: {args.cards} cards drawn", f"{url}/#/board/{BOARD_ID}", ".board-columns .card",
             [f"/api/v1/boards/{BOARD_ID}"], [f"/api/v1/boards/{BOARD_ID}"]),
        ]
        api_times = {}
        for *_, baseline in pages:
            for path in baseline:
                timed_gets(port, interface, path, 3)
                times, status, body = timed_gets(port, interface, path, args.loads)
                if status != 200:
                    raise SystemExit(f"GET {path} answered {status}: {body[:300]!r}")
                api_times[path] = times

        met = True
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=browser_path, args=BROWSER_ARGS, headless=True)
            try:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.add_init_script(WATCH)
                page = context.new_page()
                page.goto(url + "/")
                page.get_by_label("Token").fill(interface)
                page.get_by_role("button", name="Sign in").click()
                page.get_by_role("heading", name="Issues").wait_for()
                for n, (name, address, selector, own, baseline) in enumerate(pages):
                    loads = timed_loads(page, address, selector, own, args.loads)
                    named = ("list", "issue", "board")[n]
                    trace = os.path.join(args.trace, f"web-{named}.json") if args.trace else None
                    traced = traced_load(browser, page, address, selector, own, trace)
                    met &= report(name, loads, {path: api_times[path] for path in baseline}, traced)
                page.goto(f"{url}/#/issue/{BIG}")
                page.locator("#description > *").first.wait_for()
                if len(page.locator("#description").inner_text()) < args.description_kb * 512:
                    raise SystemExit("the issue page drew its comments but not its description")
                page.goto(f"{url}/#/board/{BOARD_ID}")
                page.locator(".board-columns .card").first.wait_for()
                if page.locator(".board-columns .card").count() != args.cards:
                    raise SystemExit(f"the board drew {page.locator('.board-columns .card').count()} cards,"
                                     f" not {args.cards}")
                context.close()
                if args.rounds:
                    met &= comment_figures(browser, args.rounds)
            finally:
                browser.close()
    if args.trace:
        print(f"traces of one load of each page: {args.trace}/web-list.json, web-issue.json, web-board.json"
              " (open them in Chromium's DevTools, Performance)")
    print("all figures within target" if met else "some figures OVER TARGET")
    return 0


if __name__ == "__main__":
    sys.exit(main())
