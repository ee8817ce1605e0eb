// The issue page's actions: the writes a token may make, drawn into the containers issue.js
// keeps across redraws (see docs/web.md, "Acting on issues"). Every write shows at once where
// it belongs, marked pending (before the hub has even answered), is followed by long-polls,
// and then shows as Jira's own value (the page is read again), as Jira's refusal in its words
// with Retry and Dismiss, or as a conflict with both values and "Keep mine" / "Take Jira's".
// A write no agent has taken yet can still be cancelled from where it shows.

import * as api from "./api.js";
import {h, person, replace} from "./dom.js";
import {memberOf} from "./write_inputs.js";
import {conflictFields, describe, follow, retry, valueText} from "./write_status.js";
import {mountAttach} from "./write_attach.js";
import {mountComment} from "./write_comment.js";
import {commentEdits} from "./write_comment_edit.js";
import {descriptionMark, mountDescription} from "./write_description.js";
import {mountFields} from "./write_fields.js";
import {mountLink} from "./write_link.js";
import {mountTransitions} from "./write_transition.js";
import {mountWorklog} from "./write_worklog.js";

/** The visible word of a write's status where it shows ("pending" while Jira does not have it yet). */
export function badge(status) {
  const word = status === "applying" || status === "pending" ? "pending" : status;
  return h("span", {class: `write-badge write-${status}`, title: status === "applying"
    ? "an agent is writing it to Jira" : null}, word);
}

/**
 * Mount the writes' controls on an issue page. ctx: {issue, may, containers, signal, reload}.
 * Returns {update(issue)}, called with every fresh read of the issue.
 */
