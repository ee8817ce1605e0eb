// The issues page: a search box and filters (those GET /api/v1/issues takes,
// as /openapi.json lists them), each offering the values the current query's issues
// hold (facets.js), a table whose headers sort it and whose columns are chosen
// (columns.js), and cursor paging. Everything of the list is in the address
// (#/issues?status=Open&sort=-priority&cursor=25&page=2): the search, JQL, filters,
// order and page, so reload, Back/Forward and a pasted link show the same list. The
// API pages by cursor only forward; "Previous" goes back through the cursors that led
// here, kept in the history entry (history.state), or, where the cursor is an offset,
// computed from it.

import * as api from "./api.js";
import {h, newest, replace, say, status} from "./dom.js";
import {chooser, shown} from "./columns.js";
import {facetPanel, fetchFacets, offer} from "./facets.js";
import {clearJqlError, jqlError, savedFilters, showJqlError} from "./jql.js";
import {cards, foldFilters} from "./phone.js";

const PAGE_SIZE = 25;
// The filters the page knows how to offer, in the order shown; each appears
// only when the API lists it.
const FILTERS = [
  ["project", "Project"], ["status", "Status"], ["resolution", "Resolution"], ["assignee", "Assignee"],
  ["reporter", "Reporter"], ["issue_type", "Type"], ["priority", "Priority"], ["sprint", "Sprint"],
  ["component", "Component"], ["fix_version", "Fix version"], ["affects_version", "Affects version"],
  ["label", "Label"], ["epic_key", "Epic"], ["parent", "Parent"], ["neighbor", "Neighbour"], ["gone", "Gone"],
  ["updated_since", "Updated since"], ["fetched_since", "Fetched since"],
];
const HINTS = {component: "a name", fix_version: "a name or id", affects_version: "a name or id",
               parent: "AURORA-12", resolution: "a name, or none"};
// The filters that name times: picked as dates, sent as the API takes them (midnight UTC).
const DATES = {updated_since: (day) => `${day}T00:00:00Z`, fetched_since: (day) => `${day}T00:00:00+00:00`};
// Words for the orders; any other is "<column> going up / down".
const ORDERS = {priority: "priority (Jira's order), then key", "-priority": "priority, lowest first, then key"};
// Sprints offered by the sprint filter: at most this many pages of the API's sprints.
const SPRINT_PAGES = 10;
// Where the cursor is an offset (a search, an order, JQL), a page's cursor is computed.
const counted = (filters) => Boolean(filters.q || filters.sort || filters.jql);

// The address the list was last left at in this tab: #/issues alone shows it again.
const view = {hash: null};

/** The address of the list with these filters (and, past page 1, its cursor and page). */
export function listHash(filters, cursor = null, page = 1) {
  const members = Object.entries(filters).filter(([, value]) => value !== "" && value !== undefined);
  if (cursor !== null && cursor !== undefined && page > 1) members.push(["cursor", cursor], ["page", page]);
  const query = new URLSearchParams(members).toString();
  return query ? `#/issues?${query}` : "#/issues";
}

// What the address names: the filters, the cursor and the page (null when it names none).
function addressState(known) {
  const at = location.hash.indexOf("?");
  if (at < 0) return null;
  const filters = {};
  let cursor = null, page = 1;
  for (const [name, value] of new URLSearchParams(location.hash.slice(at + 1))) {
    if (name === "cursor" && /^\d{1,19}$/.test(value)) cursor = value;
    else if (name === "page" && /^[1-9]\d{0,8}$/.test(value)) page = Number(value);
    else if (known.has(name) && value.trim() !== "") filters[name] = value.trim();
  }
  if (cursor === null) page = 1;
  return {filters, cursor, page};
}

function orderWords(sort) {
  if (ORDERS[sort]) return ORDERS[sort];
  const down = sort.startsWith("-");
  return `${sort.replace(/^-/, "")} ${down ? "going down" : "going up"}, then key`;
}

/** An error of the list's query in words a person can act on: a date field named, never a pattern. */
function refusal(error, labels) {
  const field = error.body?.field;
  if (error.status === 422 && DATES[field]) return `${labels[field]}: give a date (day, month and year), e.g. 2026-11-01.`;
  if (error.status === 422 && labels[field]) return `${labels[field]}: ${error.description || error.message}`;
  return `Could not list issues: ${error.message}`;
}

