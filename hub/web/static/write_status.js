// A write to Jira from the page's side: asked of the hub once per user action (its own
// Idempotency-Key, so a request sent again after a lost answer makes no second write),
// then followed by long-polls until Jira has it, refused it, or found it in conflict.
// See docs/writes.md for the statuses.

import * as api from "./api.js";
import {sleep} from "./dom.js";

/** The statuses of a write that has not ended yet. */
export const OPEN = new Set(["pending", "applying"]);
const LONG_POLL_SECONDS = 20;

/** A fresh key naming one user action (crypto.randomUUID where the page is a secure context). */
export function actionKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Ask the hub for a write (POST/PATCH path with body): the write object it answers (202, or 200
 * for the one this key made before). A request whose answer was lost (the hub unreachable) is
 * sent again with the same key, twice at most; any answer of the hub (a 422 naming a field, a
 * 403) is thrown as the ApiError it is.
 */
export async function ask(method, path, {body, query} = {}) {
  const headers = {"Idempotency-Key": actionKey()};
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await api.request(method, path, {body, query, headers});
    } catch (error) {
      if (error.status !== 0 || attempt >= 3) throw error;
      await sleep(400 * attempt);
    }
  }
}

/**
 * Follow a write until it ends: long-polls GET /api/v1/writes/{id}?wait=&known=, calling
 * changed(write) with each new state; resolves with the ended write, or null when signal aborts.
 * A hub that cannot be reached for a while is asked again every few seconds.
 */
export async function follow(write, signal, changed = () => {}) {
  let shown = write;
  while (OPEN.has(shown.status)) {
    if (signal.aborted) return null;
    const asked = Date.now();
    let next;
    try {
      next = await api.request("GET", `/api/v1/writes/${encodeURIComponent(shown.id)}`,
        {query: {wait: LONG_POLL_SECONDS, known: shown.status}, signal});
    } catch (error) {
      if (error.name === "AbortError" || signal.aborted) return null;
      await sleep(3000, signal);
      continue;
    }
    if (next.status !== shown.status) changed(next);
    // An answer at once with nothing new (no long-poll slot free) is not asked again at once.
    if (next.status === shown.status && Date.now() - asked < 1000) await sleep(1000, signal);
    shown = next;
  }
  return shown;
}

/** Ask the hub to queue a failed or conflicting write again (base: the values to compare with). */
export function retry(write, base) {
  return api.request("POST", `/api/v1/writes/${encodeURIComponent(write.id)}/retry`,
    {body: base ? {base} : {}});
}

const OPS = {
  comment: "Comment", edit_comment: "Comment edit", transition: "Transition", edit: "Edit",
  log_work: "Work log", create_issue: "New issue", link: "Link", remove_link: "Link removal",
  attach: "Attachment",
};

/** A write named as a person reads it: "Transition to Resolved", "Edit of Priority", … */
export function describe(write, names = {}) {
  const params = write.params || {};
  const op = OPS[write.op] || write.op;
  if (write.op === "transition") return `Transition to ${params.to}`;
  if (write.op === "edit") {
    const fields = Object.keys(params.fields || {}).map((f) => names[f] || f);
    return `Edit of ${fields.join(", ") || "fields"}`;
  }
  if (write.op === "attach") return `Attachment ${params.filename || ""}`.trim();
  if (write.op === "link") return `Link: ${params.type} ${params.outward || params.inward || ""}`.trim();
  return op;
}

/** A value as text, as a write's params or a conflict give it (a list joined, none as "none"). */
export function valueText(value) {
  if (value === null || value === undefined || value === "") return "none";
  if (Array.isArray(value)) return value.length ? value.map(valueText).join(", ") : "none";
  if (typeof value === "object") return value.name ?? value.value ?? JSON.stringify(value);
  return String(value);
}

/** A conflict's fields: {field: {base, jira}} (the hub's shape, or one nested under fields). */
export function conflictFields(write) {
  const conflict = write.conflict || {};
  return conflict.fields && typeof conflict.fields === "object" && !("base" in conflict.fields)
    ? conflict.fields : conflict;
}
