// An issue's activity as Jira shows it under the description: Comments, History and Work
// log as tabs (WAI-ARIA tabs: arrow keys, Home and End move between them, the open one is
// the only Tab stop), and the history's table.

import {h, person, table, time} from "./dom.js";
import {who} from "./comments.js";

/**
 * Tabs over panels: tabs [{id, label, content}] (id the tab's element id; its panel is
 * labelled by it). Returns {node, count(id, n)}: count writes a tab's number beside its label.
 * The tabs are made once per page, so the open one stays open whatever is redrawn inside.
 */
export function tabs(items, label) {
  const list = h("div", {class: "tabs", role: "tablist", "aria-label": label});
  const counts = new Map();
  const buttons = [];
  const panels = items.map((item, n) => {
    const number = h("span", {class: "tab-count"});
    counts.set(item.id, number);
    const button = h("button", {type: "button", role: "tab", id: item.id, "aria-controls": `${item.id}-panel`,
      "aria-selected": n === 0 ? "true" : "false", tabindex: n === 0 ? "0" : "-1"}, item.label, number);
    buttons.push(button);
    list.append(button);
    return h("section", {class: "tab-panel", role: "tabpanel", id: `${item.id}-panel`, "aria-labelledby": item.id,
      hidden: n !== 0}, item.content);
  });

  function select(index, focus) {
    buttons.forEach((button, n) => {
      const chosen = n === index;
      button.setAttribute("aria-selected", chosen ? "true" : "false");
      button.tabIndex = chosen ? 0 : -1;
      panels[n].hidden = !chosen;
    });
    if (focus) buttons[index].focus();
  }

  buttons.forEach((button, n) => button.addEventListener("click", () => select(n, false)));
  list.addEventListener("keydown", (event) => {
    const at = buttons.indexOf(document.activeElement);
    if (at < 0) return;
    const to = {ArrowRight: (at + 1) % buttons.length, ArrowLeft: (at - 1 + buttons.length) % buttons.length,
      Home: 0, End: buttons.length - 1}[event.key];
    if (to === undefined) return;
    event.preventDefault();
    select(to, true);
  });

  function count(id, n) {
    const number = counts.get(id);
    if (number) number.textContent = n ? ` ${n}` : "";
  }

  return {node: h("div", {class: "activity"}, list, panels), count};
}

// A change's value as a person reads it: a user field's carries the login beside the
// display name (shown on hover); other fields their text, else their raw value.
function changed(string, name, raw) {
  if (string !== null && string !== undefined && string !== "") {
    return name && name !== string ? person(name, string) : string;
  }
  return name || raw || "—";
}

/** The history (GET …/changes): when, who, the field, from and to. */
export function changelog(items) {
  return table(null, ["When", "Who", "Field", "From", "To"], items.map((item) => [
    time(item.created_at || item.created), item.author ? who(item) : "—", item.field,
    changed(item.from_string, item.from_name, item.from), changed(item.to_string, item.to_name, item.to),
  ]), "No changes recorded.");
}
