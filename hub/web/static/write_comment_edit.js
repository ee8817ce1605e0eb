// Editing a mirrored comment in its place: each comment the page shows
// (<article class="comment" data-comment-id="ID">, drawn by comments.js) gets "Edit" for a
// token that may write. The editor holds the comment's wiki text, with the hub's preview;
// Save sends PATCH /api/v1/issues/{key}/comments/{id} (op edit_comment) and the comment shows
// the new text, pending, until Jira has it; then Jira's own text. Jira lets only the comment's
// author or a project's admin edit it; the hub does not know Jira's roles, so "Edit" is offered
// on every comment and a refusal shows in Jira's words. The comments panel is drawn anew on
// live updates and "Show more": an observer puts the buttons, an open editor (with what is
// typed in it) and the pending marks back on the comments drawn anew.

import * as api from "./api.js";
import {h, replace, say, status} from "./dom.js";
import {previewer} from "./write_preview.js";
import {ask} from "./write_status.js";

const LIMIT = 32767;  // Jira's default limit of a text field

/**
 * The comment edits of an issue page: {update(), mark(write, tag)}. mark() is where an
 * edit_comment write shows (tag(status): its badge and controls); update() decorates the
 * comments shown. mayWrite: whether "Edit" is offered.
 */
export function commentEdits(containers, env, mayWrite) {
  const root = containers.comments?.parentElement || null;
  const editors = new Map();  // comment id -> an open editor
  const marks = new Set();    // the pending edits' marks, drawn again on comments drawn anew

  const article = (id) => root?.querySelector(`article.comment[data-comment-id="${CSS.escape(id)}"]`) || null;

  // Shows or hides the comment's own text (all but its meta line, the editor and a mark).
  function own(node, shown) {
    for (const child of node.children) {
      if (!child.matches(".meta, .comment-edit-form, .edit-pending")) child.hidden = !shown;
    }
  }

  function decorate() {
    if (!root) return;
    for (const node of root.querySelectorAll("article.comment[data-comment-id]")) {
      const id = node.dataset.commentId;
      const meta = node.querySelector(":scope > .meta");
      if (mayWrite && meta && !meta.querySelector(".comment-edit")) {
        meta.append(h("span", {class: "comment-tools"}, " · ", h("button", {type: "button",
          class: "comment-edit", "aria-label": "Edit comment", onclick: () => open(id)}, "Edit")));
      }
      const editor = editors.get(id);
      if (editor && editor.form.parentElement !== node) place(node, editor);
    }
  }

  function place(node, editor) {
    own(node, false);
    node.classList.add("editing");
    node.append(editor.form);
  }

  // The comment's wiki text, as the mirror holds it (the page shows it rendered only).
  async function readBody(id) {
    const path = `/api/v1/issues/${encodeURIComponent(env.issue.key)}/comments`;
    let cursor;
    do {
      const page = await api.request("GET", path, {query: cursor ? {limit: 500, cursor} : {limit: 500},
        signal: env.signal});
      const found = page.items.find((comment) => String(comment.id) === id);
      if (found) return found.body ?? "";
      cursor = page.next_cursor;
    } while (cursor !== null && cursor !== undefined);
    throw new Error("the mirror no longer holds this comment");
  }

  async function open(id) {
    const node = article(id);
    if (!node) return;
    if (editors.has(id)) { editors.get(id).text.focus(); return; }
    const textId = `comment-edit-${id}`;
    const text = h("textarea", {id: textId, rows: 5, maxlength: LIMIT, disabled: true,
      "aria-describedby": `${textId}-hint`});
    const preview = previewer(text, `${textId}-preview`, env);
    const note = status();
    const form = h("form", {class: "write-form comment-edit-form", "data-for": id},
      h("label", {for: textId}, "Edit the comment"), text, preview.box,
      h("p", {class: "hint", id: `${textId}-hint`},
        "Jira's wiki markup. Ctrl+Enter saves, Escape cancels. Jira lets the comment's author or a project's admin edit it."),
      h("div", {class: "buttons"}, h("button", {type: "submit"}, "Save"),
        h("button", {type: "button", class: "secondary", onclick: () => cancel(editor)}, "Cancel"), preview.button),
      note);
    const editor = {id, form, text, note, preview, seen: null};
    editors.set(id, editor);
    place(node, editor);
    form.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); cancel(editor); }
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); form.requestSubmit(); }
    });
    form.addEventListener("submit", (event) => { event.preventDefault(); save(editor); });
    say(note, "Reading the comment's text…");
    try {
      editor.seen = await readBody(id);
    } catch (error) {
      if (error.name === "AbortError") return;
      say(note, `Could not read the comment: ${error.message}`, true);
      return;
    }
    say(note, "");
    text.value = editor.seen;
    text.disabled = false;
    text.focus();
  }

  function close(editor) {
    editors.delete(editor.id);
    editor.form.remove();
    const node = article(editor.id);
    if (node) {
      node.classList.remove("editing");
      if (!node.querySelector(":scope > .edit-pending")) own(node, true);
    }
    return node;
  }

  function cancel(editor) {
    close(editor)?.querySelector(".comment-edit")?.focus();
  }

  async function save(editor) {
    const body = editor.text.value;
    if (editor.seen === null) return;
    if (!body.trim()) {
      say(editor.note, "A comment cannot be empty; Cancel leaves it as it is.", true);
      editor.text.focus();
      return;
    }
    if (body === editor.seen) { cancel(editor); return; }  // nothing changed: no write
    const {id} = editor;
    close(editor)?.querySelector(".comment-edit")?.focus();
    const key = env.issue.key;
    try {
      await env.act({op: "edit_comment", params: {comment_id: id, body}}, () => ask("PATCH",
        `/api/v1/issues/${encodeURIComponent(key)}/comments/${encodeURIComponent(id)}`, {body: {body}}));
    } catch (error) {
      // Refused by the hub: the editor comes back with what was typed, and why.
      const node = article(id);
      if (!node) return;
      editors.set(id, editor);
      editor.preview.reset();
      place(node, editor);
      say(editor.note, `Not saved: ${error.description || error.message}`, true);
      editor.text.focus();
    }
  }

  /** Where an edit_comment write shows: its comment, with the new text pending. */
  function mark(write, tag) {
    const id = String(write.params?.comment_id ?? "");
    const body = write.params?.body || "";
    const fallback = h("p", {class: "write-line"});
    let current = "pending";
    function apply(force) {
      const node = article(id);
      if (!node) {
        // The comment is not on the page (a later page of comments): the writes region says it.
        replace(fallback, "Comment edit: ", body, " ", tag(current));
        if (!fallback.isConnected) containers.writes?.append(fallback);
        return;
      }
      fallback.remove();
      let box = node.querySelector(":scope > .edit-pending");
      if (box && !force) return;
      if (!box) box = node.appendChild(h("div", {class: "edit-pending"}));
      const ended = current === "failed" || current === "conflict";
      node.classList.toggle("pending", !ended);
      node.classList.toggle("failed", ended);
      if (!node.classList.contains("editing")) own(node, ended);
      replace(box, ended ? h("p", {class: "meta"}, "Your edit of this comment: ", tag(current))
        : [h("div", {class: "comment-text"}, body), h("p", {class: "meta"}, tag(current))]);
    }
    const made = {
      state(next) { current = next; apply(true); },
      refresh() { apply(false); },
      remove() {
        marks.delete(made);
        fallback.remove();
        const node = article(id);
        if (!node) return;
        node.querySelector(":scope > .edit-pending")?.remove();
        node.classList.remove("pending", "failed");
        if (!node.classList.contains("editing")) own(node, true);
      },
    };
    marks.add(made);
    return made;
  }

  if (root) {
    const observer = new MutationObserver(() => {
      decorate();
      for (const made of marks) made.refresh();
    });
    observer.observe(root, {childList: true, subtree: true});
    env.signal?.addEventListener("abort", () => observer.disconnect(), {once: true});
  }
  decorate();
  return {update: decorate, mark};
}
