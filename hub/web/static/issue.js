// One issue, laid out as Jira lays it out: the title and the actions; the description with
// the details beside it (stacked on a narrow screen, after the key facts); right under it the
// activity — comments, history, work log — as tabs; then the links, sub-tasks, the epic's
// issues, attachments, custom fields and the hub's notes.
//
// The page stays current: while it is visible it reads the issue again every 2 s (with
// If-None-Match, so an unchanged issue costs a 304) and, when the issue changed, re-reads
// its comments, history, worklogs and attachments and redraws only the parts that differ.
// The write controls (issue_writes.js) live in containers this page makes once and never
// redraws, so what the reader is typing or editing survives every update.

import * as api from "./api.js";
import {changelog, tabs} from "./activity.js";
import {attachmentsPanel} from "./attachments.js";
import {FIRST_PAGE, commentsPanel} from "./comments.js";
import {h, replace, say, sleep, status, time} from "./dom.js";
import {customFieldList, fieldDiv, fieldRows, keyFacts} from "./fields.js";
import {mountWrites} from "./issue_writes.js";
import {notesPanel} from "./notes.js";
import {ATTACHMENT_READY, wikiBlock} from "./rendered.js";
import {epicIssues, linkGroups, subtaskTable} from "./related.js";
import {worklogsPanel} from "./worklogs.js";

/** How often a visible issue page reads the issue again (ms). */
export const LIVE_MS = 2000;

const SAFE_URL = /^https?:\/\//i;

// The status categories (name -> category_key) from the catalogues, read once per page.
function statusCategories(signal) {
  return api.request("GET", "/api/v1/catalogues", {signal})
    .then((catalogues) => new Map((catalogues.statuses || []).map((one) => [one.name, one.category_key])))
    .catch(() => new Map());
}

