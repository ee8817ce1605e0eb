// The issues page: a search box and filters (those GET /api/v1/issues takes,
// as /openapi.json lists them), an order when the API offers one, a table, and
// cursor paging. The filters are kept in the address (#/issues?status=Open&…),
// so a filtered list can be bookmarked, linked to and gone back to. The API
// pages by cursor only forward; "Previous" goes back through a stack of the
// cursors that led here.

import * as api from "./api.js";
import {h, issueLink, replace, say, status, table, time} from "./dom.js";
import {clearJqlError, jqlError, savedFilters, showJqlError} from "./jql.js";

const PAGE_SIZE = 25;
// The filters the page knows how to offer, in the order shown; each appears
// only when the API lists it.
const FILTERS = [
  ["project", "Project"], ["status", "Status"], ["resolution", "Resolution"], ["assignee", "Assignee"],
  ["issue_type", "Type"], ["sprint", "Sprint"], ["component", "Component"], ["fix_version", "Fix version"],
  ["affects_version", "Affects version"], ["label", "Label"], ["epic_key", "Epic"], ["parent", "Parent"],
  ["neighbor", "Neighbour"], ["gone", "Gone"], ["updated_since", "Updated since"], ["fetched_since", "Fetched since"],
];
const HINTS = {component: "a name", fix_version: "a name or id", affects_version: "a name or id",
               parent: "AURORA-12", resolution: "a name, or none"};
const ORDERS = {priority: "priority (Jira's order), then key"};
// Sprints offered by the sprint filter: at most this many pages of the API's sprints.
const SPRINT_PAGES = 10;

// Kept while the tab is open, so coming back from an issue shows the same page.
const view = {filters: {}, cursors: [], cursor: null, total: null};

/** The address of the list with these filters. */
export function listHash(filters) {
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== "")).toString();
  return query ? `#/issues?${query}` : "#/issues";
}

// The filters the address names (null when it names none: the list as last left).
function addressFilters(known) {
  const at = location.hash.indexOf("?");
  if (at < 0) return null;
  const filters = {};
  for (const [name, value] of new URLSearchParams(location.hash.slice(at + 1))) {
    if (known.has(name) && value.trim() !== "") filters[name] = value.trim();
  }
  return filters;
}

function same(a, b) {
  return listHash(a) === listHash(b);
}

