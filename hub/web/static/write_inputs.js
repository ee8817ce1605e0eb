// The controls of a Jira screen's field (an edit screen, a transition's, a create screen's),
// by the field's shape as the mirror keeps it ({name, required, type, items, custom, allowed}):
// a typeahead over the mirror's users, options from `allowed` (or the catalogues), dates as
// dates, lists as checkboxes or words, text as text. One module for the three places that
// edit fields, so that a field reads and is sent the same way in each.

import * as api from "./api.js";
import {h, replace} from "./dom.js";

// Jira's field id → the issue object's member (the hub takes either; the page names fields as
// the issue object does, as its details panel does: data-field).
const MEMBERS = {
  fixVersions: "fix_versions", versions: "affects_versions", issuetype: "issue_type",
  worklog: "time_spent", timetracking: "original_estimate",
};

/** The issue object's name of a screen's field (Jira's id). */
export function memberOf(fieldId) {
  return MEMBERS[fieldId] || fieldId;
}

// Fields a page does not edit through a control: Jira's own plumbing, or written elsewhere.
const NOT_EDITED = new Set(["comment", "attachment", "issuelinks", "timetracking", "project", "issuetype",
  "parent", "watches", "votes", "worklog_list"]);
const TEXT_AREAS = new Set(["description", "environment"]);

/** Whether the page offers a control for this screen field. */
export function editable(fieldId, meta) {
  if (NOT_EDITED.has(fieldId) || !meta) return false;
  if (meta.operations && meta.operations.length && !meta.operations.includes("set")
      && !meta.operations.includes("add")) return false;
  const type = meta.type;
  if (type === "array") return ["string", "option", "version", "component", "user", "worklog"].includes(meta.items);
  return ["string", "number", "date", "datetime", "user", "priority", "resolution", "option", "version",
    "component", "securitylevel"].includes(type) || Boolean(meta.allowed);
}

/** The issue's current value of a field (by its issue-object name): a member, or a custom field's value. */
export function currentValue(issue, name) {
  if (name in issue) return issue[name];
  return issue.custom_fields?.[name]?.value ?? null;
}

function plain(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return String(value.name ?? value.value ?? "");
  return String(value);
}

let users = null;

/** Users matching text (GET /api/v1/users?q=): [{name, display_name}]; the people the page knows when the hub has no such list. */
async function findUsers(text, known) {
  if (users !== false) {
    try {
      const page = await api.request("GET", "/api/v1/users", {query: {q: text, limit: 10}});
      users = true;
      return page.items;
    } catch (error) {
      if (error.status !== 404) throw error;
      users = false;  // an older hub: the page's own people, below
    }
  }
  const lower = text.toLowerCase();
  return Object.entries(known || {}).filter(([login, display]) =>
    !lower || login.toLowerCase().includes(lower) || String(display).toLowerCase().includes(lower))
    .map(([name, display]) => ({name, display_name: display}));
}

let serial = 0;

/**
 * A user picker: a combobox (ARIA 1.2) whose list the mirror's users fill as one types, by
 * login or display name; arrows move, Enter picks, Escape closes the list (a second Escape is the
 * caller's: cancel). Its value is the login picked, or what was typed (a login), or null.
 */
function userPicker(id, current, env, required) {
  const listId = `${id}-list`;
  let picked = current ? String(current) : "";
  const shown = picked ? (env.people?.[picked] || picked) : "";
  const input = h("input", {id, type: "text", role: "combobox", autocomplete: "off", spellcheck: "false",
    "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": listId, value: shown,
    placeholder: required ? "" : "Unassigned", class: "user-input"});
  const list = h("ul", {id: listId, role: "listbox", class: "user-list", hidden: true, "aria-label": "Users"});
  let items = [], active = -1, asked = 0, timer = null;

  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }
  function choose(user) {
    picked = user.name;
    input.value = user.display_name || user.name;
    input.dataset.login = user.name;
    close();
  }
  function mark(index) {
    active = index;
    [...list.children].forEach((li, n) => li.setAttribute("aria-selected", String(n === index)));
    if (index >= 0) input.setAttribute("aria-activedescendant", `${listId}-${index}`);
  }
  async function search() {
    const mine = ++asked;
    let found;
    try {
      found = await findUsers(input.value.trim(), env.people);
    } catch {
      found = [];
    }
    if (mine !== asked || document.activeElement !== input) return;
    items = found;
    replace(list, items.map((user, n) => h("li", {id: `${listId}-${n}`, role: "option", "aria-selected": "false",
      onmousedown: (event) => { event.preventDefault(); choose(user); }},
      user.display_name || user.name, user.display_name && user.display_name !== user.name
        ? h("span", {class: "login"}, ` ${user.name}`) : null)));
    list.hidden = !items.length;
    input.setAttribute("aria-expanded", String(items.length > 0));
    active = -1;
  }
  input.addEventListener("input", () => {
    picked = "";
    delete input.dataset.login;
    clearTimeout(timer);
    timer = setTimeout(search, 120);
  });
  input.addEventListener("focus", () => { if (!input.value) search(); });
  input.addEventListener("blur", () => setTimeout(close, 100));
  input.addEventListener("keydown", (event) => {
    if (list.hidden) {
      if (event.key === "ArrowDown") { search(); event.preventDefault(); }
      return;
    }
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      mark((active + step + items.length) % items.length);
    } else if (event.key === "Enter" && active >= 0) {
      event.preventDefault();
      choose(items[active]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
    }
  });
  const value = () => {
    const typed = input.value.trim();
    if (!typed) return null;
    if (picked) return picked;
    // Typed without picking: the one user whose login or display name it is, else the text as a login.
    const exact = items.find((u) => u.name === typed || u.display_name === typed);
    return exact ? exact.name : typed;
  };
  return {node: h("div", {class: "user-picker"}, input, list), focus: input, value};
}

