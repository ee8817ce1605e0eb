// A card moved to another column of the board: the transition Jira offers the issue towards one
// of the column's statuses (the card's `transitions`, as the issue object gives them), the form
// for the fields its screen requires (and the choice, when several transitions lead there), and
// the transition write (POST /api/v1/issues/{key}/transitions), followed until it ends.

import * as api from "./api.js";
import {h, sleep} from "./dom.js";

// Jira's field ids on a screen that a write names otherwise (hub/services/writes/fields.py).
const MIRROR_NAMES = {fixVersions: "fix_versions", versions: "affects_versions", worklog: "time_spent",
                      issuetype: "issue_type", timetracking: "original_estimate"};
// Fields a transition's screen may list that the board's form leaves out: a comment is never required.
const LEFT_OUT = new Set(["comment"]);
const OPEN = new Set(["pending", "applying"]);

const fold = (text) => String(text ?? "").toLocaleLowerCase();

/**
 * How card goes to column: {to, fields} for the write, {error} (words for the reader) when no
 * transition leads there, or null when the reader cancelled the form. A card whose transitions the
 * mirror does not know yet is sent to the column's first status by name, for Jira to decide.
 */
export async function planMove(card, column) {
  const names = new Set(column.statuses.flatMap((s) => [fold(s.name), fold(s.id)]));
  if (!card.transitions) {
    if (!column.statuses.length) return {error: `the column ${column.name} has no status.`};
    return {to: column.statuses[0].name, fields: {}};
  }
  const ways = card.transitions.filter((t) => names.has(fold(t.to)));
  if (!ways.length) {
    const offered = card.transitions.map((t) => `${t.to} (${t.name})`).join(", ");
    return {error: `Jira offers no transition from ${card.status} to ${column.name}`
      + (offered ? `; it can go to: ${offered}.` : ".")};
  }
  if (ways.length === 1 && !required(ways[0]).length) return {to: ways[0].id, fields: {}};
  return ask(card, column, ways);
}

// The fields of a transition's screen that must be given.
function required(transition) {
  return Object.entries(transition.fields || {})
    .filter(([id, meta]) => meta && meta.required && !LEFT_OUT.has(id));
}

/** The form of a move: the transition (when several lead to the column) and the required fields. */
function ask(card, column, ways) {
  return new Promise((resolve) => {
    const title = `move-title-${card.key}`;
    const fieldsBox = h("div", {class: "move-fields"});
    let chosen = ways[0];
    const choice = ways.length > 1 ? h("fieldset", {},
      h("legend", {}, "Transition"),
      ways.map((way, n) => h("label", {class: "choice"},
        h("input", {type: "radio", name: "transition", value: way.id, checked: n === 0,
          onchange: () => { chosen = way; drawFields(); }}), ` ${way.name} → ${way.to}`))) : null;
    const drawFields = () => fieldsBox.replaceChildren(...required(chosen).map(([id, meta]) => control(card, id, meta)));
    drawFields();
    const dialog = h("dialog", {class: "move-dialog", "aria-labelledby": title});
    const done = (value) => { dialog.close(); dialog.remove(); resolve(value); };
    const form = h("form", {},
      h("h2", {id: title}, `Move ${card.key} to ${column.name}`),
      h("p", {class: "note"}, ways.length > 1 ? "Several of Jira's transitions lead to this column."
        : `Jira's transition ${ways[0].name} asks for these fields.`),
      choice, fieldsBox,
      h("div", {class: "buttons"}, h("button", {type: "submit"}, "Move"),
        h("button", {type: "button", class: "secondary", onclick: () => done(null)}, "Cancel")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!form.reportValidity()) return;
      const fields = {};
      for (const [id, meta] of required(chosen)) {
        const value = read(form.elements.namedItem(id), meta);
        if (value !== null) fields[MIRROR_NAMES[id] || id] = value;
      }
      done({to: chosen.id, fields});
    });
    dialog.addEventListener("cancel", (event) => { event.preventDefault(); done(null); });
    dialog.append(form);
    document.body.append(dialog);
    dialog.showModal();
  });
}