export async function renderIssues(main, signal) {
  const params = await api.issueListParameters();
  const known = new Set(["q", "jql", "sort", "limit", ...FILTERS.map(([name]) => name)]
    .filter((name) => params[name]));
  const asked = addressFilters(known);
  if (asked !== null && !same(asked, view.filters)) {
    Object.assign(view, {filters: asked, cursors: [], cursor: null, total: null});
  } else if (asked === null && Object.keys(view.filters).length) {
    history.replaceState(null, "", listHash(view.filters));
  }
  const choices = await filterChoices(params, signal);
  const form = h("form", {class: "filters", role: "search", "aria-label": "Issues"});
  const fields = {};
  fields.q = h("input", {id: "f-q", name: "q", type: "search", value: view.filters.q || "",
                         placeholder: "words in key, summary, description, comments"});
  form.append(h("div", {class: "field wide"}, h("label", {for: "f-q"}, "Search"), fields.q));
  // JQL, beside the plain search: its error is shown under it, the character marked.
  const jqlErrors = h("div", {id: "jql-error", class: "jql-error", role: "alert", hidden: true});
  if (params.jql) {
    fields.jql = h("input", {id: "f-jql", name: "jql", type: "text", value: view.filters.jql || "",
                             autocomplete: "off", spellcheck: "false", "aria-describedby": "jql-error",
                             placeholder: "JQL, e.g. status in (Open, \"In Progress\") ORDER BY priority DESC"});
    form.append(h("div", {class: "field wide"}, h("label", {for: "f-jql"}, "JQL"), fields.jql, jqlErrors));
  }
  for (const [name, label] of FILTERS) {
    if (!params[name]) continue;
    fields[name] = filterInput(name, params[name], view.filters[name], choices[name]);
    form.append(h("div", {class: "field"}, h("label", {for: `f-${name}`}, label), fields[name]));
  }
  if (params.sort) {
    fields.sort = orderInput(params.sort, view.filters.sort);
    form.append(h("div", {class: "field"}, h("label", {for: "f-sort"}, "Order"), fields.sort));
  }
  form.append(h("div", {class: "buttons"},
    h("button", {type: "submit"}, "Search"),
    h("button", {type: "button", class: "secondary", onclick: () => {
      for (const input of Object.values(fields)) input.value = "";
      form.requestSubmit();
    }}, "Clear")));
  const note = h("p", {class: "note"});
  const describeOrder = () => {
    if (view.filters.jql) note.textContent = "Order: the query's ORDER BY (key descending when it has none).";
    else if (view.filters.sort) note.textContent = `Order: ${ORDERS[view.filters.sort] || view.filters.sort}.`;
    else if (view.filters.q) note.textContent = "Order: best match first.";
    else note.textContent = params.sort ? "Order: most recently added to the mirror first."
      : "Order: most recently added to the mirror first (the API offers no other order).";
  };
  const line = status();
  const results = h("div", {id: "results"});
  const previous = h("button", {type: "button", class: "secondary"}, "Previous page");
  const next = h("button", {type: "button", class: "secondary"}, "Next page");
  const pageLabel = h("span", {class: "page-label"});
  const pager = h("nav", {class: "pager", "aria-label": "Pages"}, previous, pageLabel, next);
  const saved = params.jql && await api.offers("/api/v1/filters")
    ? await savedFilters(() => fields.jql.value.trim(), fields.jql, jqlErrors, signal) : null;
  replace(main, h("h1", {}, "Issues"), form, note, line, results, pager, saved);

  let nextCursor = null;
  async function load() {
    describeOrder();
    previous.disabled = next.disabled = true;
    say(line, "Loading…");
    // A page's size other than PAGE_SIZE comes from the address only (#/issues?limit=50).
    const query = {limit: PAGE_SIZE, ...view.filters, cursor: view.cursor};
    let page;
    try {
      page = await api.request("GET", "/api/v1/issues", {query, signal});
    } catch (error) {
      if (error.name === "AbortError") return;
      const wrong = jqlError(error);
      if (wrong) showJqlError(fields.jql, jqlErrors, wrong);
      say(line, `Could not list issues: ${error.message}`, true);
      replace(results);
      return;
    }
    if (fields.jql) clearJqlError(jqlErrors);
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
          item.gone ? h("span", {class: "tag gone"}, "gone") : null,
          item.snippet ? h("p", {class: "snippet"}, highlighted(item.snippet)) : null),
        item.issue_type || "—", item.status || "—", item.assignee || "—", time(item.jira_updated),
      ]), "No issues match."));
    previous.disabled = view.cursors.length === 0;
    next.disabled = nextCursor === null || nextCursor === undefined;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    // The page's size has no field of its own: it stays as the address set it.
    view.filters = view.filters.limit ? {limit: view.filters.limit} : {};
    for (const [name, input] of Object.entries(fields)) {
      const value = input.value.trim();
      if (value !== "") view.filters[name] = value;
    }
    // The hub counts a JQL error's character in the query as sent: the box holds just that.
    if (fields.jql) fields.jql.value = view.filters.jql || "";
    view.cursors = [];
    view.cursor = null;
    view.total = null;
    // A new entry of the tab's history (no hashchange, so the page is not built again):
    // Back returns to the filters before.
    if (location.hash !== listHash(view.filters)) history.pushState(null, "", listHash(view.filters));
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

