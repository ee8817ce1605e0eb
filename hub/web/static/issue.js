// One issue: its fields (fields.js), description and environment, custom
// fields, links both ways worded as Jira words them, attachments, comments,
// worklogs, changelog, and the hub's notes on it (add, edit, delete).

import * as api from "./api.js";
import {attachmentsPanel} from "./attachments.js";
import {FIRST_PAGE, commentsPanel, who} from "./comments.js";
import {h, issueLink, newest, replace, say, status, table, time} from "./dom.js";
import {customFieldTable, fieldRows, person} from "./fields.js";
import {wikiBlock} from "./rendered.js";
import {worklogsPanel} from "./worklogs.js";

export async function renderIssue(main, key, signal) {
  const path = `/api/v1/issues/${encodeURIComponent(key)}`;
  replace(main, h("p", {class: "status", role: "status"}, `Loading ${key}…`));
  let issue, comments, changes;
  try {
    [issue, comments, changes] = await Promise.all([
      // The hub renders Jira's wiki text (render=html): sanitised HTML beside each raw field.
      api.request("GET", path, {query: {render: "html"}, signal}),
      api.request("GET", `${path}/comments`, {query: FIRST_PAGE, signal}),
      api.request("GET", `${path}/changes`, {signal}),
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
  document.title = `${issue.key} · ${issue.summary || "(no summary)"} · sdlc-hub`;
  // Opened at an old key of a moved issue: the address names the key it has now (no new history entry).
  if (issue.key !== key) history.replaceState(null, "", `#/issue/${encodeURIComponent(issue.key)}`);
  replace(main,
    h("p", {}, h("a", {href: "#/issues"}, "← Issues")),
    h("h1", {}, h("span", {class: "key"}, issue.key), " ", issue.summary || "(no summary)"),
    issue.gone ? goneBanner(issue) : null,
    movedFrom(issue.moved_from),
    h("div", {class: "issue-layout"},
      h("aside", {class: "side", "aria-labelledby": "s-fields"}, h("h2", {id: "s-fields"}, "Fields"),
        h("dl", {class: "fields"}, fieldRows(issue).map(([label, value]) => [h("dt", {}, label), h("dd", {}, value)]))),
      h("div", {class: "body"},
        section("Description", issue.description
          ? wikiBlock(issue.description_html, {id: "description"}, signal)
          : h("p", {class: "empty"}, "No description.")),
        issue.environment
          ? section("Environment", wikiBlock(issue.environment_html, {id: "environment"}, signal))
          : null,
        "custom_fields" in issue ? section("Custom fields", customFieldTable(issue.custom_fields, issue.people || {}, signal)) : null,
        section("Links", linkGroups(issue.links)),
        "subtasks" in issue && issue.subtasks.length
          ? section("Sub-tasks", subtaskTable(issue.subtasks, issue.people || {})) : null,
        epicPanel(issue, signal))),
    section("Attachments", attachmentsPanel(issue.key, signal)),
    section("Comments", commentsPanel(issue.key, comments, signal)),
    section("Worklogs", worklogsPanel(issue.key, signal)),
    section("Changelog", changelog(changes.items)),
    section("Notes", notesPanel(issue.key, signal)));
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

/**
 * The links as Jira lists them: one group per phrase, outward ones (this issue
 * "blocks") before inward ones ("is blocked by"), each in the order the hub sends
 * (by type, then key), each linked issue with its summary and status.
 */
export function linkGroups(all) {
  const groups = new Map();
  for (const [direction, items] of [["outward", all.outward || []], ["inward", all.inward || []]]) {
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
      link.summary || "—", link.status || "—"])))));
}

// Issues as the sub-task and epic tables list them: key, summary, status, assignee.
function issueRows(items, people) {
  return items.map((item) => [
    h("span", {}, issueLink(item.key), item.gone ? h("span", {class: "tag gone"}, "gone") : null),
    item.summary || "(no summary)", item.status || "—", person(item.assignee, people)]);
}

function subtaskTable(items, people) {
  return table(null, ["Issue", "Summary", "Status", "Assignee"], issueRows(items, people), "No sub-tasks.");
}

// Jira's key order: the project, then the number (AURORA-9 before AURORA-10).
function byKey(a, b) {
  const [pa, na] = a.key.split("-"), [pb, nb] = b.key.split("-");
  return pa.localeCompare(pb) || Number(na) - Number(nb);
}

const EPIC_PAGE = 50;

/**
 * The issues whose epic is this issue (GET /api/v1/issues?epic_key=KEY): the first
 * page with the total and a link to the whole list. Asked of every issue, so an
 * epic is found whatever Jira's name for its type; the section shows only when
 * the issue is an epic or some issue names it.
 */
