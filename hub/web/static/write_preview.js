// A preview of Jira wiki text as the hub renders it (POST /api/v1/render, shown through
// rendered.js as any of Jira's text), for the editors of an existing comment and of the
// description: "Preview" hides the textarea and shows the rendered text; "Back to editing"
// (or Escape in the editor) shows the textarea again.

import * as api from "./api.js";
import {h, replace} from "./dom.js";
import {wikiBlock} from "./rendered.js";

/**
 * A preview for textarea: {box (the rendered text's place, after the textarea), button
 * ("Preview" / "Back to editing"), reset() (back to the textarea)}. env: {issue, signal}.
 */
export function previewer(textarea, id, env) {
  const box = h("div", {class: "comment-preview", id, hidden: true, tabindex: "-1", "aria-label": "Preview"});
  const button = h("button", {type: "button", class: "secondary", "aria-controls": id}, "Preview");
  let previewing = false;
  let asked = 0;

  function reset() {
    previewing = false;
    box.hidden = true;
    textarea.hidden = false;
    button.textContent = "Preview";
  }

  button.addEventListener("click", async () => {
    if (previewing) {
      reset();
      textarea.focus();
      return;
    }
    const mine = ++asked;
    previewing = true;
    button.textContent = "Back to editing";
    textarea.hidden = true;
    box.hidden = false;
    replace(box, h("p", {class: "meta"}, "Rendering…"));
    try {
      const answer = await api.request("POST", "/api/v1/render",
        {body: {text: textarea.value, format: "wiki", key: env.issue.key}, signal: env.signal});
      if (mine !== asked || !previewing) return;
      replace(box, textarea.value.trim() ? wikiBlock(answer.html, {}, env.signal)
        : h("p", {class: "empty"}, "Nothing to preview."));
    } catch (error) {
      if (error.name === "AbortError" || mine !== asked) return;
      replace(box, h("p", {class: "status error"}, error.status === 404
        ? "This hub cannot render a preview." : `Could not render the preview: ${error.message}`));
    }
  });

  return {box, button, reset};
}