export async function renderIssue(main, key, signal) {
  let path = `/api/v1/issues/${encodeURIComponent(key)}`;
  let etag = null;
  replace(main, h("p", {class: "status", role: "status"}, `Loading ${key}…`));

  // The issue with its rendered text; null when it is unchanged since the last read (304).
  async function readIssue(conditional) {
    const headers = conditional && etag ? {"If-None-Match": etag} : {};
    try {
      const response = await api.request("GET", path, {query: {render: "html"}, signal, raw: true, headers});
      etag = response.headers.get("ETag");
      return await response.json();
    } catch (error) {
      if (error.status === 304) return null;
      throw error;
    }
  }

  let issue, comments, changes, who, categories;
  try {
    [issue, comments, changes, who, categories] = await Promise.all([
      readIssue(false),
      api.request("GET", `${path}/comments`, {query: FIRST_PAGE, signal}),
      api.request("GET", `${path}/changes`, {signal}),
      api.me(),
      statusCategories(signal),
    ]);
  } catch (error) {
    // Aborted also when the page was left meanwhile: a revoked token's 401 shows the sign-in.
    if (error.name === "AbortError" || signal.aborted) return;
    replace(main, h("p", {}, h("a", {href: "#/issues"}, "← Issues")), h("h1", {}, key),
      h("p", {class: "status error", role: "alert"},
        error.status === 404 ? `No issue ${key} in the mirror.` : `Could not read ${key}: ${error.message}`));
    return;
  }
  if (signal.aborted) return;  // left while the issue was read: the page is another's now
  // Opened at an old key of a moved issue: the address names the key it has now (no new history entry).
  if (issue.key !== key) {
    history.replaceState(null, "", `#/issue/${encodeURIComponent(issue.key)}`);
    path = `/api/v1/issues/${encodeURIComponent(issue.key)}`;
  }
  const may = who?.may || [];

  // --- the containers the write controls go in (made once, never redrawn) ---
  const containers = {
    summary: h("span", {class: "summary", id: "issue-summary"}),
    actions: h("div", {class: "issue-actions", role: "group", "aria-label": "Issue actions"}),
    details: h("dl", {class: "fields", id: "details"}),
    comments: h("div", {class: "comment-editor"}),
    pendingComments: h("div", {class: "pending-comments"}),
    worklogs: h("div", {class: "worklog-editor"}),
    pendingWorklogs: h("div", {class: "pending-worklogs"}),
    links: h("div", {class: "link-editor"}),
    // The write controls make it a drop zone (write_attach.js) for a token that may write.
    attachments: h("div", {class: "attachment-drop"}),
    writes: h("div", {class: "write-messages", "aria-live": "polite"}),
    description: h("div", {class: "description-editor"}),
  };

  // --- the parts this page redraws ---
  const banners = h("div", {class: "banners"});
  const facts = h("dl", {class: "key-facts"});
  const description = h("div", {class: "description-box"});
  const environment = section("Environment", h("div", {}));
  const linksBox = h("div", {});
  const subtasksBox = h("div", {});
  const subtasks = section("Sub-tasks", subtasksBox);
  const epicBox = h("div", {});
  const epic = section("Issues in this epic", epicBox);
  const customBox = h("div", {});
  const custom = section("Custom fields", customBox);
  const historyBox = h("div", {});
  const folds = {subtasks: {value: false}, epic: {value: false}};
  const drawn = new WeakMap();  // a <dd> -> what was last drawn in it (serialized), to redraw only what changed
  const serialized = (node) => new XMLSerializer().serializeToString(node);
  let lastDescription = null, lastEnvironment = null, lastChanges = "";

  const commentPanel = commentsPanel(issue.key, comments, signal);
  const activity = tabs([
    {id: "s-comments", label: "Comments",
      content: [commentPanel.node, containers.pendingComments, containers.comments]},
    {id: "s-changelog", label: "History", content: historyBox},
    {id: "s-worklogs", label: "Work log", content: null},
  ], "Activity");
  const worklogs = worklogsPanel(issue.key, signal, (n) => activity.count("s-worklogs", n));
  activity.node.querySelector("#s-worklogs-panel").append(worklogs.node, containers.pendingWorklogs,
    containers.worklogs);
  const attachments = attachmentsPanel(issue.key, signal);
  const jira = jiraActions(issue, may, signal);

  containers.actions.append(jira.node);
  replace(main,
    h("p", {class: "back"}, h("a", {href: "#/issues"}, "← Issues")),
    h("div", {class: "issue-head"},
      h("h1", {}, h("span", {class: "key"}, issue.key), " ", containers.summary),
      containers.actions),
    banners,
    containers.writes,
    h("div", {class: "issue-layout"},
      facts,
      h("section", {class: "description", "aria-labelledby": "s-description"},
        h("h2", {id: "s-description"}, "Description"), description, containers.description),
      environment,
      h("section", {class: "activity-section", "aria-labelledby": "s-activity"},
        h("h2", {id: "s-activity"}, "Activity"), activity.node),
      h("aside", {class: "side", "aria-labelledby": "s-fields"},
        h("h2", {id: "s-fields"}, "Details"), containers.details)),
    section("Links", linksBox, containers.links),
    subtasks,
    epic,
    section("Attachments", attachments.node, containers.attachments),
    custom,
    section("Notes", notesPanel(issue.key, signal)));

  // An inline image fetched from the description or a comment: the attachments table says so.
  main.addEventListener(ATTACHMENT_READY, () => attachments.reload(), {signal});

  // Draws every read-only part from the issue as read; each only when it changed.
  function drawIssue() {
    document.title = `${issue.key} · ${issue.summary || "(no summary)"} · sdlc-hub`;
    const summary = containers.summary;
    if (!summary.classList.contains("editing") && !summary.contains(document.activeElement)) {
      const text = issue.summary || "(no summary)";
      if (summary.textContent !== text) summary.textContent = text;
    }
    replace(banners, issue.gone ? goneBanner(issue) : null, movedFrom(issue.moved_from));
    replace(facts, keyFacts(issue, categories).map(([label, value]) => h("div", {}, h("dt", {}, label),
      h("dd", {}, value))));
    if (issue.description_html !== lastDescription || lastDescription === null) {
      lastDescription = issue.description_html ?? "";
      replace(description, issue.description
        ? wikiBlock(issue.description_html, {id: "description"}, signal)
        : h("p", {class: "empty", id: "description"}, "No description."));
    }
    environment.hidden = !issue.environment;
    if (issue.environment && issue.environment_html !== lastEnvironment) {
      lastEnvironment = issue.environment_html;
      replace(environment.querySelector("div"), wikiBlock(issue.environment_html, {id: "environment"}, signal));
    }
    drawDetails();
    replace(linksBox, linkGroups(issue.links, categories));
    const subs = issue.subtasks || [];
    subtasks.hidden = !subs.length;
    replace(subtasksBox, subs.length ? subtaskTable(subs, issue.people, categories, folds.subtasks) : null);
    const customList = customFieldList(issue, signal);
    custom.hidden = !customList;
    replace(customBox, customList);
    jira.update(issue);
    activity.count("s-comments", commentPanel.count());
  }

  // The details panel: each field a div.field kept across updates (the write controls hang on
  // them); a <dd> is drawn again only when its value changed and never while it is edited.
  function drawDetails() {
    const rows = fieldRows(issue, categories, {fillable: may.includes("write")});
    const wanted = new Set(rows.map((row) => row.name));
    const existing = new Map([...containers.details.querySelectorAll(":scope > div.field")]
      .map((div) => [div.dataset.field, div]));
    for (const [name, div] of existing) {
      if (!wanted.has(name) && !div.classList.contains("editing")) div.remove();
    }
    let cursor = containers.details.firstElementChild;
    for (const row of rows) {
      let div = existing.get(row.name);
      if (!div) {
        div = fieldDiv(row);
        drawn.set(div.querySelector("dd"), serialized(div.querySelector("dd")));
      } else if (!div.classList.contains("editing")) {
        const fresh = h("dd", {}, row.value);
        const dd = div.querySelector(":scope > dd");
        const text = serialized(fresh);
        if (dd && drawn.get(dd) !== text) {
          dd.replaceChildren(...fresh.childNodes);
          drawn.set(dd, text);
        }
      }
      if (div === cursor) cursor = cursor.nextElementSibling;
      else containers.details.insertBefore(div, cursor);
    }
  }

  function drawChanges(page) {
    const seen = JSON.stringify(page.items);
    if (seen === lastChanges) return;
    lastChanges = seen;
    replace(historyBox, changelog(page.items));
    activity.count("s-changelog", page.items.length);
  }

  drawIssue();
  drawChanges(changes);
  epicIssues(issue, epic, epicBox, categories, folds.epic, signal);

  // One read after another: a write's reload and the 2-second read never draw at once.
  let chain = Promise.resolve();
  function refresh(force) {
    const run = chain.then(() => update(force));
    chain = run.catch(() => {});
    return run;
  }

  // Read the issue again; when it changed (or force), its parts too. Whether it changed.
  async function update(force) {
    if (signal.aborted) return false;
    const parts = () => Promise.all([
      api.request("GET", `${path}/comments`, {query: FIRST_PAGE, signal}),
      api.request("GET", `${path}/changes`, {signal}),
    ]);
    // Asked for (a write ended): the comments and the history are read beside the issue, so a
    // write's outcome shows a round trip sooner.
    const early = force ? parts() : null;
    early?.catch(() => {});
    const fresh = await readIssue(!force);
    if (fresh === null || signal.aborted) return false;
    if (!force && JSON.stringify(fresh) === JSON.stringify(issue)) return false;
    issue = fresh;
    const focused = document.activeElement;
    const [page, history] = await (early || parts());
    if (signal.aborted) return false;
    drawIssue();
    await commentPanel.update(page);
    activity.count("s-comments", commentPanel.count());
    drawChanges(history);
    await Promise.all([worklogs.reload(), attachments.reload(),
      epicIssues(issue, epic, epicBox, categories, folds.epic, signal)]);
    // Focus on something drawn again (a "Show more" button, a link) goes to its successor.
    if (focused?.id && !focused.isConnected) document.getElementById(focused.id)?.focus({preventScroll: true});
    writes.update(issue);
    jira.changed();
    return true;
  }

  const reload = () => refresh(true);
  const writes = mountWrites({issue, may, signal, reload, containers});
  live(refresh, signal);
}

