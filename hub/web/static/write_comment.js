// The comment editor: Jira's wiki markup in a textarea, a preview the hub renders
// (POST /api/v1/render, shown through rendered.js as any of Jira's text), and "Comment",
// which shows the comment at once, pending, and then as Jira's comment once it is done.

import {h, say, status} from "./dom.js";
import {previewer} from "./write_preview.js";
import {ask} from "./write_status.js";

const LIMIT = 32767;  // Jira's default limit of a text field

/** Mount the editor in containers.comments; {update()}. */
export function mountComment(containers, env) {
  const box = containers.comments;
  if (!box) return {update() {}};
  const text = h("textarea", {id: "comment-body", name: "body", rows: 4, maxlength: LIMIT,
    "aria-describedby": "comment-hint"});
  const {box: preview, button: previewButton, reset: editMode} = previewer(text, "comment-preview", env);
  const submit = h("button", {type: "submit"}, "Comment");
  const line = status();
  const form = h("form", {id: "comment-form", class: "write-form comment-form"},
    h("label", {for: "comment-body"}, "Add a comment"),
    text, preview,
    h("p", {class: "hint", id: "comment-hint"},
      "Jira's wiki markup: *bold*, _italic_, {{code}}, [text|address], * for a list. Ctrl+Enter sends."),
    h("div", {class: "buttons"}, submit, previewButton), line);

  text.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = text.value;
    if (!body.trim()) {
      say(line, "Write the comment first.", true);
      editMode();
      text.focus();
      return;
    }
    say(line, "");
    // The comment shows at once, pending; the box is free for the next one.
    text.value = "";
    editMode();
    const key = env.issue.key;
    try {
      await env.act({op: "comment", params: {body}},
        () => ask("POST", `/api/v1/issues/${encodeURIComponent(key)}/comments`, {body: {body}}));
      say(line, "Comment sent; it shows pending until Jira has it.");
    } catch (error) {
      // Refused by the hub: the text comes back to the box, with why.
      if (!text.value) text.value = body;
      say(line, `Not sent: ${error.description || error.message}`, true);
      text.focus();
    }
  });

  box.append(form);
  return {update() {}};
}
