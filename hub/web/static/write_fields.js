// Fields edited in place: each field of the details panel that the issue's edit screen
// (issue.edit_fields) holds gets an Edit button; editing replaces the <dd>'s content with the
// field's control (write_inputs.js), Enter saves and Escape cancels. Saving sends
// PATCH /api/v1/issues/{key} {fields: {name: value}}; the value shows pending until Jira has it.
// Edit-screen fields the panel does not show (empty ones) are offered by "Set a field".
// The summary is edited in its place in the title.

import {h, replace, say} from "./dom.js";
import {control, currentValue, editable, memberOf} from "./write_inputs.js";
import {ask} from "./write_status.js";

/** Mount the field editors on containers.details and containers.summary; {update(issue)}. */
export function mountFields(containers, env) {
  const details = containers.details;
  if (!details) return {update() {}};
  const extra = h("select", {id: "set-field", class: "set-field"});
  const setButton = h("button", {type: "button", class: "secondary"}, "Set");
  const adder = h("div", {class: "set-field-row"},
    h("dt", {}, h("label", {for: "set-field"}, "Set a field")), h("dd", {}, h("div", {class: "set-field-pick"}, extra, setButton)));
  const summaryButton = h("button", {type: "button", class: "secondary", id: "edit-summary"}, "Edit summary");

  // The edit screen's fields that have a control, by the issue object's name: [fid, meta].
  function onScreen(issue) {
    return new Map(Object.entries(issue.edit_fields || {})
      // The summary and (where the page has its place) the description are edited in place.
      .filter(([fid, meta]) => fid !== "summary" && !(fid === "description" && containers.description)
        && editable(fid, meta))
      .map(([fid, meta]) => [memberOf(fid), [fid, meta]]));
  }

  function decorate(issue) {
    const screen = onScreen(issue);
    const shown = new Set();
    for (const div of details.querySelectorAll("div.field[data-field]")) {
      const name = div.dataset.field;
      const entry = screen.get(name);
      const button = div.querySelector(":scope > dt > button.field-edit");
      if (!entry) { button?.remove(); continue; }
      shown.add(name);
      if (!button && div.querySelector(":scope > dt")) {
        div.querySelector(":scope > dt").append(h("button", {type: "button", class: "field-edit",
          "aria-label": `Edit ${entry[1].name}`, title: `Edit ${entry[1].name}`,
          onclick: () => edit(div, name)}, "✎"));
      }
    }
    const missing = [...screen].filter(([name]) => !shown.has(name));
    replace(extra, h("option", {value: ""}, "Choose a field…"),
      missing.map(([name, [, meta]]) => h("option", {value: name}, meta.name)));
    if (missing.length && !adder.isConnected) details.append(adder);
    if (!missing.length) adder.remove();
    // The "Edit summary" button sits with the actions, when the edit screen has the summary.
    const summary = issue.edit_fields?.summary && containers.summary && containers.actions;
    if (summary && !summaryButton.isConnected) containers.actions.append(h("div", {class: "write-actions"}, summaryButton));
    summaryButton.hidden = !summary;
  }

  // Chosen, then "Set": a keyboard moving through the options opens nothing on the way.
  setButton.addEventListener("click", () => {
    const name = extra.value;
    if (!name) return;
    const [, meta] = onScreen(env.issue).get(name) || [];
    if (!meta) return;
    const div = h("div", {class: "field added", "data-field": name}, h("dt", {}, meta.name), h("dd", {}));
    details.insertBefore(div, adder);
    extra.value = "";
    edit(div, name, {added: true});
  });

  // One field's editor in its <dd>: the dd's content is kept, and put back on cancel.
  async function edit(div, name, {added = false} = {}) {
    if (div.classList.contains("editing")) return;
    const issue = env.issue;
    const [fid, meta] = onScreen(issue).get(name) || [];
    if (!meta) return;
    const dd = div.querySelector(":scope > dd");
    const kept = [...dd.childNodes];
    div.classList.add("editing");
    const catalogues = await env.catalogues;
    const made = control(fid, meta, currentValue(issue, name), {people: issue.people, catalogues});
    const initial = JSON.stringify(made.value());
    const note = h("p", {class: "status error", role: "alert"});
    const label = made.labelled ? null : h("label", {for: made.focus.id, class: "visually-hidden"}, meta.name);
    const form = h("form", {class: "field-form"}, label, made.node,
      h("div", {class: "buttons"}, h("button", {type: "submit"}, "Save"),
        h("button", {type: "button", class: "secondary", onclick: cancel}, "Cancel")), note);
    function close() {
      div.classList.remove("editing");
      if (added) div.remove();
    }
    function cancel() {
      replace(dd, kept);
      close();
      div.querySelector(".field-edit")?.focus();
    }
    form.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); cancel(); }
      // Enter saves from a one-line control (a textarea and a checkbox keep theirs).
      if (event.key === "Enter" && event.target.tagName === "SELECT") { event.preventDefault(); form.requestSubmit(); }
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const value = made.value();
      if (JSON.stringify(value) === initial) { cancel(); return; }  // nothing changed: no write
      const fields = {[name]: value};
      // Pending at once, in the field's place; a refusal of the hub brings the editor back.
      replace(dd, kept);
      close();
      try {
        await env.act({op: "edit", params: {fields}},
          () => ask("PATCH", `/api/v1/issues/${encodeURIComponent(issue.key)}`, {body: {fields}}));
      } catch (error) {
        if (added) details.insertBefore(div, adder.isConnected ? adder : null);
        div.classList.add("editing");
        replace(dd, form);
        say(note, error.description || error.message, true);
        made.focus.focus();
      }
    });
    replace(dd, form);
    made.focus.focus();
  }

  // The summary, edited in its place in the title.
  summaryButton.addEventListener("click", () => {
    const span = containers.summary;
    if (span.classList.contains("editing")) return;
    const issue = env.issue;
    const kept = [...span.childNodes];
    const input = h("input", {id: "summary-input", type: "text", value: issue.summary || "", maxlength: 255,
      "aria-label": "Summary"});
    const note = h("span", {class: "status error", role: "alert"});
    const form = h("form", {class: "summary-form"}, input,
      h("button", {type: "submit"}, "Save"),
      h("button", {type: "button", class: "secondary", onclick: cancel}, "Cancel"), note);
    function cancel() {
      replace(span, kept);
      span.classList.remove("editing");
      summaryButton.focus();
    }
    form.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); cancel(); }
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const summary = input.value.trim();
      if (!summary) { say(note, "A summary is required.", true); input.focus(); return; }
      span.classList.remove("editing");
      replace(span, kept);
      try {
        await env.act({op: "edit", params: {fields: {summary}}},
          () => ask("PATCH", `/api/v1/issues/${encodeURIComponent(issue.key)}`, {body: {fields: {summary}}}));
      } catch (error) {
        span.classList.add("editing");
        replace(span, form);
        say(note, error.description || error.message, true);
        input.focus();
      }
    });
    span.classList.add("editing");
    replace(span, form);
    input.focus();
  });

  decorate(env.issue);
  return {update: decorate};
}
