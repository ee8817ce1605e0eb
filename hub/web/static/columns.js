// The issues list's columns: which the table shows (a preference of this browser, kept in
// localStorage, not in the address), how each cell is drawn from an issue of
// GET /api/v1/issues (always as text), and which order of the API's `sort` each header
// sorts by. Custom fields are columns too, by the name the issues' `custom_fields` give them.
// A cell is drawn from the issue and what the page knows beside it (`seen`: the list's `people`,
// login -> display name, and each status's category, name in lower case -> category_key), so
// that a status reads as a lozenge of its category and a person by name, as on every page.

import {day, h, issueLink, lozenge, person, time} from "./dom.js";

const STORAGE_KEY = "sdlc-hub.columns";

const text = (value) => (value === null || value === undefined || value === "" ? "—" : String(value));
const names = (values) => (values && values.length ? values.join(", ") : "—");

// Every built-in column: its id, header, `sort` order (none: not sortable) and cell.
const BUILT_IN = [
  {id: "key", label: "Key", sort: "key", fixed: true, cell: (item) => issueLink(item.key)},
  {id: "summary", label: "Summary", sort: "summary", fixed: true, cell: null},  // drawn by the page
  {id: "type", label: "Type", sort: "type", cell: (item) => text(item.issue_type)},
  {id: "status", label: "Status", sort: "status",
   cell: (item, seen) => lozenge(item.status, seen?.categories?.get(String(item.status).toLowerCase()))},
  {id: "priority", label: "Priority", sort: "priority", cell: (item) => text(item.priority)},
  {id: "assignee", label: "Assignee", sort: "assignee",
   cell: (item, seen) => person(item.assignee, seen?.people?.[item.assignee])},
  {id: "reporter", label: "Reporter", sort: "reporter",
   cell: (item, seen) => person(item.reporter, seen?.people?.[item.reporter])},
  {id: "resolution", label: "Resolution", sort: "resolution", cell: (item) => text(item.resolution)},
  {id: "sprint", label: "Sprint", sort: null,
   cell: (item) => names((item.sprints || []).map((sprint) => sprint.name).concat(
     item.sprints?.length ? [] : item.sprint ? [item.sprint] : []))},
  {id: "labels", label: "Labels", sort: null, cell: (item) => names(item.labels)},
  {id: "components", label: "Components", sort: null, cell: (item) => names(item.components)},
  {id: "fix_versions", label: "Fix versions", sort: null,
   cell: (item) => names((item.fix_versions || []).map((version) => version.name))},
  {id: "duedate", label: "Due date", sort: "duedate", cell: (item) => day(item.duedate)},
  {id: "created", label: "Created", sort: "created", cell: (item) => time(item.created)},
  {id: "updated", label: "Updated in Jira", sort: "updated", cell: (item) => time(item.jira_updated)},
  {id: "resolved", label: "Resolved", sort: "resolved", cell: (item) => time(item.resolved)},
];
const DEFAULT = ["key", "summary", "type", "status", "assignee", "updated"];

/** A custom field's value as a person reads it: names joined, a cascade as "parent / child". */
function customValue(value) {
  if (value === null || value === undefined || value === "") return "—";
  if (Array.isArray(value)) return value.length ? value.map(customValue).join(", ") : "—";
  if (typeof value === "object") {
    if ("parent" in value) return [value.parent, value.child].filter(Boolean).join(" / ");
    return value.name ?? value.value ?? JSON.stringify(value);
  }
  return String(value);
}

function customColumn(id, label) {
  return {id, label, sort: null, custom: true,
          cell: (item) => customValue(item.custom_fields?.[id.slice(3)]?.value)};
}

/** The columns chosen in this browser (ids, in the table's order), with the names of custom ones. */
export function chosen() {
  try {
    const kept = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null");
    if (kept && Array.isArray(kept.shown)) return {shown: kept.shown.map(String), names: kept.names || {}};
  } catch { /* a value not written by this page: the default */ }
  return {shown: [...DEFAULT], names: {}};
}

function keep(choice) {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(choice));
}

/** Every column that can be shown: the built-in ones, then the custom fields these issues hold
 *  (and those chosen before), by name. */
export function available(items, choice = chosen()) {
  const custom = new Map(Object.entries(choice.names));
  for (const item of items) {
    for (const [id, field] of Object.entries(item.custom_fields || {})) {
      if (!custom.has(`cf:${id}`)) custom.set(`cf:${id}`, field?.name || id);
    }
  }
  const customs = [...custom].map(([id, label]) => customColumn(id, String(label)))
    .sort((a, b) => a.label.localeCompare(b.label));
  return [...BUILT_IN, ...customs];
}

/** The columns to draw, in the table's order: the fixed ones, then those chosen. */
export function shown(items, choice = chosen()) {
  const all = available(items, choice);
  const wanted = new Set(choice.shown);
  return all.filter((column) => column.fixed || wanted.has(column.id));
}

/** The column chooser: a button that opens a list of checkboxes (built only while open), each
 *  change kept at once and told to onChange. */
export function chooser(items, onChange) {
  const button = h("button", {type: "button", class: "secondary", "aria-expanded": "false",
                              "aria-controls": "column-chooser"}, "Columns");
  const panel = h("div", {id: "column-chooser", class: "column-chooser", hidden: true});
  const close = () => {
    panel.hidden = true;
    panel.replaceChildren();
    button.setAttribute("aria-expanded", "false");
  };
  const open = () => {
    const choice = chosen();
    const boxes = available(items(), choice).filter((column) => !column.fixed).map((column) => {
      const id = `col-${column.id.replace(/[^A-Za-z0-9_-]/g, "_")}`;
      const box = h("input", {type: "checkbox", id, checked: choice.shown.includes(column.id)});
      box.addEventListener("change", () => {
        const now = chosen();
        const others = now.shown.filter((name) => name !== column.id);
        now.shown = box.checked ? [...others, column.id] : others;
        if (column.custom) now.names[column.id] = column.label;
        keep(now);
        onChange();
      });
      return h("li", {}, box, h("label", {for: id}, column.label));
    });
    panel.replaceChildren(h("fieldset", {}, h("legend", {}, "Columns shown"), h("ul", {}, boxes)),
      h("button", {type: "button", class: "secondary", onclick: () => { close(); button.focus(); }}, "Done"));
    panel.hidden = false;
    button.setAttribute("aria-expanded", "true");
    panel.querySelector("input")?.focus();
  };
  button.addEventListener("click", () => (panel.hidden ? open() : close()));
  panel.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { close(); button.focus(); }
  });
  return h("div", {class: "columns-control"}, button, panel);
}
