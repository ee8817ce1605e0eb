// The values the issues of the current query hold, with their counts
// (GET /api/v1/issues/facets): offered under each text filter (a <datalist>, so the
// field stays typeable) and as a panel of buttons, one per value, that filter the
// list to it. Every value is mirrored text: it goes in as text only.

import * as api from "./api.js";
import {h, replace} from "./dom.js";

// The facets shown, in order, with their headings; each is the list's filter of the same name.
export const FACETS = [
  ["status", "Status"], ["issue_type", "Type"], ["priority", "Priority"], ["assignee", "Assignee"],
  ["reporter", "Reporter"], ["resolution", "Resolution"], ["sprint", "Sprint"], ["label", "Label"],
  ["component", "Component"], ["fix_version", "Fix version"], ["project", "Project"],
];
// How many values of a facet the panel shows before "more".
const SHOWN = 8;

/** The facets of query (the list's q, jql and filters), or null when the hub has no such route
 *  or cannot answer it (the list says what is wrong with the query). */
export async function fetchFacets(query, signal) {
  if (!await api.offers("/api/v1/issues/facets")) return null;
  try {
    return await api.request("GET", "/api/v1/issues/facets", {query, signal});
  } catch (error) {
    if (error.name === "AbortError") throw error;
    return null;
  }
}

/** A facet value as its filter takes it: a sprint by id, no resolution as "none"; null when
 *  the filter cannot ask for it (no assignee). */
export function filterValue(name, item) {
  if (name === "sprint" && item.id !== undefined) return String(item.id);
  if (item.value === null) return name === "resolution" ? "none" : null;
  return item.value;
}

function wording(name, item) {
  if (item.value === null) return name === "resolution" ? "Unresolved" : "(none)";
  return item.name || item.value;
}

/** Fill the <datalist> of each filter with the values its facet holds, counted. */
export function offer(datalists, found) {
  for (const [name, list] of Object.entries(datalists)) {
    const facet = found?.facets?.[name];
    replace(list, (facet?.values || []).map((item) => {
      const value = filterValue(name, item);
      if (value === null) return null;
      const label = `${item.name ? `${item.name}, ` : ""}${item.count} issue${item.count === 1 ? "" : "s"}`;
      return h("option", {value, label});
    }));
  }
}

/** The panel of facets: for each, its values as buttons (the one filtered by pressed), a click
 *  filtering the list by it, or, pressed, clearing that filter; open unless {open: false}
 *  (the list keeps it as the reader left it). */
export function facetPanel(found, filters, known, pick, {open = true} = {}) {
  if (!found) return null;
  const groups = [];
  for (const [name, heading] of FACETS) {
    const facet = found.facets?.[name];
    if (!facet || !known.has(name) || !facet.values.length) continue;
    const current = filters[name];
    const buttons = facet.values.map((item) => {
      const value = filterValue(name, item);
      const pressed = value !== null && current !== undefined
        && String(current).toLowerCase() === value.toLowerCase();
      return h("li", {}, h("button", {
        type: "button", class: "facet-value", "aria-pressed": String(pressed), disabled: value === null,
        title: item.name ? item.value : null,
        onclick: () => pick(name, pressed ? "" : value),
      }, h("span", {class: "facet-name"}, wording(name, item)), " ", h("span", {class: "count"}, String(item.count))));
    });
    const list = h("ul", {class: "facet-values"}, buttons.slice(0, SHOWN));
    const rest = buttons.length > SHOWN
      ? h("details", {class: "facet-more"}, h("summary", {}, `${buttons.length - SHOWN} more`),
        h("ul", {class: "facet-values"}, buttons.slice(SHOWN)))
      : null;
    groups.push(h("div", {class: "facet", "data-facet": name},
      h("h3", {}, heading), list, rest,
      facet.more ? h("p", {class: "note"}, "Only the commonest values are listed: narrow the query for others.") : null));
  }
  if (!groups.length) return null;
  // Folded with the filters already (the list's "Filters" button): open there, unless closed.
  return h("details", {class: "facets", open},
    h("summary", {}, `In these ${found.total} issue${found.total === 1 ? "" : "s"}`), h("div", {class: "facet-groups"}, groups));
}