function select(id, options, current, required) {
  const chosen = plain(current);
  const node = h("select", {id},
    required && chosen ? null : h("option", {value: ""}, "None"),
    options.map((option) => h("option", {value: option, selected: option === chosen}, option)));
  return {node, focus: node, value: () => node.value || null};
}

function checkboxes(id, label, options, current) {
  const have = new Set((current || []).map(plain));
  const boxes = options.map((option, n) => {
    const box = h("input", {type: "checkbox", id: `${id}-${n}`, value: option, checked: have.has(option)});
    return [box, h("label", {for: `${id}-${n}`, class: "check"}, box, " ", option)];
  });
  const node = h("fieldset", {class: "checks", id}, h("legend", {}, label), boxes.map(([, l]) => l));
  return {node, focus: boxes[0]?.[0] || node, value: () => boxes.filter(([box]) => box.checked).map(([box]) => box.value),
    labelled: true};
}

/**
 * The control of one screen field: {node, focus (the element to focus), value() (what the hub
 * takes for it), labelled (the node holds its own label)}. env: {people (login -> display name),
 * catalogues (GET /api/v1/catalogues, for priorities)}.
 */
export function control(fieldId, meta, current, env = {}, label = meta.name) {
  const id = `w${++serial}-${fieldId.replace(/[^A-Za-z0-9_-]/g, "")}`;
  const required = Boolean(meta.required);
  const type = meta.type;
  let allowed = meta.allowed;
  if (!allowed && type === "priority") allowed = (env.catalogues?.priorities || []).map((p) => p.name);
  if (!allowed && type === "resolution") allowed = (env.catalogues?.resolutions || []).map((r) => r.name);
  if (type === "array") {
    if (meta.items === "worklog") return text(id, "", "1h 30m");
    if (meta.items === "user") {
      const words = text(id, (current || []).join(" "), "logins, separated by spaces");
      return {...words, value: () => words.value()?.split(/[\s,]+/).filter(Boolean) || []};
    }
    if (allowed) return checkboxes(id, label, allowed, current);
    // Labels: words, as Jira's labels hold no space.
    const words = text(id, (current || []).map(plain).join(" "), "words separated by spaces");
    return {...words, value: () => (words.value() || "").split(/[\s,]+/).filter(Boolean)};
  }
  if (type === "user") return userPicker(id, current, env, required);
  if (allowed) return select(id, allowed, current, required);
  if (type === "date") {
    const node = h("input", {id, type: "date", value: plain(current).slice(0, 10)});
    return {node, focus: node, value: () => node.value || null};
  }
  if (type === "datetime") {
    const local = current ? new Date(current) : null;
    const shown = local && !Number.isNaN(local.getTime())
      ? new Date(local.getTime() - local.getTimezoneOffset() * 60000).toISOString().slice(0, 16) : "";
    const node = h("input", {id, type: "datetime-local", value: shown});
    return {node, focus: node, value: () => (node.value ? new Date(node.value).toISOString() : null)};
  }
  if (type === "number") {
    const node = h("input", {id, type: "number", step: "any", value: plain(current)});
    return {node, focus: node, value: () => (node.value === "" ? null : Number(node.value))};
  }
  if (TEXT_AREAS.has(fieldId) || String(meta.custom || "").endsWith(":textarea")) {
    const node = h("textarea", {id, rows: 6, value: plain(current)});
    return {node, focus: node, value: () => node.value || null};
  }
  return text(id, plain(current));
}

function text(id, current, placeholder) {
  const node = h("input", {id, type: "text", value: current, placeholder});
  return {node, focus: node, value: () => node.value.trim() || null};
}

/** A field's control with its label (marked "required" when it is), for a form. */
export function labelledControl(fieldId, meta, current, env) {
  const made = control(fieldId, meta, current, env);
  const mark = meta.required ? h("span", {class: "required"}, " (required)") : null;
  const box = made.labelled
    ? h("div", {class: "form-field", "data-field": memberOf(fieldId)}, made.node)
    : h("div", {class: "form-field", "data-field": memberOf(fieldId)},
      h("label", {for: made.node.id || made.focus.id}, meta.name, mark), made.node);
  if (made.labelled && mark) box.querySelector("legend").append(mark);
  return {...made, box};
}
