// The description edited in its place, when the issue's edit screen holds it: "Edit
// description" opens a textarea with the description's wiki text (the issue object's
// `description`) and the hub's preview; Save sends PATCH /api/v1/issues/{key}
// {fields: {description}, base: {description: the text the editor opened with}}, so that a
// description changed in Jira meanwhile ends in a conflict showing both texts (as for any
// field). The new text shows pending in the description's place until Jira has it.
// containers.description sits in the description's section, after the rendered text.

import {h, replace, say, status} from "./dom.js";
import {previewer} from "./write_preview.js";
import {ask} from "./write_status.js";

const LIMIT = 32767;  // Jira's default limit of a text field

function sectionOf(containers) {
  return containers.description?.closest("section") || null;
}

/** Where an edit of the description shows: the new text, pending, in the description's place. */
export function descriptionMark(containers, value, tag) {
  const box = h("div", {class: "description-pending"});
  let current = "pending";
  function apply() {
    const section = sectionOf(containers);
    const ended = current === "failed" || current === "conflict";
    section?.classList.toggle("description-pending-shown", !ended);
    box.classList.toggle("pending", !ended);
    box.classList.toggle("failed", ended);
    replace(box, ended ? h("p", {class: "meta"}, "Your edit of the description: ", tag(current))
      : [h("div", {class: "pending-text"}, value || "(no description)"), h("p", {class: "meta"}, tag(current))]);
    if (!box.isConnected) (containers.description || containers.writes)?.prepend(box);
  }
  return {
    state(next) { current = next; apply(); },
    refresh() { if (!box.isConnected) apply(); },
    remove() {
      box.remove();
      sectionOf(containers)?.classList.remove("description-pending-shown");
    },
  };
}

/** Mount "Edit description" in containers.description; {update(issue)}. */
export function mountDescription(containers, env) {
  const place = containers.description;
  if (!place) return {update() {}};
  const button = h("button", {type: "button", class: "secondary", id: "edit-description"}, "Edit description");
  const tools = h("div", {class: "write-actions description-tools"}, button);
  place.append(tools);
  let form = null;

  function update(issue) {
    tools.hidden = !issue.edit_fields?.description || Boolean(form);
  }

  function close() {
    form?.remove();
    form = null;
    sectionOf(containers)?.classList.remove("editing");
    update(env.issue);
  }

  button.addEventListener("click", () => {
    if (form) return;
    const issue = env.issue;
    const seen = issue.description ?? null;
    const text = h("textarea", {id: "description-input", rows: 12, maxlength: LIMIT, value: seen ?? "",
      "aria-describedby": "description-hint"});
    const preview = previewer(text, "description-preview", env);
    const note = status();
    const cancel = () => { close(); button.focus(); };
    form = h("form", {class: "write-form description-form", id: "description-form"},
      h("label", {for: "description-input"}, "Edit the description"), text, preview.box,
      h("p", {class: "hint", id: "description-hint"}, "Jira's wiki markup: h2. for a heading, *bold*, "
        + "_italic_, {{code}}, [text|address], * for a list. Ctrl+Enter saves, Escape cancels."),
      h("div", {class: "buttons"}, h("button", {type: "submit"}, "Save"),
        h("button", {type: "button", class: "secondary", onclick: cancel}, "Cancel"), preview.button),
      note);
    form.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); cancel(); }
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); form.requestSubmit(); }
    });
    const opened = form;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const value = text.value;
      if (value === (seen ?? "")) { cancel(); return; }  // nothing changed: no write
      const description = value.trim() ? value : null;
      const fields = {description};
      close();
      button.focus();
      try {
        await env.act({op: "edit", params: {fields}}, () => ask("PATCH",
          `/api/v1/issues/${encodeURIComponent(issue.key)}`, {body: {fields, base: {description: seen}}}));
      } catch (error) {
        // Refused by the hub: the editor comes back with what was typed, and why.
        if (form) return;
        form = opened;
        preview.reset();
        sectionOf(containers)?.classList.add("editing");
        place.append(form);
        update(env.issue);
        say(note, `Not saved: ${error.description || error.message}`, true);
        text.focus();
      }
    });
    sectionOf(containers)?.classList.add("editing");
    place.append(form);
    update(issue);
    text.focus();
  });

  update(env.issue);
  return {update};
}