function epicPanel(issue, signal) {
  const title = "Issues in this epic";
  const box = h("div", {});
  const panel = section(title, box);
  const isEpic = String(issue.issue_type || "").toLowerCase() === "epic";
  panel.hidden = !isEpic;
  const line = status();
  replace(box, line);
  if (isEpic) say(line, "Loading the epic's issues…");
  api.request("GET", "/api/v1/issues", {query: {epic_key: issue.key, limit: EPIC_PAGE}, signal}).then((page) => {
    const items = [...page.items].sort(byKey);
    if (!items.length && !isEpic) return;
    panel.hidden = false;
    const total = page.total ?? items.length;
    const whole = `#/issues?epic_key=${encodeURIComponent(issue.key)}`;
    replace(box,
      h("p", {class: "meta", id: "epic-total"}, total === 1 ? "1 issue" : `${total} issues`,
        total > items.length ? ` (the first ${items.length} shown)` : "", " · ",
        h("a", {href: whole}, "list them with the issues' filters")),
      table(null, ["Issue", "Summary", "Status", "Assignee"], issueRows(items, issue.people || {}),
        "No issues in this epic."));
  }, (error) => {
    if (error.name === "AbortError") return;
    panel.hidden = false;
    say(line, `Could not list the epic's issues: ${error.message}`, true);
  });
  return panel;
}

// The author as a person reads them: the display name the hub knows, with the login.
// A user field's change carries the login names of Jira's user keys when the hub knows them.
function changed(string, name, raw) {
  if (string !== null && string !== undefined) return name && name !== string ? `${string} (${name})` : string;
  return name ?? raw ?? "—";
}

function changelog(items) {
  return table(null, ["When", "Who", "Field", "From", "To"], items.map((item) => [
    time(item.created_at || item.created), item.author ? who(item) : "—", item.field,
    changed(item.from_string, item.from_name, item.from), changed(item.to_string, item.to_name, item.to),
  ]), "No changes recorded.");
}

function notesPanel(key, signal) {
  const path = `/api/v1/issues/${encodeURIComponent(key)}/notes`;
  const list = h("ul", {class: "notes"});
  const line = status();
  const text = h("textarea", {id: "new-note", name: "body", rows: 3, required: true, maxlength: 100000});
  const form = h("form", {class: "note-form"},
    h("label", {for: "new-note"}, "New note"), text, h("button", {type: "submit"}, "Add note"));

  // Only a note's author (its token's name) or an admin may change it: the hub answers anyone
  // else 403, so the page offers them no Edit or Delete.
  const mayChange = api.me()
    .then((who) => (note) => who.role === "admin" || note.author === who.name)
    .catch(() => () => false);

  // Read again after each change: two quick changes' reads may be answered out of order.
  const read = newest();
  async function load() {
    const current = read();
    try {
      const [notes, may] = await Promise.all([api.request("GET", path, {signal}), mayChange]);
      if (!current()) return;
      replace(list, notes.items.map((note) => noteItem(note, may(note))));
      if (!notes.items.length) list.append(h("li", {class: "empty"}, "No notes yet."));
    } catch (error) {
      if (error.name !== "AbortError") say(line, `Could not read the notes: ${error.message}`, true);
    }
  }

  async function act(what, call) {
    try {
      await call();
      say(line, what);
      await load();
      return true;
    } catch (error) {
      if (error.name !== "AbortError") say(line, `${error.message}`, true);
      return false;
    }
  }

  function noteItem(note, mayChange) {
    const item = h("li", {class: "note-item"});
    const show = () => replace(item,
      h("p", {class: "body"}, note.body),
      h("p", {class: "meta"}, note.author, " · ", time(note.updated_at)),
      mayChange ? h("div", {class: "buttons"},
        h("button", {type: "button", class: "secondary", onclick: edit}, "Edit"),
        h("button", {type: "button", class: "secondary", onclick: remove}, "Delete")) : null);
    const edit = () => {
      const id = `note-${note.id}`;
      const area = h("textarea", {id, rows: 3, value: note.body, required: true});
      const editing = h("form", {},
        h("label", {for: id}, "Edit note"), area,
        h("div", {class: "buttons"},
          h("button", {type: "submit"}, "Save"),
          h("button", {type: "button", class: "secondary", onclick: show}, "Cancel")));
      editing.addEventListener("submit", (event) => {
        event.preventDefault();
        act("Note saved.", () => api.request("PATCH", `/api/v1/notes/${note.id}`, {body: {body: area.value}}));
      });
      replace(item, editing);
      area.focus();
    };
    // Two steps instead of confirm(): a dialog would block the page.
    const remove = () => {
      const yes = h("button", {type: "button", class: "danger", onclick: () =>
        act("Note deleted.", () => api.request("DELETE", `/api/v1/notes/${note.id}`))}, "Confirm delete");
      replace(item, h("p", {class: "body"}, note.body), h("div", {class: "buttons"}, yes,
        h("button", {type: "button", class: "secondary", onclick: show}, "Keep")));
      yes.focus();
    };
    show();
    return item;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!text.value.trim()) return;
    if (await act("Note added.", () => api.request("POST", path, {body: {body: text.value}}))) text.value = "";
  });
  load();
  return h("div", {}, list, form, line);
}