export function mountWrites(ctx) {
  const {containers, signal} = ctx;
  const mayWrite = (ctx.may || []).includes("write");
  let issue = ctx.issue;
  const tracked = new Map();   // write id -> {write, mark}
  const finished = new Set();  // ids ended here: a read from before their end does not bring them back
  let inFlight = 0;            // requests sent whose write's id is not known yet
  const catalogues = api.request("GET", "/api/v1/catalogues", {signal}).catch(() => ({}));
  const notice = h("p", {class: "write-line write-notice"});

  const env = {
    get issue() { return issue; },
    get people() { return issue.people || {}; },
    catalogues,
    signal,
    act,
    badge,
    fieldName,
  };

  function fieldName(name) {
    for (const [fid, meta] of Object.entries(issue.edit_fields || {})) {
      if (memberOf(fid) === name || fid === name) return meta.name;
    }
    return issue.custom_fields?.[name]?.name || name;
  }

  // --- where each write shows -------------------------------------------------------------

  function shownValue(name, value) {
    const people = issue.people || {};
    if (name === "assignee" || name === "reporter" || people[value]) return person(value, people[value]);
    return valueText(value);
  }

  function fieldDd(name) {
    return containers.details?.querySelector(`div.field[data-field="${CSS.escape(name)}"] > dd`) || null;
  }

  // A mark in a dd that issue.js may draw anew on a live update: applied again by refresh().
  function ddMark(name, shown, tag, {keep = false} = {}) {
    let status = "pending", original = null, dd = null;
    const fallback = h("p", {class: "write-line"});
    const made = () => h("span", {class: "pending-value", "data-for": name},
      keep ? " " : null, status === "failed" || status === "conflict" ? null : shown(), " ", tag(status));
    function apply() {
      const here = fieldDd(name);
      if (!here) {
        // The field is not shown (empty): the mark goes in the writes region.
        replace(fallback, `${fieldName(name)}: `, shown(), " ", tag(status));
        if (!fallback.isConnected) containers.writes?.append(fallback);
        return;
      }
      fallback.remove();
      const mine = here.querySelector(`:scope > .pending-value[data-for="${CSS.escape(name)}"]`);
      if (here !== dd || !mine) {
        dd = here;
        original = [...here.childNodes].filter((n) => !(n.classList?.contains("pending-value")));
      }
      if (keep || status === "failed" || status === "conflict") replace(here, original, made());
      else replace(here, made());
      here.classList.add("pending");
    }
    return {
      state(next) { status = next; apply(); },
      refresh: apply,
      remove() {
        fallback.remove();
        const here = fieldDd(name);
        if (here && here === dd && here.querySelector(":scope > .pending-value")) replace(here, original);
        here?.classList.remove("pending");
      },
    };
  }

  // The summary in the title, pending: issue.js leaves the span alone while it is .editing.
  function summaryMark(value, tag) {
    const span = containers.summary;
    let status = "pending";
    const apply = () => {
      if (!span || span.classList.contains("editing")) return;
      const ended = status === "failed" || status === "conflict";
      replace(span, ended ? issue.summary || "(no summary)" : value, " ", tag(status));
    };
    return {
      state(next) { status = next; apply(); },
      refresh: apply,
      remove() { if (span && !span.classList.contains("editing")) replace(span, issue.summary || "(no summary)"); },
    };
  }

  // A mark appended to a container (a pending comment, work log, link, attachment).
  function boxMark(where, node, tag) {
    const slot = node.querySelector(".write-state") || node;
    return {
      state(status) {
        node.classList.toggle("pending", status === "pending" || status === "applying");
        node.classList.toggle("failed", status === "failed" || status === "conflict");
        replace(slot, tag(status));
        if (!node.isConnected) (where || containers.writes)?.append(node);
      },
      refresh() { if (!node.isConnected) (where || containers.writes)?.append(node); },
      remove() { node.remove(); },
    };
  }

  function who(write) {
    return write.requested_by ? write.requested_by : "You";
  }

  // A write's badge, with "Cancel" while no agent has taken it (ref.entry: the write once the hub answered).
  function tagger(ref) {
    return (status) => [badge(status), status === "pending" && ref.entry && mayWrite ? h("button", {type: "button",
      class: "write-cancel secondary", "aria-label": `Cancel: ${named(ref.entry.write)}`,
      onclick: (event) => cancel(ref.entry, event.currentTarget)}, "Cancel") : null];
  }

  function named(write) {
    return describe(write, new Proxy({}, {get: (_, name) => fieldName(memberOf(name))}));
  }

  /**
   * Where a write shows, by its operation and params: {state(status), refresh(), remove()};
   * ref.entry is set once the write is followed (its Cancel button needs it).
   */
  function markFor(write, ref = {}) {
    const params = write.params || {};
    const tag = tagger(ref);
    if (write.op === "comment") {
      return boxMark(containers.pendingComments, h("article", {class: "comment pending"},
        h("p", {class: "meta"}, who(write), " · ", h("span", {class: "write-state"})),
        h("div", {class: "comment-text"}, params.body || "")), tag);
    }
    if (write.op === "log_work") {
      return boxMark(containers.pendingWorklogs, h("p", {class: "worklog pending"},
        `${who(write)} logged ${valueText(params.time_spent)}`, params.comment ? ` — ${params.comment}` : "",
        " · ", h("span", {class: "write-state"})), tag);
    }
    if (write.op === "link") {
      return boxMark(containers.links, h("p", {class: "link pending"},
        `${params.type}: `, params.outward ? `this issue → ${params.outward}` : `${params.inward} → this issue`,
        " · ", h("span", {class: "write-state"})), tag);
    }
    if (write.op === "attach") {
      return boxMark(containers.attachments, h("p", {class: "attachment pending"},
        params.filename || "file", " · ", h("span", {class: "write-state"})), tag);
    }
    if (write.op === "edit_comment") return comments.mark(write, tag);
    if (write.op === "edit") {
      const marks = Object.entries(params.fields || {}).map(([name, value]) => {
        if (name === "summary") return summaryMark(value, tag);
        if (name === "description" && containers.description) return descriptionMark(containers, value, tag);
        return ddMark(memberOf(name), () => shownValue(memberOf(name), value), tag);
      });
      return {
        state: (status) => marks.forEach((m) => m.state(status)),
        refresh: () => marks.forEach((m) => m.refresh()),
        remove: () => marks.forEach((m) => m.remove()),
      };
    }
    if (write.op === "transition") {
      const mark = ddMark("status", () => `→ ${params.to}`, tag, {keep: true});
      return {
        state(status) { mark.state(status); transitions.busy(status === "pending" || status === "applying"); },
        refresh: () => mark.refresh(),
        remove() { mark.remove(); transitions.busy(false); },
      };
    }
    return boxMark(containers.writes, h("p", {class: "write-line"}, describe(write, {}), " · ",
      h("span", {class: "write-state"})), tag);
  }

  // --- following writes ----------------------------------------------------------------------

  /**
   * Make a write: mark is shown pending at once, then asking() sends it (write_status.ask). A
   * refusal of the hub (a 422 naming the field) takes the mark away and is thrown to the control,
   * which shows it beside itself; an accepted write is followed until it ends.
   */
  async function act(prospect, asking) {
    const ref = {};
    const mark = markFor(prospect, ref);
    mark.state("pending");
    inFlight += 1;
    let write;
    try {
      write = await asking();
    } catch (error) {
      mark.remove();
      throw error;
    } finally {
      inFlight -= 1;
    }
    watch(write, mark, ref);
    return write;
  }

  function watch(write, mark, ref) {
    const entry = {write, mark};
    ref.entry = entry;
    tracked.set(write.id, entry);
    mark.state(write.status);
    run(entry);
  }

  async function run(entry) {
    const ended = await follow(entry.write, signal, (write) => {
      if (entry.over) return;  // cancelled here meanwhile
      entry.write = write;
      entry.mark.state(write.status);
    });
    if (!ended || signal.aborted || entry.over) return;
    entry.write = ended;
    if (ended.status === "done") {
      entry.ending = true;  // Jira's value is drawn by the reload: no mark put back meanwhile
      try {
        await ctx.reload();
      } catch { /* the page says why; the mark goes all the same */ }
      end(entry);
    } else if (ended.status === "failed" || ended.status === "conflict") {
      entry.mark.state(ended.status);
      outcome(entry);
      // The agent sent the issue's state as Jira has it now: the page shows it beside the choice.
      if (ended.status === "conflict") ctx.reload().catch(() => {});
    } else {
      end(entry);
    }
  }

  function end(entry) {
    entry.over = true;
    entry.mark.remove();
    entry.panel?.remove();
    tracked.delete(entry.write.id);
    finished.add(entry.write.id);
  }

  /** Cancel a write no agent has taken yet; one taken meanwhile (409) is followed on. */
  async function cancel(entry, button) {
    const write = entry.write;
    const what = named(write);
    button.disabled = true;
    try {
      entry.write = await api.request("POST", `/api/v1/writes/${encodeURIComponent(write.id)}/cancel`, {signal});
    } catch (error) {
      if (error.name === "AbortError") return;
      if (error.status === 409) {
        say(`${what}: an agent took it meanwhile, so it can no longer be cancelled; it shows here as Jira answers.`);
        if (!entry.over && entry.write.status === "pending") entry.mark.state("applying");
      } else {
        button.disabled = false;
        say(`Could not cancel ${what}: ${error.message}`);
      }
      return;
    }
    end(entry);
    // A cancelled comment's text goes back to the comment box, if that is empty.
    const box = containers.comments?.querySelector("#comment-body");
    if (write.op === "comment" && box && !box.value) box.value = write.params?.body || "";
    say(`${what} cancelled: Jira never saw it.${write.op === "comment" && box?.value ? " Its text is back in the comment box." : ""}`);
  }

  function say(text) {
    replace(notice, text);
    if (!notice.isConnected) containers.writes?.append(notice);
  }

  async function again(entry, button, base) {
    button.disabled = true;
    try {
      entry.write = await retry(entry.write, base);
    } catch (error) {
      button.disabled = false;
      entry.panel?.querySelector(".outcome-status")?.replaceChildren(`Could not retry: ${error.message}`);
      return;
    }
    entry.panel?.remove();
    entry.panel = null;
    entry.mark.state(entry.write.status);
    run(entry);
  }

  /** A failure in Jira's words, or a conflict with both values, in the writes region. */
  function outcome(entry) {
    entry.panel?.remove();
    const write = entry.write;
    const what = describe(write, new Proxy({}, {get: (_, name) => fieldName(memberOf(name))}));
    const buttons = h("div", {class: "buttons"});
    let body;
    if (write.status === "failed") {
      body = [
        h("p", {}, h("strong", {}, `${what} failed. `), "Jira said: ", h("q", {class: "jira-words"}, write.error || "no reason given")),
        h("p", {class: "hint"}, "Fix what Jira names (here, or in Jira), then Retry; Dismiss to let it go."),
      ];
      if (mayWrite) buttons.append(h("button", {type: "button", onclick: (e) => again(entry, e.currentTarget)}, "Retry"));
      buttons.append(h("button", {type: "button", class: "secondary", onclick: () => end(entry)}, "Dismiss"));
    } else {
      const fields = conflictFields(write);
      const asked = write.params?.fields || (write.op === "transition" ? {status: write.params?.to} : {});
      body = [
        h("p", {}, h("strong", {}, `${what} was not written: `),
          "the issue changed in Jira since you read it. Choose which value to keep."),
        h("table", {class: "conflict-table"},
          h("thead", {}, h("tr", {}, ["Field", "You saw", "Jira has now", "You asked for"].map((t) => h("th", {scope: "col"}, t)))),
          h("tbody", {}, Object.entries(fields).map(([name, pair]) => h("tr", {},
            h("th", {scope: "row"}, fieldName(memberOf(name))),
            h("td", {class: "conflict-base"}, valueText(pair?.base)),
            h("td", {class: "conflict-jira"}, valueText(pair?.jira)),
            h("td", {class: "conflict-mine"}, valueText(asked[name]))))))];
      const jiras = Object.fromEntries(Object.entries(fields).map(([name, pair]) => [name, pair?.jira ?? null]));
      if (mayWrite) buttons.append(h("button", {type: "button", onclick: (e) => again(entry, e.currentTarget, jiras)}, "Keep mine"));
      buttons.append(h("button", {type: "button", class: "secondary", onclick: async () => {
        end(entry);
        try { await ctx.reload(); } catch { /* shown by the page */ }
      }}, "Take Jira's"));
    }
    entry.panel = h("div", {class: `write-outcome outcome-${write.status}`, "data-write-id": write.id, role: "group",
      "aria-label": `${what}: ${write.status}`}, body, buttons, h("p", {class: "outcome-status"}));
    containers.writes?.append(entry.panel);
  }

  // Writes the page did not make (another tab, another person, a reload): shown and followed too.
  function adopt(current) {
    if (inFlight > 0) return;  // one of ours may be among them, its id not known yet
    for (const write of current.pending_writes || []) {
      if (tracked.has(write.id) || finished.has(write.id)) continue;
      const ref = {};
      watch(write, markFor(write, ref), ref);
    }
  }

  // --- the controls ----------------------------------------------------------------------------

  const none = {update() {}, busy() {}};
  const comments = commentEdits(containers, env, mayWrite);
  const transitions = mayWrite ? mountTransitions(containers, env) : none;
  const parts = mayWrite ? [
    transitions,
    mountFields(containers, env),
    mountComment(containers, env),
    mountWorklog(containers, env),
    mountLink(containers, env),
    mountAttach(containers, env),
    mountDescription(containers, env),
    comments,
  ] : [];
  adopt(issue);

  return {
    update(fresh) {
      issue = fresh;
      for (const part of parts) part.update(fresh);
      for (const entry of tracked.values()) if (!entry.ending) entry.mark.refresh();
      adopt(fresh);
    },
  };
}
