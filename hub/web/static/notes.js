// The hub's own notes on an issue (not Jira's): add, edit, delete.

import * as api from "./api.js";
import {h, newest, replace, say, status, time} from "./dom.js";

/** The notes panel of the issue key. */
export function notesPanel(key, signal) {
  const path = `/api/v1/issues/${encodeURIComponent(key)}/notes`;
  const list = h("ul", {class: "notes"});
  const line = status();
  const text = h("textarea", {id: "new-note", name: "body", rows: 3, required: true, maxlength: 100000});
  const form = h("form", {class: "note-form"},
    h("label", {for: "new-note"}, "New note"), text, h("button", {type: "submit"}, "Add note"));

  // Only a note's author (its token's name) or an admin may change it: the hub answers anyone
  // else 403, so the page offers them no Edit or Delete.
  const mayChange = api.me()
    .then((who) => (note) => who.role === "admin" || note.author === who.name)
    .catch(() => () => false);

  // Read again after each change: two quick changes' reads may be answered out of order.
  const read = newest();
  async function load() {
    const current = read();
    try {
      const [notes, may] = await Promise.all([api.request("GET", path, {signal}), mayChange]);
      if (!current()) return;
      replace(list, notes.items.map((note) => noteItem(note, may(note))));
      if (!notes.items.length) list.append(h("li", {class: "empty"}, "No notes yet."));
    } catch (error) {
      if (error.name !== "AbortError") say(line, `Could not read the notes: ${error.message}`, true);
    }
  }

  async function act(what, call) {
    try {
      await call();
      say(line, what);
      await load();
      return true;
    } catch (error) {
      if (error.name !== "AbortError") say(line, `${error.message}`, true);
      return false;
    }
  }

  function noteItem(note, mayChange) {
    const item = h("li", {class: "note-item"});
    const show = () => replace(item,
      h("p", {class: "body"}, note.body),
      h("p", {class: "meta"}, note.author, " · ", time(note.updated_at)),
      mayChange ? h("div", {class: "buttons"},
        h("button", {type: "button", class: "secondary", onclick: edit}, "Edit"),
        h("button", {type: "button", class: "secondary", onclick: remove}, "Delete")) : null);
    const edit = () => {
      const id = `note-${note.id}`;
      const area = h("textarea", {id, rows: 3, value: note.body, required: true});
      const editing = h("form", {},
        h("label", {for: id}, "Edit note"), area,
        h("div", {class: "buttons"},
          h("button", {type: "submit"}, "Save"),
          h("button", {type: "button", class: "secondary", onclick: show}, "Cancel")));
      editing.addEventListener("submit", (event) => {
        event.preventDefault();
        act("Note saved.", () => api.request("PATCH", `/api/v1/notes/${note.id}`, {body: {body: area.value}}));
      });
      replace(item, editing);
      area.focus();
    };
    // Two steps instead of confirm(): a dialog would block the page.
    const remove = () => {
      const yes = h("button", {type: "button", class: "danger", onclick: () =>
        act("Note deleted.", () => api.request("DELETE", `/api/v1/notes/${note.id}`))}, "Confirm delete");
      replace(item, h("p", {class: "body"}, note.body), h("div", {class: "buttons"}, yes,
        h("button", {type: "button", class: "secondary", onclick: show}, "Keep")));
      yes.focus();
    };
    show();
    return item;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!text.value.trim()) return;
    if (await act("Note added.", () => api.request("POST", path, {body: {body: text.value}}))) text.value = "";
  });
  load();
  return h("div", {}, list, form, line);
}
