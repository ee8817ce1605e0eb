// An issue's attachments with their states, kept live.
//
// While attachments are being fetched the panel watches them: one at a time
// by long-polling GET /api/v1/attachments/{id}?wait=20&known=fetching (the
// hub answers when the state changes), several at once by
// POST /api/v1/attachments/states, asking again after 1 s and then less often
// (up to every 15 s) while nothing changes. After an error it waits 1, 2, 4 …
// up to 30 s; a Retry-After from the hub is honoured. Leaving the page ends it.
//
// Each attachment shows who attached it and when, its media type and size; an
// image whose content is ready shows a thumbnail, which opens full size in a
// dialog on the page (never in a tab of its own: the hub serves the content as
// a download, with the type Jira reported).

import * as api from "./api.js";
import {bytes, h, person, replace, say, sleep, status, table, time} from "./dom.js";

const LONG_POLL_SECONDS = 20;
const MAX_DELAY_MS = 15000;
const MAX_ERROR_DELAY_MS = 30000;
// The media types shown as an <img>: raster images a browser decodes (no SVG:
// it is a document, and nothing from Jira is given a chance to be one).
const PREVIEWED = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/avif"]);

/** The path of an attachment's content. */
export function contentPath(id) {
  return `/api/v1/attachments/${encodeURIComponent(id)}/content`;
}

/** Whether the attachment can be previewed: a ready raster image. */
export function previewable(state) {
  return state.state === "ready" && PREVIEWED.has(String(state.mime_type || "").toLowerCase().split(";")[0].trim());
}

// Who attached it: the display name the hub knows, the login on hover.
function attacher(state) {
  return person(state.author, state.author_display);
}

// The full-size image, in a modal dialog: Escape or "Close" ends it, and focus
// goes back to the thumbnail.
function showFull(state, opener) {
  const close = h("button", {type: "button", class: "secondary"}, "Close");
  const dialog = h("dialog", {class: "preview", "aria-label": state.filename},
    h("p", {class: "preview-title"}, state.filename, " ", close),
    h("img", {src: contentPath(state.attachment_id), alt: state.filename}));
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => { dialog.remove(); opener.focus(); });
  document.body.append(dialog);
  dialog.showModal();
  close.focus();
}

function thumbnail(state) {
  const label = `Show ${state.filename} full size`;
  const button = h("button", {type: "button", class: "thumb", title: label, "aria-label": label},
    h("img", {src: contentPath(state.attachment_id), alt: "", loading: "lazy", width: 96, height: 72}));
  button.addEventListener("click", () => showFull(state, button));
  // Content the browser cannot show (not an image after all, or removed since) leaves no broken picture.
  button.querySelector("img").addEventListener("error", () => button.remove(), {once: true});
  return button;
}

/**
 * The attachments table: {node, reload()}. reload() lists them again (the issue page calls it
 * when the issue changed, or when an inline image of its text was fetched) and draws the
 * table again only when something differs.
 */
