// The issues page: the work first. By default the scope's issues (neighbours and gone ones on
// request), most recently updated first; one search box that takes words or a JQL query
// (jql.js tells them apart, and the page says which it ran); the filters (filters.js: those
// GET /api/v1/issues takes, as /openapi.json lists them) and the values the query's issues
// hold (facets.js) folded behind "Filters (n)"; a table whose headers sort it and whose
// columns are chosen (columns.js), statuses as lozenges of their category, people by name;
// cursor paging; and the list read again every few seconds while the tab is visible.
// Everything of the list is in the address (#/issues?status=Open&sort=-priority&cursor=25&page=2):
// the search, JQL, filters, order and page, so reload, Back/Forward and a pasted link show the
// same list. The API pages by cursor only forward; "Previous" goes back through the cursors
// that led here, kept in the history entry (history.state), or, where the cursor is an offset,
// computed from it.

import * as api from "./api.js";
import {h, newest, replace, say, sleep, status} from "./dom.js";
import {chooser, shown} from "./columns.js";
import {keepingFocus, visible} from "./redraw.js";
import {facetPanel, fetchFacets, offer} from "./facets.js";
import {DATES, FILTERS, apiQuery, filterChoices, filterInput, orderInput, orderWords} from "./filters.js";
import {clearJqlError, jqlError, looksLikeJql, savedFilters, showJqlError} from "./jql.js";
import {cards} from "./phone.js";

const PAGE_SIZE = 25;
// How often the list is read again while the tab is visible.
const LIVE_MS = 5000;