// One field's control, by its type: a choice of Jira's allowed values, a date, a number, or text.
function control(card, id, meta) {
  const inputId = `move-${card.key}-${id}`;
  const label = h("label", {for: inputId}, meta.name || id);
  const many = meta.type === "array";
  let input;
  if (Array.isArray(meta.allowed) && meta.allowed.length) {
    input = h("select", {id: inputId, name: id, required: true, multiple: many},
      many ? null : h("option", {value: ""}, "Choose…"),
      meta.allowed.map((value) => h("option", {value}, value)));
  } else if (meta.type === "date") {
    input = h("input", {id: inputId, name: id, type: "date", required: true});
  } else if (meta.type === "number") {
    input = h("input", {id: inputId, name: id, type: "number", step: "any", required: true});
  } else if (id === "worklog") {
    input = h("input", {id: inputId, name: id, required: true, placeholder: "1h 30m", pattern: "\\s*(\\d+(\\.\\d+)?\\s*[wdhmWDHM]?\\s*)+"});
  } else {
    input = h("input", {id: inputId, name: id, required: true, placeholder: many ? "one, two" : null});
  }
  const hint = id === "worklog" ? h("p", {class: "note"}, "Time spent, as Jira writes it: 1w 2d 3h 30m.") : null;
  return h("div", {class: "field"}, label, input, hint);
}

function read(input, meta) {
  if (!input) return null;
  if (input.multiple) return [...input.selectedOptions].map((option) => option.value);
  const value = input.value.trim();
  if (!value) return null;
  if (meta.type === "number") return Number(value);
  if (meta.type === "array" && meta.items !== "worklog") return value.split(",").map((one) => one.trim()).filter(Boolean);
  return value;
}

/** Ask the hub for the transition write of a plan: the write object (202, or 200 for the one the
 *  same Idempotency-Key made before: a request sent again after a lost answer). */
export async function sendMove(key, plan, signal) {
  const headers = {"Idempotency-Key": crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`};
  const body = {to: plan.to, ...(Object.keys(plan.fields).length ? {fields: plan.fields} : {})};
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await api.request("POST", `/api/v1/issues/${encodeURIComponent(key)}/transitions`, {body, headers, signal});
    } catch (error) {
      if (error.status !== 0 || attempt >= 3) throw error;
      await sleep(400 * attempt, signal);
    }
  }
}

/** Follow a write until it ends (long-polls of GET /api/v1/writes/{id}?wait=20&known=STATUS): the
 *  ended write. Throws AbortError when the page is left. */
export async function follow(write, signal) {
  let shown = write;
  while (OPEN.has(shown.status)) {
    const asked = Date.now();
    try {
      const next = await api.request("GET", `/api/v1/writes/${encodeURIComponent(shown.id)}`,
        {query: {wait: 20, known: shown.status}, signal});
      // An answer at once with nothing new is not asked again at once.
      if (next.status === shown.status && Date.now() - asked < 1000) await sleep(1000, signal);
      shown = next;
    } catch (error) {
      if (error.name === "AbortError" || signal.aborted) throw error;
      await sleep(3000, signal);  // the hub away for a moment: asked again
    }
    if (signal.aborted) throw new DOMException("left", "AbortError");
  }
  return shown;
}

/** Why a write that ended other than done did not move the card, in Jira's words. */
export function outcome(write) {
  if (write.status === "failed") return write.error || "Jira refused the transition.";
  if (write.status === "cancelled") return "the transition was cancelled before Jira saw it.";
  if (write.status === "conflict") {
    const fields = write.conflict?.fields && !("base" in write.conflict.fields) ? write.conflict.fields : write.conflict || {};
    const status = fields.status;
    if (status) return `the issue changed in Jira meanwhile: it is ${status.jira} there, not ${status.base}; nothing was written.`;
    return "the issue changed in Jira meanwhile; nothing was written.";
  }
  return `the transition ended ${write.status}.`;
}