// Reads the issue again every LIVE_MS while the page is visible (at once when it shows again).
async function live(refresh, signal) {
  let wake = null;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") wake?.abort();
  }, {signal});
  signal.addEventListener("abort", () => wake?.abort(), {once: true});
  while (!signal.aborted) {
    wake = new AbortController();
    await sleep(LIVE_MS, wake.signal);
    if (signal.aborted) return;
    if (document.visibilityState !== "visible") continue;
    try {
      await refresh(false);
    } catch (error) {
      // A failed read (the hub restarting, a moment off the network) is tried again next time;
      // a 401 has already shown the sign-in.
      if (error.name === "AbortError" || error.status === 401) return;
    }
  }
}

/**
 * This page's own group in the actions toolbar: "Open in Jira" (the issue's jira_url, when
 * the hub knows Jira's address) and "Refresh from Jira" (a one-issue refresh, when the token
 * may ask one), with a line saying how the refresh goes. {node, update(issue), changed()}.
 */
function jiraActions(issue, may, signal) {
  const open = h("a", {class: "button-link secondary", target: "_blank", rel: "noopener noreferrer", hidden: true},
    "Open in Jira");
  const line = status();
  let asked = false;
  const refresh = may.includes("refresh_issue")
    ? h("button", {type: "button", class: "secondary", id: "refresh-issue"}, "Refresh from Jira") : null;
  refresh?.addEventListener("click", async () => {
    refresh.disabled = true;
    say(line, "Asking for a refresh…");
    try {
      const response = await api.request("POST", `/api/v1/issues/${encodeURIComponent(issue.key)}/refresh`,
        {signal, raw: true});
      asked = true;
      say(line, response.status === 200 ? "Refresh asked already; the page updates itself when Jira answers."
        : "Refresh asked… the page updates itself when Jira answers.");
    } catch (error) {
      if (error.name !== "AbortError") say(line, `Could not ask for a refresh: ${error.message}`, true);
    } finally {
      refresh.disabled = false;
    }
  });
  function update(fresh) {
    issue = fresh;
    const url = fresh.jira_url;
    open.hidden = !(typeof url === "string" && SAFE_URL.test(url));
    if (!open.hidden) open.href = url;
  }
  function changed() {
    if (!asked) return;
    asked = false;
    say(line, `Updated from Jira at ${new Date().toLocaleTimeString()}.`);
  }
  update(issue);
  return {node: h("div", {class: "jira-actions"}, open, refresh, line), update, changed};
}

// A gone issue keeps its page (and its notes): it says when the hub found it gone, and why.
function goneBanner(issue) {
  return h("div", {class: "gone-banner", role: "alert"},
    h("strong", {}, "Gone from Jira"), " since ", time(issue.gone_at), ": ",
    `${issue.gone_reason || "not found in Jira"}.`,
    " The hub keeps what it mirrored; the issue comes back if Jira returns it again.");
}

// The keys Jira gave the issue before it moved, oldest first.
function movedFrom(keys) {
  return keys && keys.length ? h("p", {class: "moved", id: "moved-from"}, `moved from ${keys.join(", ")}`) : null;
}

function section(title, ...content) {
  const id = `s-${title.toLowerCase().replace(/\s+/g, "-")}`;
  return h("section", {"aria-labelledby": id}, h("h2", {id}, title), content);
}
