// The issues page's JQL: whether what the search box holds is a JQL query or words
// (looksLikeJql), the error of a query shown with its character marked (in the
// box, selected, and in a copy of the query under it), and the team's saved filters
// (GET/POST /api/v1/filters, DELETE /api/v1/filters/{id}): each runs as a link to the
// list with its JQL in the address, the query in the box can be saved under a name,
// and the filters this token saved (any, for an admin token) can be deleted.

import * as api from "./api.js";
import {h, newest, replace, say, status} from "./dom.js";

// The list's address with only this query (as issues.js writes its filters).
const runHash = (jql) => `#/issues?${new URLSearchParams({jql})}`;

// What only a JQL query holds, outside its quoted strings: an operator (=, !=, ~, !~, <, >,
// <=, >=), "in (" or "not in (", "is [not] empty|null", "was"/"changed" after a field, a
// function (currentUser(), startOfDay(-1d)), or ORDER BY. Words (see docs/api.md's search)
// have none of these: AND, OR, NOT, -word, "a phrase", word*, (a OR b) and field:word are theirs.
const FIELDS = "project|status|assignee|reporter|priority|resolution|type|issuetype|labels?|components?|"
  + "fixVersion|affectedVersion|sprint|epic|parent|duedate|due|created|updated|resolved|summary|description";
const JQL_SIGNS = [
  /!=|!~|<=|>=|[=~<>]/,
  /(?:^|[\s)"])(?:not\s+)?in\s*\(/i,
  // "is empty" is also how a person writes of a bug ("cart is empty"): JQL's, in its capitals
  // or after a field.
  /\bis\s+(?:not\s+)?(?:EMPTY|NULL)\b/,
  new RegExp(`\\b(?:${FIELDS})\\s+is\\s+(?:not\\s+)?(?:empty|null)\\b`, "i"),
  new RegExp(`\\b(?:${FIELDS})\\s+(?:was|changed)\\b`, "i"),
  /\b(?:[a-z]+[A-Z]\w*|now)\s*\([^()]*\)/,
  // ORDER BY in JQL's capitals; in small letters ("in order by date" is words), before a field.
  /\bORDER\s+BY\s+\S/,
  new RegExp(`\\border\\s+by\\s+(?:${FIELDS}|key|rank)\\b\\s*(?:asc|desc)?\\s*(?:,|$)`, "i"),
];

/** Whether text reads as a JQL query rather than words to search for. */
export function looksLikeJql(text) {
  // A quoted string is a value (or a phrase of words): what it holds decides nothing.
  const bare = String(text || "").replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  return JQL_SIGNS.some((sign) => sign.test(bare));
}

/** The JQL error an ApiError carries (a 422 naming jql), as {message, character}, or null. */
export function jqlError(error) {
  const body = error?.body;
  if (!body || body.field !== "jql") return null;
  return {message: body.description || error.message, character: body.position?.character ?? null};
}

/** Show a JQL error in where: its words, then the query with the character marked; and select
 *  that character in box. The hub counts characters (an emoji is one), the box UTF-16 units. */
export function showJqlError(box, where, error) {
  const chars = Array.from(box.value);
  const at = error.character;
  const pieces = [h("p", {class: "jql-message"}, error.message)];
  if (at) {
    const index = Math.min(at - 1, chars.length);
    const marked = index < chars.length ? chars[index] : "\u00a0";  // past the end: a space to mark
    pieces.push(h("pre", {class: "jql-query", "aria-label": `The query, character ${at} marked`},
      chars.slice(0, index).join(""), h("mark", {class: "jql-at"}, marked), chars.slice(index + 1).join("")));
    const start = chars.slice(0, index).join("").length;
    box.focus();
    box.setSelectionRange(start, start + (index < chars.length ? chars[index].length : 0));
  }
  replace(where, pieces);
  where.hidden = false;
}

/** Clear what showJqlError showed. */
export function clearJqlError(where) {
  replace(where);
  where.hidden = true;
}

/** The saved filters' section: listed, run, the current query saved, deleted. currentJql()
 *  reads the box; box and errors show a refused query's place. */
export async function savedFilters(currentJql, box, errors, signal) {
  const section = h("section", {class: "saved-filters", "aria-labelledby": "saved-filters-title"});
  const list = h("div", {id: "saved-filters-list"});
  const line = status();
  const name = h("input", {id: "f-filter-name", type: "text", maxlength: "255", autocomplete: "off",
                           placeholder: "a name for the query in the search box"});
  const save = h("button", {type: "submit", class: "secondary"}, "Save current query");
  const form = h("form", {class: "save-filter", "aria-label": "Save the current query"},
    h("div", {class: "field"}, h("label", {for: "f-filter-name"}, "Filter name"), name), h("div", {class: "buttons"}, save));
  replace(section, h("h2", {id: "saved-filters-title"}, "Saved filters"), list, form, line);

  let me = {name: null, role: null};
  try {
    me = await api.request("GET", "/api/v1/whoami", {signal});
  } catch (error) {
    if (error.name === "AbortError") throw error;
  }

  // Read again after each change: two quick changes' reads may be answered out of order.
  const read = newest();
  async function show() {
    const current = read();
    let page;
    try {
      page = await api.request("GET", "/api/v1/filters", {query: {limit: 100}, signal});
    } catch (error) {
      if (error.name === "AbortError" || !current()) return;
      say(line, `Could not list the saved filters: ${error.message}`, true);
      return;
    }
    if (!current()) return;
    if (!page.items.length) {
      replace(list, h("p", {class: "empty"}, "No saved filters yet: write a query in the search box, name it, save it."));
      return;
    }
    replace(list, h("ul", {class: "filter-list"}, page.items.map((filter) => h("li", {},
      h("a", {href: runHash(filter.jql), title: filter.jql}, filter.name),
      h("code", {class: "jql-text"}, filter.jql),
      h("span", {class: "meta"}, filter.owner ? ` saved by ${filter.owner}` : " (its token is revoked)"),
      filter.owner === me.name || me.role === "admin"
        ? h("button", {type: "button", class: "danger", "aria-label": `Delete the filter ${filter.name}`,
                       onclick: () => remove(filter)}, "Delete") : null))));
  }

  async function remove(filter) {
    try {
      await api.request("DELETE", `/api/v1/filters/${filter.id}`, {signal});
      say(line, `Deleted the filter "${filter.name}".`);
    } catch (error) {
      if (error.name === "AbortError") return;
      say(line, `Could not delete the filter: ${error.message}`, true);
    }
    await show();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const jql = currentJql();
    if (!jql) { say(line, "Write a query in the search box first.", true); box.focus(); return; }
    if (!name.value.trim()) { say(line, "Give the filter a name.", true); name.focus(); return; }
    save.disabled = true;
    try {
      const saved = await api.request("POST", "/api/v1/filters", {body: {name: name.value.trim(), jql}, signal});
      say(line, `Saved the filter "${saved.name}".`);
      name.value = "";
      clearJqlError(errors);
    } catch (error) {
      if (error.name === "AbortError") return;
      const wrong = jqlError(error);
      if (wrong) showJqlError(box, errors, wrong);
      say(line, `Could not save the filter: ${error.message}`, true);
    } finally {
      save.disabled = false;
    }
    await show();
  });
  await show();
  return section;
}