// The address the list was last left at in this tab: #/issues alone shows it again; and
// whether its filters were open.
const view = {hash: null, open: false};

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
    // neighbor=0 is the list's default (the scope only): said by its absence.
    else if (name === "neighbor" && value === "0") continue;
    else if (known.has(name) && value.trim() !== "") filters[name] = value.trim();
  }
  if (cursor === null) page = 1;
  return {filters, cursor, page};
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
  // The API's query for a state of the list, with the list's defaults.
  const asked = (filters) => apiQuery(filters, known, sorts);
  // Where the cursor is an offset (a search, an order, JQL), a page's cursor is computed.
  const counted = (filters) => {
    const query = asked(filters);
    return Boolean(query.q || query.sort || query.jql !== undefined);
  };

  // The first page and its facets are asked at once, beside the filters' choices, the
  // catalogues and the saved filters, rather than after them: the list is what the reader waits for.
  let first = requests(state);
  const [{choices, categories}, who] = await Promise.all([filterChoices(params, signal), api.me()]);

  // The search box: words or JQL, as the address holds either.
  const fields = {};
  const datalists = {};
  const box = h("input", {id: "f-q", name: "q", type: "search", value: state.filters.jql ?? state.filters.q ?? "",
                          autocomplete: "off", spellcheck: "false", "aria-describedby": "search-mode",
                          placeholder: "words, or JQL: status = Open ORDER BY priority DESC"});
  const jqlErrors = h("div", {id: "jql-error", class: "jql-error", role: "alert", hidden: true});
  const mode = h("p", {id: "search-mode", class: "search-mode note"});
  // While the filters are folded, what they hold is still said.
  const active = h("p", {id: "active-filters", class: "search-mode note", hidden: true});
  // Text the reader asked to run the other way than it reads ("Search as words"): {text, as}.
  let forced = null;

  // The filters and the order, folded behind "Filters (n)"; the facets with them.
  const grid = h("div", {class: "filters"});
  for (const [name, label] of FILTERS) {
    if (!params[name]) continue;
    fields[name] = filterInput(name, params[name], state.filters[name], choices[name]);
    if (fields[name].tagName === "INPUT" && fields[name].type === "text") {
      datalists[name] = h("datalist", {id: `dl-${name}`});
      fields[name].setAttribute("list", `dl-${name}`);
    }
    grid.append(h("div", {class: "field"}, h("label", {for: `f-${name}`}, label), fields[name], datalists[name]));
  }
  if (sortable) {
    fields.sort = orderInput(params.sort, state.filters.sort);
    grid.append(h("div", {class: "field"}, h("label", {for: "f-sort"}, "Order"), fields.sort));
  }
  const facetsHere = h("div", {id: "facets"});
  const panel = h("div", {id: "filter-panel", class: "filter-panel", hidden: !view.open}, grid, facetsHere);
  const toggle = h("button", {type: "button", class: "secondary filters-toggle", "aria-controls": "filter-panel",
                              "aria-expanded": String(view.open)});
  const filterNames = FILTERS.map(([name]) => name).filter((name) => fields[name]);
  const countFilters = () => {
    const set = filterNames.filter((name) => fields[name].value.trim() !== "").length;
    toggle.textContent = set ? `Filters (${set})` : "Filters";
  };
  toggle.addEventListener("click", () => {
    view.open = panel.hidden;
    panel.hidden = !view.open;
    toggle.setAttribute("aria-expanded", String(view.open));
    if (view.open) panel.querySelector("input, select")?.focus();
  });
  panel.addEventListener("input", countFilters);
  panel.addEventListener("change", countFilters);
  countFilters();

  const form = h("form", {id: "issue-search", class: "issue-search", role: "search", "aria-label": "Issues"},
    h("div", {class: "search-row"},
      h("div", {class: "field search-field"}, h("label", {for: "f-q"}, "Search"), box),
      h("div", {class: "buttons"},
        h("button", {type: "submit"}, "Search"),
        h("button", {type: "button", class: "secondary", onclick: () => {
          box.value = "";
          for (const input of Object.values(fields)) input.value = "";
          countFilters();
          form.requestSubmit();
        }}, "Clear"),
        toggle)),
    jqlErrors, mode, active, panel);
  const note = h("p", {class: "note"});
  const describeOrder = () => {
    const {jql, sort, q} = state.filters;
    if (jql !== undefined) note.textContent = "Order: the query's ORDER BY (key descending when it has none).";
    else if (sort) note.textContent = `Order: ${orderWords(sort)}.`;
    else if (q) note.textContent = "Order: best match first.";
    else note.textContent = sorts.has("-updated") ? "Order: recently updated first."
      : "Order: most recently added to the mirror first (the hub offers no other order).";
  };
  const line = status();
  const results = h("div", {id: "results"});
  const previous = h("button", {type: "button", class: "secondary"}, "Previous page");
  const next = h("button", {type: "button", class: "secondary"}, "Next page");
  const pageLabel = h("span", {class: "page-label"});
  const pager = h("nav", {class: "pager", "aria-label": "Pages", hidden: true}, previous, pageLabel, next);
  let items = [];
  let seen = {people: {}, categories};
  const columns = chooser(() => items, () => keepingFocus(results, draw));
  const savedHere = h("div", {id: "saved-filters"});
  // Left while the choices were read (or signed out: a 401 among them shows the sign-in):
  // the page is no longer this one's to draw.
  if (signal.aborted) return;
  cards(results);
  const newIssue = who?.may?.includes("write") ? h("a", {href: "#/create", class: "button-link"}, "New issue") : null;
  replace(main, h("div", {class: "list-head"}, h("h1", {}, "Issues"), newIssue), form,
    h("div", {class: "list-tools"}, note, columns), line, results, pager, savedHere);
  // The saved filters come when they come, under the list; each saves the query in the box
  // (words as JQL's text ~ "…").
  const currentJql = () => {
    const text = box.value.trim();
    if (!text || runsAsJql(text)) return text;
    return `text ~ "${text.replace(/["\\]/g, "\\$&")}"`;
  };
  const saved = params.jql && api.offers("/api/v1/filters").then((offered) => offered
    ? savedFilters(currentJql, box, jqlErrors, signal) : null)
    .then((section) => { if (section && !signal.aborted) savedHere.replaceWith(section); })
    .catch((error) => { if (error.name !== "AbortError") throw error; });

  // Whether the box's text runs as JQL: as it reads, unless the reader asked otherwise.
  function runsAsJql(text) {
    if (!params.jql) return false;
    if (forced?.text === text) return forced.as === "jql";
    return looksLikeJql(text);
  }

  // What the search ran as, and the way to run the same text the other way.
  function describeSearch() {
    const {jql, q} = state.filters;
    const other = (as, words) => h("button", {type: "button", class: "link-button", onclick: () => {
      const text = jql ?? q;
      forced = {text, as};
      box.value = text;
      form.requestSubmit();
    }}, words);
    if (jql !== undefined) {
      replace(mode, "Ran as a JQL query. ", params.q ? other("q", "Treat as words instead") : null);
    } else if (q !== undefined) {
      replace(mode, "Searched for these words. ", params.jql ? other("jql", "Treat as JQL instead") : null);
    } else {
      replace(mode);
    }
    mode.hidden = !mode.firstChild;
    // The filters of the list shown (the address's), each as its field words it.
    const set = filterNames.filter((name) => state.filters[name] !== undefined);
    const worded = (name) => {
      const value = state.filters[name];
      if (fields[name].tagName === "SELECT") {
        return [...fields[name].options].find((option) => option.value === value)?.textContent || value;
      }
      return DATES[name] ? value.slice(0, 10) : value;
    };
    replace(active, set.length ? ["Filtered by ", set.map((name, at) => [at ? "; " : "", `${labels[name]}: `,
      h("strong", {}, worded(name))]), "."] : null);
    active.hidden = !set.length;
  }

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
      column.id === "summary" ? summaryCell(item) : column.cell(item, seen)))));
    replace(results, items.length
      ? h("div", {class: "scroll"}, h("table", {class: "issues"}, h("thead", {}, header), h("tbody", {}, rows)))
      : emptyList());
  }

  // No issue: in the scope only (the default), the way to look among the neighbours too.
  function emptyList() {
    const scoped = known.has("neighbor") && !state.filters.neighbor && state.filters.gone !== "true";
    return h("p", {class: "empty"}, "No issues match.", scoped ? [" ", h("button", {
      type: "button", class: "link-button", onclick: () => {
        fields.neighbor.value = "any";
        countFilters();
        form.requestSubmit();
      }}, "Look among the neighbours too")] : null);
  }

  function headerCell(column) {
    const order = asked(state.filters).sort || "";
    const mine = column.sort && order.replace(/^-/, "") === column.sort;
    const way = mine ? (order.startsWith("-") ? "descending" : "ascending") : null;
    // JQL orders by its ORDER BY: the headers then only name the columns.
    if (!column.sort || !sortable || !sorts.has(column.sort) || state.filters.jql !== undefined) {
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

  // A page of the list as the page shows it, to tell whether a later read changed it.
  const signature = (page) => JSON.stringify([page.items, page.next_cursor, page.total, page.people]);
  let shownSignature = null;

  // A state left before its answers came (a filter typed, then a facet pressed at once)
  // must not draw over the newer state's, whichever the hub answers first.
  const read = newest();
  // Counts the loads, so that a live read begun before one draws nothing after it.
  let generation = 0;
  let loading = false;
  async function load() {
    const current = read();
    generation += 1;
    loading = true;
    const stale = () => !current() || signal.aborted;
    describeOrder();
    describeSearch();
    previous.disabled = next.disabled = true;
    say(line, "Loading…");
    const {listing, facets} = first || requests(state);
    first = null;
    let page;
    try {
      page = await listing;
    } catch (error) {
      if (error.name === "AbortError" || stale()) return;
      loading = false;
      // Nothing of the query shows: no page, no count, no facets of an earlier one.
      items = [];
      shownSignature = null;
      replace(results);
      replace(facetsHere);
      pager.hidden = true;
      pageLabel.textContent = "";
      const wrong = jqlError(error);
      if (wrong) {
        // Said once, under the box (an alert), with its character marked.
        showJqlError(box, jqlErrors, wrong);
        say(line, "");
      } else {
        clearJqlError(jqlErrors);
        say(line, refusal(error, labels), true);
      }
      return;
    }
    if (stale()) return;
    loading = false;
    clearJqlError(jqlErrors);
    show(page);
    const found = await facets;
    if (stale()) return;
    showFacets(found);
  }

  // Show a page of the list (a load's, or a live read's that differs from what is shown).
  function show(page) {
    if (typeof page.total === "number" || state.cursor === null) {
      total = typeof page.total === "number" ? page.total : null;
    }
    nextCursor = page.next_cursor;
    items = page.items;
    seen = {people: page.people || {}, categories};
    shownSignature = signature(page);
    keepingFocus(results, draw);
    tell();
    const more = nextCursor !== null && nextCursor !== undefined;
    previous.disabled = state.page <= 1;
    next.disabled = !more;
    pager.hidden = state.page <= 1 && !more;
  }

  // The facets of the list's query, in the folded panel (its "In these N issues" kept open
  // or closed as the reader left it).
  function showFacets(found) {
    // A later page has no total of its own: the facets count the same query.
    if (total === null && typeof found?.total === "number") total = found.total;
    offer(datalists, found);
    const open = facetsHere.querySelector("details.facets")?.open ?? true;
    keepingFocus(facetsHere, () => replace(facetsHere, facetPanel(found, state.filters, known, (name, value) => {
      if (fields[name]) fields[name].value = value;
      countFilters();
      form.requestSubmit();
    }, {open})));
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
    const text = box.value.trim();
    if (text) filters[runsAsJql(text) ? "jql" : "q"] = text;
    for (const [name, input] of Object.entries(fields)) {
      if (DATES[name] && input.validity?.badInput) {
        say(line, `${labels[name]}: give a whole date (day, month and year), e.g. 2026-11-01.`, true);
        if (panel.hidden) toggle.click();
        input.focus();
        return;
      }
      const value = DATES[name] ? (input.value ? DATES[name](input.value) : "") : input.value.trim();
      if (value !== "") filters[name] = value;
    }
    // A JQL query orders by its ORDER BY: the Order choice is for words and filters.
    if (filters.jql !== undefined) {
      delete filters.sort;
      if (fields.sort) fields.sort.value = "";
    }
    // The hub counts a JQL error's character in the query as sent: the box holds just that.
    box.value = text;
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
  live().catch(() => {});

  // While the page is shown: every LIVE_MS (at once when the tab is shown again), the current
  // page asked again, and drawn only when the hub answers something else; the search box, the
  // filters and the focus are left as the reader has them.
  async function live() {
    while (!signal.aborted) {
      await sleep(LIVE_MS, signal);
      if (document.hidden) await visible(signal);
      if (signal.aborted) return;
      if (loading || shownSignature === null) continue;
      const mine = generation;
      let page;
      try {
        page = await listingOf(state);
      } catch (error) {
        if (error.name === "AbortError") return;
        continue;  // the next read tells; what is shown stays
      }
      if (mine !== generation || signal.aborted || signature(page) === shownSignature) continue;
      show(page);
      // The facets (a pass over every matching issue) only when the list changed.
      const found = await facetsOf(state);
      if (mine === generation && !signal.aborted) showFacets(found);
    }
  }

  // The list's page and its facets for a state of the list, asked at once.
  function requests(wanted) {
    const listing = listingOf(wanted);
    // Handled at once: a page left while the list loads must leave no rejection behind.
    listing.catch(() => {});
    return {listing, facets: facetsOf(wanted)};
  }

  function listingOf(wanted) {
    // A page's size other than PAGE_SIZE comes from the address only (#/issues?limit=50).
    const query = {limit: PAGE_SIZE, ...asked(wanted.filters), cursor: wanted.cursor};
    return api.request("GET", "/api/v1/issues", {query, signal});
  }

  function facetsOf(wanted) {
    const counting = asked(wanted.filters);
    delete counting.sort;  // the facets count the query's issues, in no order, not paged
    delete counting.limit;
    return fetchFacets(counting, signal).catch(() => null);
  }
}

function summaryCell(item) {
  return h("div", {}, h("span", {}, item.summary || "(no summary)"),
    item.neighbor ? h("span", {class: "tag"}, "neighbour") : null,
    item.gone ? h("span", {class: "tag gone"}, "gone") : null,
    item.snippet ? h("p", {class: "snippet"}, highlighted(item.snippet)) : null);
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