// What the sprint and resolution filters offer: the hub's sprints (past ones
// included) and Jira's resolutions. Either missing (an older hub, an agent that
// sent no catalogue) leaves a text field.
async function filterChoices(params, signal) {
  const choices = {};
  const tasks = [];
  if (params.sprint && await api.offers("/api/v1/sprints")) {
    tasks.push(allSprints(signal).then((sprints) => { if (sprints.length) choices.sprint = sprints; }));
  }
  if (params.resolution && await api.offers("/api/v1/catalogues")) {
    tasks.push(api.request("GET", "/api/v1/catalogues", {signal}).then((catalogues) => {
      const names = (catalogues.resolutions || []).map((item) => item.name);
      if (names.length) choices.resolution = names;
    }));
  }
  const settled = await Promise.allSettled(tasks);
  const aborted = settled.find((one) => one.status === "rejected" && one.reason?.name === "AbortError");
  if (aborted) throw aborted.reason;
  return choices;
}

async function allSprints(signal) {
  const sprints = [];
  let cursor = null;
  for (let page = 0; page < SPRINT_PAGES; page += 1) {
    const answer = await api.request("GET", "/api/v1/sprints", {query: {limit: 100, cursor}, signal});
    sprints.push(...answer.items);
    cursor = answer.next_cursor;
    if (cursor === null || cursor === undefined) break;
  }
  return sprints;
}

function sprintSelect(id, name, sprints, value) {
  const groups = new Map();
  for (const sprint of sprints) {
    const state = sprint.state || "other";
    if (!groups.has(state)) groups.set(state, []);
    groups.get(state).push(sprint);
  }
  const listed = sprints.some((sprint) => String(sprint.id) === value || sprint.name === value);
  return h("select", {id, name}, h("option", {value: ""}, "any"),
    value && !listed ? h("option", {value, selected: true}, value) : null,
    [...groups].map(([state, members]) => h("optgroup", {label: state},
      members.map((sprint) => h("option", {value: String(sprint.id),
        selected: String(sprint.id) === value || sprint.name === value}, `${sprint.name} (${state})`)))));
}

function resolutionSelect(id, name, names, value) {
  const listed = value === "none" || names.includes(value);
  return h("select", {id, name}, h("option", {value: ""}, "any"),
    h("option", {value: "none", selected: value === "none"}, "unresolved"),
    value && !listed ? h("option", {value, selected: true}, value) : null,
    names.map((option) => h("option", {value: option, selected: value === option}, option)));
}

function orderInput(schema, value) {
  const orders = schema.enum || ["priority"];
  return h("select", {id: "f-sort", name: "sort"}, h("option", {value: ""}, "default"),
    orders.map((order) => h("option", {value: order, selected: value === order}, ORDERS[order] || order)));
}

function filterInput(name, schema, value, choices) {
  const id = `f-${name}`;
  if (name === "sprint" && choices) return sprintSelect(id, name, choices, value);
  if (name === "resolution" && choices) return resolutionSelect(id, name, choices, value);
  if (name === "neighbor") {
    // 0 or 1, as the API's schema says.
    return h("select", {id, name},
      h("option", {value: ""}, "all issues"),
      h("option", {value: "0", selected: value === "0"}, "in the scope only"),
      h("option", {value: "1", selected: value === "1"}, "neighbours only"));
  }
  if (name === "gone") {
    // Without it the API leaves gone issues out (false is its default).
    return h("select", {id, name},
      h("option", {value: ""}, "issues Jira still has"),
      h("option", {value: "true", selected: value === "true"}, "gone from Jira only"),
      h("option", {value: "any", selected: value === "any"}, "both"));
  }
  if (schema.enum) {
    return h("select", {id, name}, h("option", {value: ""}, "any"),
      schema.enum.map((option) => h("option", {value: option, selected: value === String(option)}, option)));
  }
  const hint = /_since$/.test(name) ? "2026-11-01T00:00:00+00:00" : HINTS[name] || "";
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
