// "Log work": time spent in Jira's form ("1h 30m"), when it started, a comment →
// POST /api/v1/issues/{key}/worklogs; the work log shows pending among the work logs.

import {h, say, status} from "./dom.js";
import {reveal} from "./write_reveal.js";
import {ask} from "./write_status.js";

// Now, as an <input type=datetime-local> writes it in the reader's zone.
function localNow() {
  const now = new Date();
  return new Date(now.getTime() - now.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}

/** Mount the form in containers.worklogs and its button in containers.actions; {update()}. */
export function mountWorklog(containers, env) {
  const box = containers.worklogs;
  if (!box) return {update() {}};
  const spent = h("input", {id: "worklog-spent", type: "text", required: true, placeholder: "1h 30m",
    autocomplete: "off", "aria-describedby": "worklog-hint"});
  const started = h("input", {id: "worklog-started", type: "datetime-local", value: localNow()});
  const comment = h("textarea", {id: "worklog-comment", rows: 2});
  const line = status();
  const form = h("form", {id: "worklog-form", class: "write-form worklog-form", hidden: true},
    h("h3", {}, "Log work"),
    h("div", {class: "form-row"},
      h("div", {class: "form-field"}, h("label", {for: "worklog-spent"}, "Time spent (required)"), spent,
        h("p", {class: "hint", id: "worklog-hint"}, "As Jira writes it: 2d 4h 30m, 1.5h, 45m.")),
      h("div", {class: "form-field"}, h("label", {for: "worklog-started"}, "Started"), started)),
    h("div", {class: "form-field"}, h("label", {for: "worklog-comment"}, "Comment"), comment),
    h("div", {class: "buttons"}, h("button", {type: "submit"}, "Log work"),
      h("button", {type: "button", class: "secondary", onclick: () => { form.hidden = true; opener.focus(); }}, "Close")),
    line);
  const opener = h("button", {type: "button", class: "secondary", id: "log-work", "aria-controls": "worklog-form",
    onclick: open}, "Log work");

  function open() {
    form.hidden = false;
    if (!started.value) started.value = localNow();
    reveal(form);
    spent.focus();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {time_spent: spent.value.trim()};
    if (!body.time_spent) { say(line, "Give the time spent, like 1h 30m.", true); spent.focus(); return; }
    if (started.value) body.started = new Date(started.value).toISOString();
    if (comment.value.trim()) body.comment = comment.value;
    const kept = [spent.value, comment.value];
    spent.value = "";
    comment.value = "";
    say(line, "");
    try {
      await env.act({op: "log_work", params: body},
        () => ask("POST", `/api/v1/issues/${encodeURIComponent(env.issue.key)}/worklogs`, {body}));
      say(line, "Work log sent; it shows pending until Jira has it.");
    } catch (error) {
      [spent.value, comment.value] = kept;
      say(line, `Not sent: ${error.description || error.message}`, true);
      (String(error.body?.field || "").startsWith("started") ? started : spent).focus();
    }
  });

  box.append(form);
  containers.actions?.append(h("div", {class: "write-actions"}, opener));
  return {update() {}};
}