export function attachmentsPanel(key, signal) {
  const states = new Map();
  const rows = new Map();
  const panel = h("div", {});
  const line = status();
  let watching = false;
  let wake = null;
  let last = null;

  function cells(state) {
    const id = state.attachment_id;
    const row = rows.get(id) || {note: status()};
    rows.set(id, row);
    const stateText = h("span", {class: `state state-${state.state}`, "data-state": state.state},
      state.state === "failed" && state.error ? `failed: ${state.error}` : state.state);
    const actions = [];
    if (state.state === "none" || state.state === "failed") {
      actions.push(h("button", {type: "button", onclick: () => fetchContent(id)},
        state.state === "failed" ? `Fetch ${state.filename} again` : `Fetch ${state.filename}`));
    } else if (state.state === "ready") {
      actions.push(h("button", {type: "button", onclick: () => download(state)}, `Download ${state.filename}`));
    } else {
      actions.push(h("span", {class: "waiting"}, "the agent is fetching it…"));
    }
    // The <img> goes with the page's session cookie (api.js), as a bearer token could not.
    const file = previewable(state)
      ? h("div", {class: "file"}, thumbnail(state), h("span", {}, state.filename))
      : state.filename;
    return [file, state.mime_type || "—", bytes(state.size), attacher(state),
      time(state.created_at || state.created), stateText, h("div", {class: "actions"}, actions, row.note)];
  }

  function draw() {
    replace(panel, table(null, ["File", "Type", "Size", "Attached by", "Attached", "State", ""],
      [...states.values()].map(cells), "No attachments."), line);
  }

  function update(state) {
    const before = states.get(state.attachment_id);
    states.set(state.attachment_id, state);
    return !before || before.state !== state.state || before.error !== state.error;
  }

  async function fetchContent(id) {
    const note = rows.get(id).note;
    say(note, "Asking the hub…");
    try {
      const answer = await api.request("POST", `/api/v1/attachments/${encodeURIComponent(id)}/fetch`, {signal});
      const {command, ...state} = answer;
      update(state);
      say(note, "");
      draw();
      watch();
    } catch (error) {
      if (error.name !== "AbortError") say(note, `Could not ask for it: ${error.message}`, true);
    }
  }

  async function download(state) {
    const note = rows.get(state.attachment_id).note;
    say(note, "Downloading…");
    try {
      // Read through the API (as a blob, offered to the browser as an object URL)
      // rather than by a plain link, so that a file cleanup removed (409) is said
      // here and its state read again, not left to a failed download.
      const response = await api.request("GET",
        `/api/v1/attachments/${encodeURIComponent(state.attachment_id)}/content`, {signal, raw: true});
      const blob = await response.blob();
      const href = URL.createObjectURL(blob);
      const link = h("a", {href, download: state.filename, hidden: true}, state.filename);
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(href), 60000);
      say(note, `Downloaded ${bytes(blob.size)}.`);
    } catch (error) {
      if (error.name === "AbortError") return;
      say(note, `Could not download it: ${error.message}`, true);
      if (error.status === 409) reload();
    }
  }

  async function watch() {
    if (watching) { wake?.abort(); return; }
    watching = true;
    let delay = 1000;
    let errorDelay = 1000;
    try {
      while (!signal.aborted) {
        const fetching = [...states.values()].filter((state) => state.state === "fetching");
        if (!fetching.length) break;
        wake = new AbortController();
        signal.addEventListener("abort", () => wake.abort(), {once: true});
        try {
          if (fetching.length === 1) {
            const id = fetching[0].attachment_id;
            const asked = Date.now();
            const response = await api.request("GET", `/api/v1/attachments/${encodeURIComponent(id)}`,
              {query: {wait: LONG_POLL_SECONDS, known: "fetching"}, signal: wake.signal, raw: true});
            const retry = Number(response.headers.get("Retry-After")) || 0;
            const changed = update(await response.json());
            if (changed) draw();
            // An answer that came at once with nothing new (no slot free, or a
            // proxy that does not hold requests) is not asked again at once.
            if (retry) await sleep(retry * 1000, wake.signal);
            else if (!changed && Date.now() - asked < 1000) await sleep(1000, wake.signal);
          } else {
            const answer = await api.request("POST", "/api/v1/attachments/states",
              {body: {ids: fetching.map((state) => state.attachment_id)}, signal: wake.signal});
            const changed = answer.items.map(update).some(Boolean);
            if (changed) draw();
            delay = changed ? 1000 : Math.min(delay * 2, MAX_DELAY_MS);
            await sleep(delay, wake.signal);
          }
          errorDelay = 1000;
          say(line, "");
        } catch (error) {
          if (error.name === "AbortError") continue;  // woken (a new fetch) or leaving
          if (error.status === 401) return;
          say(line, `Could not read the states (${error.message}); trying again in ${errorDelay / 1000} s.`, true);
          await sleep(errorDelay, signal);
          errorDelay = Math.min(errorDelay * 2, MAX_ERROR_DELAY_MS);
        }
      }
    } finally {
      watching = false;
    }
  }

  async function reload() {
    try {
      const answer = await api.request("GET", `/api/v1/issues/${encodeURIComponent(key)}/attachments`, {signal});
      const seen = JSON.stringify(answer.items);
      if (seen === last) return;
      last = seen;
      states.clear();
      answer.items.forEach(update);
      draw();
      watch();
    } catch (error) {
      if (error.name !== "AbortError") say(line, `Could not list the attachments: ${error.message}`, true);
    }
  }

  reload();
  return {node: panel, reload};
}
