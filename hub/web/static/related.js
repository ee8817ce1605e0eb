// The issues an issue's page names: its links grouped under Jira's phrases, its sub-tasks
// and (for an epic) the epic's issues, each folded to a few rows with "Show all N".

import * as api from "./api.js";
import {h, issueLink, lozenge, person, replace, say, status, table} from "./dom.js";

/** How many rows of the sub-tasks and the epic's issues show before "Show all N". */
export const FOLDED = 5;

// The phrase a link is grouped under: Jira's own ("blocks", "is blocked by") when
// the hub knows the link type's names; else the type's name and the direction.
function phraseOf(link, direction) {
  return link.phrase && link.phrase !== link.type ? link.phrase : `${link.type} (${direction})`;
}

// What the page knows of the other issue: gone from Jira, or not mirrored at all.
function linkedState(link) {
  if (link.in_mirror === false) return h("span", {class: "tag absent"}, "not in the mirror");
  return link.gone ? h("span", {class: "tag gone"}, "gone") : null;
}

function statusOf(name, categories) {
  return name ? lozenge(name, categories?.get(name)) : "—";
}

/**
 * The links as Jira lists them: one group per phrase, outward ones (this issue
 * "blocks") before inward ones ("is blocked by"), each in the order the hub sends
 * (by type, then key), each linked issue with its summary and status.
 */
export function linkGroups(all, categories = null) {
  const groups = new Map();
  for (const [direction, items] of [["outward", all?.outward || []], ["inward", all?.inward || []]]) {
    for (const link of items) {
      const phrase = phraseOf(link, direction);
      if (!groups.has(phrase)) groups.set(phrase, []);
      groups.get(phrase).push(link);
    }
  }
  if (!groups.size) return h("p", {class: "empty"}, "No links.");
  return h("div", {class: "link-groups"}, [...groups].map(([phrase, items]) => h("div", {class: "link-group"},
    h("h3", {class: "phrase"}, phrase),
    table(null, ["Issue", "Summary", "Status"], items.map((link) => [
      h("span", {}, link.in_mirror === false ? h("span", {class: "key"}, link.key) : issueLink(link.key),
        " ", linkedState(link)),
      link.summary || "—", statusOf(link.status, categories)])))));
}

// Issues as the sub-task and epic tables list them: key, summary, status, assignee.
function issueRows(items, people, categories) {
  return items.map((item) => [
    h("span", {}, issueLink(item.key), item.gone ? h("span", {class: "tag gone"}, "gone") : null),
    item.summary || "(no summary)", statusOf(item.status, categories),
    item.assignee ? person(item.assignee, people[item.assignee]) : "—"]);
}

/**
 * A table of issues folded to FOLDED rows, with a button that shows them all (and folds them
 * again). open: {value} kept by the caller across redraws, so a live update leaves it as it was.
 */
export function foldedTable(items, people, categories, empty, open = {value: false}) {
  const box = table(null, ["Issue", "Summary", "Status", "Assignee"], issueRows(items, people, categories), empty);
  if (items.length <= FOLDED) return box;
  const rows = [...box.querySelectorAll("tbody tr")];
  const button = h("button", {type: "button", class: "secondary show-all", "aria-expanded": "false"});
  const fold = () => {
    rows.forEach((row, n) => { row.hidden = !open.value && n >= FOLDED; });
    button.textContent = open.value ? "Show fewer" : `Show all ${items.length}`;
    button.setAttribute("aria-expanded", String(open.value));
  };
  button.addEventListener("click", () => { open.value = !open.value; fold(); });
  fold();
  return h("div", {class: "folded"}, box, button);
}

/** The sub-tasks, folded to FOLDED. */
export function subtaskTable(items, people, categories, open) {
  return foldedTable(items, people || {}, categories, "No sub-tasks.", open);
}

// Jira's key order: the project, then the number (AURORA-9 before AURORA-10).
function byKey(a, b) {
  const [pa, na] = a.key.split("-"), [pb, nb] = b.key.split("-");
  return pa.localeCompare(pb) || Number(na) - Number(nb);
}

const EPIC_PAGE = 50;

/**
 * The issues whose epic is this issue (GET /api/v1/issues?epic_key=KEY), into box: the first
 * page folded to FOLDED, with the total and a link to the whole list. Asked of every issue, so
 * an epic is found whatever Jira's name for its type; section shows only when the issue is
 * an epic or some issue names it. A promise, done when drawn.
 */
export function epicIssues(issue, section, box, categories, open, signal) {
  const isEpic = String(issue.issue_type || "").toLowerCase() === "epic";
  if (!box.childElementCount) {
    section.hidden = !isEpic;
    const line = status();
    replace(box, line);
    if (isEpic) say(line, "Loading the epic's issues…");
  }
  // Asked in key order: the API's own order is the mirror's arrival, newest first, whose first
  // page of a large epic is its last-added issues (AURORA-71…120), not its first ones.
  const query = {epic_key: issue.key, limit: EPIC_PAGE, sort: "key"};
  return api.request("GET", "/api/v1/issues", {query, signal}).then((page) => {
    const items = page.items.filter((item) => item.key !== issue.key).sort(byKey);
    section.hidden = !items.length && !isEpic;
    if (section.hidden) return;
    const total = (page.total ?? page.items.length) - (page.items.length - items.length);
    const whole = `#/issues?epic_key=${encodeURIComponent(issue.key)}`;
    const people = {...(issue.people || {}), ...(page.people || {})};
    replace(box,
      h("p", {class: "meta", id: "epic-total"}, total === 1 ? "1 issue" : `${total} issues`,
        total > items.length ? ` (the first ${items.length} read)` : "", " · ",
        h("a", {href: whole}, "list them with the issues' filters")),
      foldedTable(items, people, categories, "No issues in this epic.", open));
  }, (error) => {
    if (error.name === "AbortError") return;
    section.hidden = false;
    const line = status();
    replace(box, line);
    say(line, `Could not list the epic's issues: ${error.message}`, true);
  });
}
