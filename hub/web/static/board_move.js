// A card moved to another column of the board: the transition Jira offers the issue towards one
// of the column's statuses (the card's `transitions`, as the issue object gives them), the form
// for the fields its screen requires (and the choice, when several transitions lead there), and
// the transition write (POST /api/v1/issues/{key}/transitions), followed until it ends.

import * as api from "./api.js";
import {h, say} from "./dom.js";
import {labelledControl, memberOf} from "./write_inputs.js";
import {ask as askWrite, conflictFields} from "./write_status.js";

export {follow} from "./write_status.js";

// Fields a transition's screen may list that the board's form leaves out: a comment is never required.
const LEFT_OUT = new Set(["comment"]);

const fold = (text) => String(text ?? "").toLocaleLowerCase();

/**
 * How card goes to column: {to, fields} for the write, {error} (words for the reader) when no
 * transition leads there, or null when the reader cancelled the form. A card whose transitions the
 * mirror does not know yet is sent to the column's first status by name, for Jira to decide.
 */
export async function planMove(card, column, people = {}) {
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
  return ask(card, column, ways, people);
}

// The fields of a transition's screen that must be given.
function required(transition) {
  return Object.entries(transition.fields || {})
    .filter(([id, meta]) => meta && meta.required && !LEFT_OUT.has(id));
}

/** The form of a move: the transition (when several lead to the column) and the required fields,
 *  each with the control the issue page's transition form gives it (write_inputs.js). */
function ask(card, column, ways, people) {
  return new Promise((resolve) => {
    const title = `move-title-${card.key}`;
    const fieldsBox = h("div", {class: "move-fields"});
    const note = h("p", {class: "status error", role: "alert"});
    let chosen = ways[0];
    let controls = [];
    const choice = ways.length > 1 ? h("fieldset", {},
      h("legend", {}, "Transition"),
      ways.map((way, n) => h("label", {class: "choice"},
        h("input", {type: "radio", name: "transition", value: way.id, checked: n === 0,
          onchange: () => { chosen = way; drawFields(); }}), ` ${way.name} → ${way.to}`))) : null;
    const drawFields = async () => {
      const catalogues = await loadCatalogues();
      controls = required(chosen).map(([id, meta]) => [id, meta, labelledControl(id, meta, null, {people, catalogues})]);
      fieldsBox.replaceChildren(...controls.map(([, , made]) => made.box));
    };
    const dialog = h("dialog", {class: "move-dialog", "aria-labelledby": title});
    const done = (value) => { dialog.close(); dialog.remove(); resolve(value); };
    const form = h("form", {},
      h("h2", {id: title}, `Move ${card.key} to ${column.name}`),
      h("p", {class: "note"}, ways.length > 1 ? "Several of Jira's transitions lead to this column."
        : `Jira's transition ${ways[0].name} asks for these fields.`),
      choice, fieldsBox, note,
      h("div", {class: "buttons"}, h("button", {type: "submit"}, "Move"),
        h("button", {type: "button", class: "secondary", onclick: () => done(null)}, "Cancel")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const fields = {};
      for (const [id, meta, made] of controls) {
        const value = made.value();
        if (value === null || (Array.isArray(value) && !value.length)) {
          say(note, `${meta.name || id} is required.`, true);
          made.focus.focus();
          return;
        }
        fields[memberOf(id)] = value;
      }
      done({to: chosen.id, fields});
    });
    dialog.addEventListener("cancel", (event) => { event.preventDefault(); done(null); });
    dialog.append(form);
    document.body.append(dialog);
    dialog.showModal();
    drawFields().then(() => (controls[0]?.[2].focus || form.querySelector("input, button")).focus());
  });
}

// GET /api/v1/catalogues, read once per page load, for a field whose values Jira's screen does not
// list (a resolution, a priority).
let catalogued = null;
function loadCatalogues() {
  catalogued ||= api.request("GET", "/api/v1/catalogues").catch(() => { catalogued = null; return {}; });
  return catalogued;
}

/** Ask the hub for the transition write of a plan, with an Idempotency-Key of its own: the write. */
export function sendMove(key, plan) {
  const body = {to: plan.to, ...(Object.keys(plan.fields).length ? {fields: plan.fields} : {})};
  return askWrite("POST", `/api/v1/issues/${encodeURIComponent(key)}/transitions`, {body});
}

/** Why a write that ended other than done did not move the card, in Jira's words. */
export function outcome(write) {
  if (write.status === "failed") return write.error || "Jira refused the transition.";
  if (write.status === "cancelled") return "the transition was cancelled before Jira saw it.";
  if (write.status === "conflict") {
    const status = conflictFields(write).status;
    if (status) return `the issue changed in Jira meanwhile: it is ${status.jira} there, not ${status.base}; nothing was written.`;
    return "the issue changed in Jira meanwhile; nothing was written.";
  }
  return `the transition ended ${write.status}.`;
}
