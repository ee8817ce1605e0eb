// The comment editor: Jira's wiki markup in a textarea, a preview the hub renders
// (POST /api/v1/render, shown through rendered.js as any of Jira's text), and "Comment",
// which shows the comment at once, pending, and then as Jira's comment once it is done.

import * as api from "./api.js";
import {h, replace, say, status} from "./dom.js";
import {wikiBlock} from "./rendered.js";
import {ask} from "./write_status.js";

const LIMIT = 32767;  // Jira's default limit of a text field

/** Mount the editor in containers.comments; {update()}. */
export function mountComment(containers, env) {
  const box = containers.comments;
  if (!box) return {update() {}};
  const text = h("textarea", {id: "comment-body", name: "body", rows: 4, maxlength: LIMIT,
    "aria-describedby": "comment-hint"});
  const preview = h("div", {class: "comment-preview", id: "comment-preview", hidden: true, tabindex: "-1",
    "aria-label": "Preview"});
  const previewButton = h("button", {type: "button", class: "secondary", "aria-controls": "comment-preview"}, "Preview");
  const submit = h("button", {type: "submit"}, "Comment");
  const line = status();
  const form = h("form", {id: "comment-form", class: "write-form comment-form"},
    h("label", {for: "comment-body"}, "Add a comment"),
    text, preview,
    h("p", {class: "hint", id: "comment-hint"},
      "Jira's wiki markup: *bold*, _italic_, {{code}}, [text|address], * for a list. Ctrl+Enter sends."),
    h("div", {class: "buttons"}, submit, previewButton), line);
  let previewing = false;
  let asked = 0;

  function editMode() {
    previewing = false;
    preview.hidden = true;
    text.hidden = false;
    previewButton.textContent = "Preview";
  }

  previewButton.addEventListener("click", async () => {
    if (previewing) {
      editMode();
      text.focus();
      return;
    }
    const mine = ++asked;
    previewing = true;
    previewButton.textContent = "Edit";
    text.hidden = true;
    preview.hidden = false;
    replace(preview, h("p", {class: "meta"}, "Rendering…"));
    try {
      const answer = await api.request("POST", "/api/v1/render",
        {body: {text: text.value, format: "wiki", key: env.issue.key}, signal: env.signal});
      if (mine !== asked || !previewing) return;
      replace(preview, text.value.trim() ? wikiBlock(answer.html, {}, env.signal)
        : h("p", {class: "empty"}, "Nothing to preview."));
    } catch (error) {
      if (error.name === "AbortError" || mine !== asked) return;
      replace(preview, h("p", {class: "status error"}, error.status === 404
        ? "This hub cannot render a preview." : `Could not render the preview: ${error.message}`));
    }
  });

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