export async function renderIssues(main, signal) {
  const params = await api.issueListParameters();
  const known = new Set(["q", "jql", "sort", "limit", ...FILTERS.map(([name]) => name)]
    .filter((name) => params[name]));
  const labels = Object.fromEntries(FILTERS);
  let state = addressState(known);
  // #/issues alone, reached by a link (not a history entry of the list's own), is the list
  // as last left.
  if (state === null && !history.state?.list && view.hash && view.hash !== location.hash) {
    history.replaceState(history.state, "", view.hash);
    state = addressState(known);
  }
  state = state || {filters: {}, cursor: null, page: 1};
  view.hash = location.hash;
  history.replaceState({...history.state, list: true}, "");
  // The cursors of the pages before this one, by page number, as the history entry keeps them.
  let cursors = history.state?.cursors && typeof history.state.cursors === "object" ? history.state.cursors : null;
  const sortable = Boolean(params.sort);
  const sorts = new Set(params.sort?.enum || []);

  // The first page and its facets are asked at once, beside the filters' choices and the
  // saved filters, rather than after them: the list is what the reader waits for.
  let first = requests(state);
  const choices = await filterChoices(params, signal);
  const form = h("form", {class: "filters", role: "search", "aria-label": "Issues"});
  const fields = {};
  const datalists = {};
  fields.q = h("input", {id: "f-q", name: "q", type: "search", value: state.filters.q || "",
                         placeholder: "words in key, summary, description, comments"});
  form.append(h("div", {class: "field wide"}, h("label", {for: "f-q"}, "Search"), fields.q));
  // JQL, beside the plain search: its error is shown under it, the character marked.
  const jqlErrors = h("div", {id: "jql-error", class: "jql-error", role: "alert", hidden: true});
  if (params.jql) {
    fields.jql = h("input", {id: "f-jql", name: "jql", type: "text", value: state.filters.jql || "",
                             autocomplete: "off", spellcheck: "false", "aria-describedby": "jql-error",
                             placeholder: "JQL, e.g. status in (Open, \"In Progress\") ORDER BY priority DESC"});
    form.append(h("div", {class: "field wide"}, h("label", {for: "f-jql"}, "JQL"), fields.jql, jqlErrors));
  }
  for (const [name, label] of FILTERS) {
    if (!params[name]) continue;
    fields[name] = filterInput(name, params[name], state.filters[name], choices[name]);
    if (fields[name].tagName === "INPUT" && fields[name].type === "text") {
      datalists[name] = h("datalist", {id: `dl-${name}`});
      fields[name].setAttribute("list", `dl-${name}`);
    }
    form.append(h("div", {class: "field"}, h("label", {for: `f-${name}`}, label), fields[name], datalists[name]));
  }
  if (sortable) {
    fields.sort = orderInput(params.sort, state.filters.sort);
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
    const {jql, sort, q} = state.filters;
    if (jql) note.textContent = "Order: the query's ORDER BY (key descending when it has none).";
    else if (sort) note.textContent = `Order: ${orderWords(sort)}.`;
    else if (q) note.textContent = "Order: best match first.";
    else note.textContent = sortable ? "Order: most recently added to the mirror first."
      : "Order: most recently added to the mirror first (the API offers no other order).";
  };
  const line = status();
  const facetsHere = h("div", {id: "facets"});
  const results = h("div", {id: "results"});
  const previous = h("button", {type: "button", class: "secondary"}, "Previous page");
  const next = h("button", {type: "button", class: "secondary"}, "Next page");
  const pageLabel = h("span", {class: "page-label"});
  const pager = h("nav", {class: "pager", "aria-label": "Pages"}, previous, pageLabel, next);
  let items = [];
  const columns = chooser(() => items, () => draw());
  const savedHere = h("div", {id: "saved-filters"});
  // Left while the choices were read (or signed out: a 401 among them shows the sign-in):
  // the page is no longer this one's to draw.
  if (signal.aborted) return;
  foldFilters(form, fields.q.parentElement);  // on a phone (app.css): "Filters (n)" opens them
  cards(results);
  replace(main, h("h1", {}, "Issues"), form, facetsHere, h("div", {class: "list-tools"}, note, columns),
    line, results, pager, savedHere);
  // The saved filters come when they come, under the list.
  const saved = params.jql && api.offers("/api/v1/filters").then((offered) => offered
    ? savedFilters(() => fields.jql.value.trim(), fields.jql, jqlErrors, signal) : null)
    .then((section) => { if (section && !signal.aborted) savedHere.replaceWith(section); })
    .catch((error) => { if (error.name !== "AbortError") throw error; });

  // Go to a state of the list: a new entry of the tab's history (Back returns to the one
  // before), or the same entry replaced; no hashchange, so the page is not built again.
  function go(next_, trail, {push = true} = {}) {
    state = next_;
    cursors = trail;
    const hash = listHash(state.filters, state.cursor, state.page);
    if (push && location.hash !== hash) history.pushState({list: true, cursors}, "", hash);
    else history.replaceState({list: true, cursors}, "", hash);
    view.hash = location.hash;
    return load();
  }

  let nextCursor = null, total = null;
  function draw() {
    const cols = shown(items);
    const header = h("tr", {}, cols.map((column) => headerCell(column)));
    // Each cell named by its column (not by its header, which carries the order's arrow), as a
    // phone's cards show it before the value.
    const rows = items.map((item) => h("tr", {}, cols.map((column) => h("td", {"data-label": column.label},
      column.id === "summary" ? summaryCell(item) : column.cell(item)))));
    replace(results, items.length
      ? h("div", {class: "scroll"}, h("table", {class: "issues"}, h("thead", {}, header), h("tbody", {}, rows)))
      : h("p", {class: "empty"}, "No issues match."));
  }

  function headerCell(column) {
    const order = state.filters.sort || "";
    const mine = column.sort && order.replace(/^-/, "") === column.sort;
    const way = mine ? (order.startsWith("-") ? "descending" : "ascending") : null;
    // JQL orders by its ORDER BY: the headers then only name the columns.
    if (!column.sort || !sortable || !sorts.has(column.sort) || state.filters.jql) {
      return h("th", {scope: "col"}, column.label);
    }
    return h("th", {scope: "col", "aria-sort": way || "none"},
      h("button", {type: "button", class: "sort", "data-sort": column.sort, onclick: () => {
        const sort = way === "ascending" ? `-${column.sort}` : column.sort;
        if (fields.sort) fields.sort.value = sort;
        go({filters: {...state.filters, sort}, cursor: null, page: 1}, {})
          .then(() => results.querySelector(`th[aria-sort] button[data-sort="${column.sort}"]`)?.focus());
      }}, column.label, h("span", {class: "sort-way", "aria-hidden": "true"},
        way === "ascending" ? " ▲" : way === "descending" ? " ▼" : "")));
  }

  // A state left before its answers came (a filter typed, then a facet pressed at once)
  // must not draw over the newer state's, whichever the hub answers first.
  const read = newest();
  async function load() {
    const current = read();
    const stale = () => !current() || signal.aborted;
    describeOrder();
    previous.disabled = next.disabled = true;
    say(line, "Loading…");
    // A page's size other than PAGE_SIZE comes from the address only (#/issues?limit=50).
    const {listing, facets} = first || requests(state);
    first = null;
    let page;
    try {
      page = await listing;
    } catch (error) {
      if (error.name === "AbortError" || stale()) return;
      const wrong = jqlError(error);
      if (wrong) showJqlError(fields.jql, jqlErrors, wrong);
      say(line, refusal(error, labels), true);
      replace(results);
      replace(facetsHere);
      return;
    }
    if (stale()) return;
    if (fields.jql) clearJqlError(jqlErrors);
    total = typeof page.total === "number" ? page.total : null;
    nextCursor = page.next_cursor;
    items = page.items;
    // The list first; the facets (a pass over every matching issue) when they come.
    draw();
    tell();
    previous.disabled = state.page <= 1;
    next.disabled = nextCursor === null || nextCursor === undefined;
    const found = await facets;
    if (stale()) return;
    // A later page has no total of its own: the facets count the same query.
    if (total === null && typeof found?.total === "number") total = found.total;
    offer(datalists, found);
    replace(facetsHere, facetPanel(found, state.filters, known, (name, value) => {
      if (fields[name]) fields[name].value = value;
      form.requestSubmit();
    }));
    tell();
  }

  // The page's size: the address's limit, else PAGE_SIZE.
  function size() {
    return Number(state.filters.limit) || PAGE_SIZE;
  }

  // The status line and the pager's label: page N of M, the issues shown of the total.
  function tell() {
    const count = items.length;
    const pages = total !== null ? Math.max(1, Math.ceil(total / size())) : null;
    const of = pages !== null ? ` of ${pages}` : "";
    say(line, count ? `Page ${state.page}${of}: ${count} issue${count === 1 ? "" : "s"}`
      + (total !== null ? ` of ${total}` : "") + "." : "No issues match.");
    pageLabel.textContent = `Page ${state.page}${of}`;
  }

  // The page before, {cursor, page}: its cursor as the history entry kept it, or computed
  // where the cursor is an offset; else (a pasted link far into the mirror's own order) the
  // first page.
  function before() {
    const page = state.page - 1;
    if (cursors && page in cursors) return {cursor: cursors[page], page};
    if (counted(state.filters)) return {cursor: page === 1 ? null : String((page - 1) * size()), page};
    return {cursor: null, page: 1};
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    // The page's size has no field of its own: it stays as the address set it.
    const filters = state.filters.limit ? {limit: state.filters.limit} : {};
    for (const [name, input] of Object.entries(fields)) {
      if (DATES[name] && input.validity?.badInput) {
        say(line, `${labels[name]}: give a whole date (day, month and year), e.g. 2026-11-01.`, true);
        input.focus();
        return;
      }
      const value = DATES[name] ? (input.value ? DATES[name](input.value) : "") : input.value.trim();
      if (value !== "") filters[name] = value;
    }
    // The hub counts a JQL error's character in the query as sent: the box holds just that.
    if (fields.jql) fields.jql.value = filters.jql || "";
    go({filters, cursor: null, page: 1}, {});
  });
  next.addEventListener("click", () => {
    go({filters: state.filters, cursor: String(nextCursor), page: state.page + 1},
      {...(cursors || {}), [state.page]: state.cursor}).then(() => results.querySelector("a")?.focus());
  });
  previous.addEventListener("click", () => {
    const {cursor, page} = before();
    go({filters: state.filters, cursor, page}, cursors).then(() => results.querySelector("a")?.focus());
  });
  await Promise.all([load(), saved]);

  // The list's page and its facets for a state of the list, asked at once.
  function requests(asked) {
    // A page's size other than PAGE_SIZE comes from the address only (#/issues?limit=50).
    const query = {limit: PAGE_SIZE, ...asked.filters, cursor: asked.cursor};
    const counting = {...asked.filters};
    delete counting.sort;  // the facets count the query's issues, in no order, not paged
    delete counting.limit;
    const listing = api.request("GET", "/api/v1/issues", {query, signal});
    // Handled at once: a page left while the list loads must leave no rejection behind.
    listing.catch(() => {});
    return {listing, facets: fetchFacets(counting, signal).catch(() => null)};
  }
}

function summaryCell(item) {
  return h("div", {}, h("span", {}, item.summary || "(no summary)"),
    item.neighbor ? h("span", {class: "tag"}, "neighbour") : null,
    item.gone ? h("span", {class: "tag gone"}, "gone") : null,
    item.snippet ? h("p", {class: "snippet"}, highlighted(item.snippet)) : null);
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
    orders.map((order) => h("option", {value: order, selected: value === order}, orderWords(order))));
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
  if (DATES[name]) {
    // The address holds the API's form (2026-11-01T00:00:00Z); the field, its day.
    const day = /^\d{4}-\d{2}-\d{2}/.exec(value || "")?.[0] || "";
    return h("input", {id, name, type: "date", value: day});
  }
  return h("input", {id, name, type: "text", value: value || "", placeholder: HINTS[name] || "", autocomplete: "off"});
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
