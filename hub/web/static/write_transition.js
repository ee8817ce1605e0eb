// Transitions as buttons, from those Jira offers from the issue's status (issue.transitions),
// each named by the transition with the status it goes to. A transition whose screen has
// fields opens a dialog for them (required ones marked, options from `allowed`), then sends
// POST /api/v1/issues/{key}/transitions {to: id, fields, comment}; the status shows pending.

import {h, replace, say, status} from "./dom.js";
import {editable, labelledControl, memberOf} from "./write_inputs.js";
import {ask} from "./write_status.js";

/** Mount the transition buttons in containers.actions; {update(issue), busy(bool)}. */
export function mountTransitions(containers, env) {
  const bar = containers.actions;
  if (!bar) return {update() {}, busy() {}};
  const group = h("div", {class: "transitions", role: "group", "aria-label": "Transitions"});
  const line = status();
  const holder = h("div", {class: "write-actions transitions-box"}, group, line);
  bar.append(holder);
  let drawn = null;
  let busy = false;
  let pressed = false;  // a transition was sent from here: its new buttons take the focus

  function draw(issue) {
    const shape = JSON.stringify(issue.transitions);
    if (shape === drawn) return;
    const first = drawn === null;
    const inside = group.contains(document.activeElement);
    drawn = shape;
    const items = issue.transitions || [];
    replace(group, items.map((t) => h("button", {type: "button", class: "transition secondary",
      "data-transition-id": t.id, disabled: busy, onclick: (event) => start(t, event.currentTarget)},
      t.name, h("span", {class: "to"}, ` → ${t.to}`))));
    if (issue.transitions === null) group.append(h("span", {class: "meta"}, "Transitions not known yet."));
    // After a transition of this page, focus goes to the buttons Jira offers now, not to the page's start.
    const lost = !document.activeElement || document.activeElement === document.body;
    if (inside || (pressed && !first && lost)) group.querySelector("button")?.focus();
    if (!first) pressed = false;
  }

  async function send(t, fields, comment, button) {
    const key = env.issue.key;
    const body = {to: t.id};
    if (fields && Object.keys(fields).length) body.fields = fields;
    if (comment) body.comment = comment;
    say(line, "");
    await env.act({op: "transition", params: {to: t.to, fields}},
      () => ask("POST", `/api/v1/issues/${encodeURIComponent(key)}/transitions`, {body}));
    pressed = true;
    say(line, `${t.name} sent; the status shows pending until Jira has moved it.`);
    button?.isConnected && button.focus();
  }

  async function start(t, button) {
    const fields = Object.entries(t.fields || {}).filter(([fid, meta]) => editable(fid, meta));
    if (!fields.length) {
      try {
        await send(t, null, null, button);
      } catch (error) {
        say(line, `${t.name} not sent: ${error.description || error.message}`, true);
        button.focus();
      }
      return;
    }
    screen(t, fields, button);
  }

  // The transition's screen as a modal dialog.
  function screen(t, fields, button) {
    const issue = env.issue;
    const titleId = `transition-title-${t.id}`;
    const controls = [];
    const dialog = h("dialog", {class: "write-dialog transition-dialog", "aria-labelledby": titleId});
    const note = h("p", {class: "status error", role: "alert"});
    const commentId = `transition-comment-${t.id}`;
    const comment = h("textarea", {id: commentId, rows: 3});
    const form = h("form", {method: "dialog"},
      h("h2", {id: titleId}, `${t.name}: ${issue.key} to ${t.to}`),
      h("p", {class: "hint"}, "Fields marked required must be given."));
    env.catalogues.then((catalogues) => {
      for (const [fid, meta] of fields) {
        const current = fid === "worklog" ? null : issue[memberOf(fid)] ?? null;
        const made = labelledControl(fid, meta, current, {people: issue.people, catalogues});
        controls.push([fid, meta, made, JSON.stringify(made.value())]);
        form.append(made.box);
      }
      form.append(
        h("div", {class: "form-field"}, h("label", {for: commentId}, "Comment (optional)"), comment),
        note,
        h("div", {class: "buttons"}, h("button", {type: "submit"}, t.name),
          h("button", {type: "button", class: "secondary", onclick: () => dialog.close()}, "Cancel")));
      controls[0]?.[2].focus.focus();
    });
    dialog.append(form);
    dialog.addEventListener("close", () => {
      if (!dialog.dataset.keep) { dialog.remove(); if (button.isConnected) button.focus(); }
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const values = {};
      for (const [fid, meta, made, initial] of controls) {
        const value = made.value();
        const empty = value === null || (Array.isArray(value) && !value.length);
        if (empty && meta.required) {
          say(note, `${meta.name} is required.`, true);
          made.focus.focus();
          return;
        }
        // Only what the screen's form changed (or requires) is sent: the issue's own values stay Jira's.
        if (!empty && (meta.required || JSON.stringify(value) !== initial)) values[memberOf(fid)] = value;
      }
      // Pending at once: the dialog closes; a refusal of the hub opens it again as it was.
      dialog.dataset.keep = "1";
      dialog.close();
      try {
        await send(t, values, comment.value.trim() || null, button);
        dialog.remove();
      } catch (error) {
        dialog.showModal();
        delete dialog.dataset.keep;
        say(note, error.description || error.message, true);
        const named = String(error.body?.field || "").replace(/^fields\./, "");
        const hit = controls.find(([fid]) => fid === named || memberOf(fid) === named);
        (hit ? hit[2].focus : form.querySelector("button[type=submit]")).focus();
      }
    });
    document.body.append(dialog);
    dialog.showModal();
  }

  draw(env.issue);
  return {
    update: draw,
    busy(value) {
      busy = value;
      for (const button of group.querySelectorAll("button")) button.disabled = value;
    },
  };
}
