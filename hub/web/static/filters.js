// The issues list's filters and orders: the fields the list's filter panel offers (those
// GET /api/v1/issues takes, as /openapi.json lists them), the choices some of them offer
// (sprints, resolutions, from the hub's catalogues), the orders in plain words, and the query
// the API is asked for a state of the list, with the list's defaults: the scope's issues only
// (neighbours on request), most recently updated first.

import * as api from "./api.js";
import {h} from "./dom.js";

/** The filters the page knows how to offer, in the order shown; each appears only when the
 *  API lists it. */
export const FILTERS = [
  ["project", "Project"], ["status", "Status"], ["resolution", "Resolution"], ["assignee", "Assignee"],
  ["reporter", "Reporter"], ["issue_type", "Type"], ["priority", "Priority"], ["sprint", "Sprint"],
  ["component", "Component"], ["fix_version", "Fix version"], ["affects_version", "Affects version"],
  ["label", "Label"], ["epic_key", "Epic"], ["parent", "Parent"], ["neighbor", "Neighbour"], ["gone", "Gone"],
  ["updated_since", "Updated since"], ["fetched_since", "Fetched since"],
];
const HINTS = {component: "a name", fix_version: "a name or id", affects_version: "a name or id",
               parent: "AURORA-12", resolution: "a name, or none"};
/** The filters that name times: picked as dates, sent as the API takes them (midnight UTC). */
export const DATES = {updated_since: (day) => `${day}T00:00:00Z`, fetched_since: (day) => `${day}T00:00:00+00:00`};
// Sprints offered by the sprint filter: at most this many pages of the API's sprints.
const SPRINT_PAGES = 10;

/** The order of a list without words or JQL: the work most recently touched in Jira first. */
export const DEFAULT_SORT = "-updated";

// The orders in words, in the order the Order choice lists them; one the hub adds later is
// "<column> going up / down".
const ORDERS = {
  "-updated": "recently updated first", updated: "least recently updated first",
  "-created": "newest first", created: "oldest first",
  priority: "priority, highest first", "-priority": "priority, lowest first",
  status: "status, as Jira's workflow orders them", "-status": "status, in reverse",
  duedate: "due soonest first", "-duedate": "due latest first",
  "-resolved": "recently resolved first", resolved: "resolved longest ago first",
  assignee: "assignee, A to Z", "-assignee": "assignee, Z to A",
  reporter: "reporter, A to Z", "-reporter": "reporter, Z to A",
  type: "type, as Jira orders them", "-type": "type, in reverse",
  resolution: "resolution, as Jira orders them", "-resolution": "resolution, in reverse",
  summary: "summary, A to Z", "-summary": "summary, Z to A",
  key: "key, first to last", "-key": "key, last to first",
};

/** An order (one of the API's sort names) in words: "recently updated first". */
export function orderWords(sort) {
  if (ORDERS[sort]) return ORDERS[sort];
  return `${sort.replace(/^-/, "")} ${sort.startsWith("-") ? "going down" : "going up"}`;
}

/**
 * The query GET /api/v1/issues (and its facets) is asked for the list's filters (as the
 * address holds them), with the list's defaults: the scope's issues only unless the neighbour
 * filter asks for them ("1": neighbours only, "any": both; "gone from Jira only" lists every
 * gone issue, wherever it was), and, without words or JQL, most recently updated first.
 * known: the parameters the API takes; sorts: the orders it takes.
 */
export function apiQuery(filters, known, sorts) {
  const query = {...filters};
  if (known.has("neighbor")) {
    if (query.neighbor === "any" || (query.neighbor !== "1" && query.gone === "true")) delete query.neighbor;
    else if (query.neighbor !== "1") query.neighbor = "0";
  }
  // JQL orders by its own ORDER BY: the hub refuses a sort beside it.
  if (query.jql !== undefined) delete query.sort;
  else if (!query.sort && !query.q && sorts.has(DEFAULT_SORT)) query.sort = DEFAULT_SORT;
  return query;
}

/**
 * What the sprint and resolution filters offer (the hub's sprints, past ones included, and
 * Jira's resolutions), and each status's category (from GET /api/v1/catalogues: the list's
 * lozenges). Either missing (an older hub, an agent that sent no catalogue) leaves a text
 * field, and statuses drawn neutral.
 */
export async function filterChoices(params, signal) {
  const choices = {};
  const categories = new Map();
  const tasks = [];
  if (params.sprint && await api.offers("/api/v1/sprints")) {
    tasks.push(allSprints(signal).then((sprints) => { if (sprints.length) choices.sprint = sprints; }));
  }
  if (await api.offers("/api/v1/catalogues")) {
    tasks.push(api.request("GET", "/api/v1/catalogues", {signal}).then((catalogues) => {
      const names = (catalogues.resolutions || []).map((item) => item.name);
      if (params.resolution && names.length) choices.resolution = names;
      // A status is named on an issue as Jira names it; the catalogue's case may differ.
      for (const one of catalogues.statuses || []) categories.set(String(one.name).toLowerCase(), one.category_key);
    }));
  }
  const settled = await Promise.allSettled(tasks);
  const aborted = settled.find((one) => one.status === "rejected" && one.reason?.name === "AbortError");
  if (aborted) throw aborted.reason;
  return {choices, categories};
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

/** The Order choice: the default (said in the list's note), then the API's orders in words. */
export function orderInput(schema, value) {
  const orders = schema.enum || ["priority"];
  const listed = [...Object.keys(ORDERS).filter((order) => orders.includes(order)),
    ...orders.filter((order) => !ORDERS[order])];
  return h("select", {id: "f-sort", name: "sort"},
    h("option", {value: ""}, "default (recently updated first; words: best match first)"),
    listed.map((order) => h("option", {value: order, selected: value === order}, orderWords(order))));
}

/** The field of one filter, holding value (as the address has it). */
export function filterInput(name, schema, value, choices) {
  const id = `f-${name}`;
  if (name === "sprint" && choices) return sprintSelect(id, name, choices, value);
  if (name === "resolution" && choices) return resolutionSelect(id, name, choices, value);
  if (name === "neighbor") {
    // The page's own values: none (the default) the scope only, as the API's neighbor=0.
    return h("select", {id, name},
      h("option", {value: ""}, "in the scope only"),
      h("option", {value: "1", selected: value === "1"}, "neighbours only"),
      h("option", {value: "any", selected: value === "any"}, "the scope and neighbours"));
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
