// The issues page: a search box and filters (those GET /api/v1/issues takes,
// as /openapi.json lists them), a table, and cursor paging. The API has no
// order parameter: a search lists the best matches first, else the newest. The API pages by
// cursor only forward; "Previous" goes back through a stack of the cursors
// that led here.

import * as api from "./api.js";
import {h, issueLink, replace, say, status, table, time} from "./dom.js";

const PAGE_SIZE = 25;
// The filters the page knows how to offer, in the order shown; each appears
// only when the API lists it.
const FILTERS = [
  ["project", "Project"], ["status", "Status"], ["assignee", "Assignee"], ["issue_type", "Type"],
  ["sprint", "Sprint"], ["label", "Label"], ["epic_key", "Epic"], ["neighbor", "Neighbour"],
  ["updated_since", "Updated since"], ["fetched_since", "Fetched since"],
];

// Kept while the tab is open, so coming back from an issue shows the same page.
const view = {filters: {}, cursors: [], cursor: null, total: null};

export async function renderIssues(main, signal) {
  const params = await api.issueListParameters();
  const form = h("form", {class: "filters", role: "search", "aria-label": "Issues"});
  const fields = {};
  fields.q = h("input", {id: "f-q", name: "q", type: "search", value: view.filters.q || "",
                         placeholder: "words in key, summary, description, comments"});
  form.append(h("div", {class: "field wide"}, h("label", {for: "f-q"}, "Search"), fields.q));
  for (const [name, label] of FILTERS) {
    if (!params[name]) continue;
    fields[name] = filterInput(name, params[name], view.filters[name]);
    form.append(h("div", {class: "field"}, h("label", {for: `f-${name}`}, label), fields[name]));
  }
  form.append(h("div", {class: "buttons"},
    h("button", {type: "submit"}, "Search"),
    h("button", {type: "button", class: "secondary", onclick: () => {
      for (const input of Object.values(fields)) input.value = "";
      form.requestSubmit();
    }}, "Clear")));
  const note = h("p", {class: "note"});
  const describeOrder = () => {
    note.textContent = view.filters.q ? "Order: best match first."
      : "Order: most recently added to the mirror first (the API offers no other order).";
  };
  const line = status();
  const results = h("div", {id: "results"});
  const previous = h("button", {type: "button", class: "secondary"}, "Previous page");
  const next = h("button", {type: "button", class: "secondary"}, "Next page");
  const pageLabel = h("span", {class: "page-label"});
  const pager = h("nav", {class: "pager", "aria-label": "Pages"}, previous, pageLabel, next);
  replace(main, h("h1", {}, "Issues"), form, note, line, results, pager);

  let nextCursor = null;
  async function load() {
    describeOrder();
    previous.disabled = next.disabled = true;
    say(line, "Loading…");
    const query = {...view.filters, limit: PAGE_SIZE, cursor: view.cursor};
    let page;
    try {
      page = await api.request("GET", "/api/v1/issues", {query, signal});
    } catch (error) {
      if (error.name === "AbortError") return;
      say(line, `Could not list issues: ${error.message}`, true);
      replace(results);
      return;
    }
    if (typeof page.total === "number") view.total = page.total;
    nextCursor = page.next_cursor;
    const count = page.items.length;
    const number = view.cursors.length + 1;
    say(line, count ? `Page ${number}: ${count} issue${count === 1 ? "" : "s"}`
      + (view.total !== null ? ` of ${view.total}` : "") + "." : "No issues match.");
    pageLabel.textContent = `Page ${number}`;
    replace(results, table(null, ["Key", "Summary", "Type", "Status", "Assignee", "Updated in Jira"],
      page.items.map((item) => [
        issueLink(item.key),
        h("div", {}, h("span", {}, item.summary || "(no summary)"),
          item.neighbor ? h("span", {class: "tag"}, "neighbour") : null,
          item.snippet ? h("p", {class: "snippet"}, highlighted(item.snippet)) : null),
        item.issue_type || "—", item.status || "—", item.assignee || "—", time(item.jira_updated),
      ]), "No issues match."));
    previous.disabled = view.cursors.length === 0;
    next.disabled = nextCursor === null || nextCursor === undefined;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    view.filters = {};
    for (const [name, input] of Object.entries(fields)) {
      const value = input.value.trim();
      if (value !== "") view.filters[name] = value;
    }
    view.cursors = [];
    view.cursor = null;
    view.total = null;
    load();
  });
  next.addEventListener("click", () => {
    view.cursors.push(view.cursor);
    view.cursor = nextCursor;
    load().then(() => results.querySelector("a")?.focus());
  });
  previous.addEventListener("click", () => {
    view.cursor = view.cursors.pop() ?? null;
    load().then(() => results.querySelector("a")?.focus());
  });
  await load();
}

function filterInput(name, schema, value) {
  const id = `f-${name}`;
  if (name === "neighbor") {
    // 0 or 1, as the API's schema says.
    return h("select", {id, name},
      h("option", {value: ""}, "all issues"),
      h("option", {value: "0", selected: value === "0"}, "in the scope only"),
      h("option", {value: "1", selected: value === "1"}, "neighbours only"));
  }
  if (schema.enum) {
    return h("select", {id, name}, h("option", {value: ""}, "any"),
      schema.enum.map((option) => h("option", {value: option, selected: value === String(option)}, option)));
  }
  const hint = /_since$/.test(name) ? "2026-11-01T00:00:00+00:00" : "";
  return h("input", {id, name, type: "text", value: value || "", placeholder: hint, autocomplete: "off"});
}

/** A search snippet's pieces: the words the hub put between [[ and ]] as <mark>, the rest as text. */
export function highlighted(snippet) {
  // One scan for each [[ and the first ]] after it: a lazy pattern tried from
  // every [[ of a snippet that Jira's text filled with them took quadratic time.
  const pieces = [];
  let at = 0;
  for (;;) {
    const open = snippet.indexOf("[[", at);
    const close = open < 0 ? -1 : snippet.indexOf("]]", open + 2);
    if (close < 0) break;
    if (open > at) pieces.push(snippet.slice(at, open));
    pieces.push(h("mark", {}, snippet.slice(open + 2, close)));
    at = close + 2;
  }
  if (at < snippet.length) pieces.push(snippet.slice(at));
  return pieces;
}
