// A new issue, made in Jira through a write, from the create screens the mirror knows
// (GET /api/v1/create-meta): the project and the issue type choose the screen, whose fields
// are drawn with their controls (required ones marked); "Create" sends POST /api/v1/issues,
// and the write is followed until Jira has made the issue, then the page links to it.

import * as api from "./api.js";
import {h, issueLink, replace, say, status} from "./dom.js";
import {editable, labelledControl, memberOf} from "./write_inputs.js";
import {ask, follow} from "./write_status.js";

// Fields the form has of its own, or that Jira fills (the reporter is the one who creates).
const OWN = new Set(["project", "issuetype", "summary", "description", "reporter", "parent"]);

/** Show the navigation's "New issue" only to a token that may write (may: GET /api/v1/me's). */
export function showCreateLink(may) {
  const link = document.getElementById("nav-create");
  if (link) link.hidden = !(may || []).includes("write");
}

/** Draw the new-issue page. */
export async function renderCreate(main, signal) {
  replace(main, h("h1", {}, "New issue"), h("p", {class: "status", role: "status"}, "Reading the create screens…"));
  const [who, meta, catalogues] = await Promise.all([
    api.me(),
    api.request("GET", "/api/v1/create-meta", {signal}),
    api.request("GET", "/api/v1/catalogues", {signal}).catch(() => ({})),
  ]);
  if (signal.aborted) return;
  if (!(who?.may || []).includes("write")) {
    replace(main, h("h1", {}, "New issue"), h("p", {class: "status error"},
      "This token may not write to Jira; an admin grants it: hub token add NAME --role interface --write."));
    return;
  }
  const screens = meta.items || [];
  if (!screens.length) {
    replace(main, h("h1", {}, "New issue"), h("p", {class: "empty"},
      "The mirror knows no create screens yet: they come with the agent's next full refresh."));
    return;
  }
  const subtaskTypes = new Set((catalogues.issue_types || []).filter((t) => t.subtask).map((t) => t.name));
  const projects = [...new Set(screens.map((s) => s.project))];

  const project = h("select", {id: "create-project"}, projects.map((p) => h("option", {value: p}, p)));
  const type = h("select", {id: "create-type"});
  const summary = h("input", {id: "create-summary", type: "text", required: true, maxlength: 255, autocomplete: "off"});
  const description = h("textarea", {id: "create-description", rows: 6});
  const parentBox = h("div", {class: "form-field", hidden: true},
    h("label", {for: "create-parent"}, "Parent issue", h("span", {class: "required"}, " (required)")),
    h("input", {id: "create-parent", type: "text", autocomplete: "off", placeholder: "AURORA-12"}));
  const fieldsBox = h("div", {class: "screen-fields"});
  const line = status();
  const outcome = h("div", {class: "create-outcome", "aria-live": "polite"});
  const submit = h("button", {type: "submit"}, "Create");
  const form = h("form", {class: "write-form create-form", id: "create-form"},
    h("div", {class: "form-row"},
      h("div", {class: "form-field"}, h("label", {for: "create-project"}, "Project"), project),
      h("div", {class: "form-field"}, h("label", {for: "create-type"}, "Issue type"), type)),
    h("div", {class: "form-field"},
      h("label", {for: "create-summary"}, "Summary", h("span", {class: "required"}, " (required)")), summary),
    parentBox,
    h("div", {class: "form-field"}, h("label", {for: "create-description"}, "Description"), description,
      h("p", {class: "hint"}, "Jira's wiki markup: *bold*, _italic_, {{code}}, [text|address].")),
    fieldsBox,
    h("div", {class: "buttons"}, submit), line);
  let controls = [];

  function screen() {
    return screens.find((s) => s.project === project.value && s.issue_type === type.value);
  }
  function types() {
    const kept = type.value;
    replace(type, screens.filter((s) => s.project === project.value)
      .map((s) => h("option", {value: s.issue_type, selected: s.issue_type === kept}, s.issue_type)));
    fields();
  }
  function fields() {
    const chosen = screen();
    parentBox.hidden = !subtaskTypes.has(type.value);
    controls = Object.entries(chosen?.fields || {})
      .filter(([fid, m]) => !OWN.has(fid) && editable(fid, m))
      // Required fields first, each group in the screen's order.
      .sort(([, a], [, b]) => Number(Boolean(b.required)) - Number(Boolean(a.required)))
      .map(([fid, m]) => [fid, m, labelledControl(fid, m, null, {people: {}, catalogues})]);
    replace(fieldsBox, controls.length ? h("h2", {}, "Fields of this screen") : null, controls.map(([, , made]) => made.box));
  }
  project.addEventListener("change", types);
  type.addEventListener("change", fields);
  types();

  function focusField(name) {
    const named = String(name || "").replace(/^fields\./, "");
    const own = {summary, description, project, issue_type: type, parent: parentBox.querySelector("input")}[named];
    const hit = controls.find(([fid]) => fid === named || memberOf(fid) === named);
    (own || hit?.[2].focus || summary).focus();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {project: project.value, issue_type: type.value, summary: summary.value.trim()};
    if (!body.summary) { say(line, "A summary is required.", true); summary.focus(); return; }
    if (description.value.trim()) body.description = description.value;
    if (!parentBox.hidden) {
      body.parent = parentBox.querySelector("input").value.trim().toUpperCase();
      if (!body.parent) { say(line, "A sub-task needs its parent issue.", true); focusField("parent"); return; }
    }
    const values = {};
    for (const [fid, m, made] of controls) {
      const value = made.value();
      const empty = value === null || (Array.isArray(value) && !value.length);
      if (empty && m.required) { say(line, `${m.name} is required.`, true); made.focus.focus(); return; }
      if (!empty) values[memberOf(fid)] = value;
    }
    if (Object.keys(values).length) body.fields = values;
    submit.disabled = true;
    const pending = h("p", {class: "write-line pending"}, `${body.issue_type} "${body.summary}" in ${body.project} · `,
      h("span", {class: "write-badge write-pending"}, "pending"));
    replace(outcome, pending);
    say(line, "");
    let write;
    try {
      write = await ask("POST", "/api/v1/issues", {body});
    } catch (error) {
      submit.disabled = false;
      replace(outcome);
      say(line, `Not sent: ${error.description || error.message}`, true);
      focusField(error.body?.field);
      return;
    }
    await settle(write, pending);
  });

  // Follow the write to its end: the new key (a link to it), or Jira's refusal with Retry.
  async function settle(write, pending) {
    const ended = await follow(write, signal, (shown) => {
      pending.querySelector(".write-badge").textContent = shown.status === "applying" ? "pending (in Jira's hands)" : "pending";
    });
    if (!ended) return;
    submit.disabled = false;
    if (ended.status === "done" && ended.result?.key) {
      summary.value = "";
      description.value = "";
      fields();
      replace(outcome, h("p", {class: "created", role: "status"}, "Created ", issueLink(ended.result.key), ` — ${ended.params?.summary || ""}`));
      outcome.querySelector("a").focus();
      return;
    }
    const retry = h("button", {type: "button", onclick: async () => {
      retry.disabled = true;
      let again;
      try {
        again = await api.request("POST", `/api/v1/writes/${encodeURIComponent(ended.id)}/retry`, {body: {}});
      } catch (error) {
        retry.disabled = false;
        say(line, `Could not retry: ${error.message}`, true);
        return;
      }
      const shown = h("p", {class: "write-line pending"}, "Creating again · ", h("span", {class: "write-badge write-pending"}, "pending"));
      replace(outcome, shown);
      submit.disabled = true;
      settle(again, shown);
    }}, "Retry");
    replace(outcome, h("div", {class: "write-outcome outcome-failed", role: "group", "aria-label": "New issue: failed"},
      h("p", {}, h("strong", {}, "Jira did not create it. "), "Jira said: ",
        h("q", {class: "jira-words"}, ended.error || ended.status)),
      h("p", {class: "hint"}, "Fix what Jira names in the form and create again, or Retry once fixed in Jira."),
      h("div", {class: "buttons"}, retry,
        h("button", {type: "button", class: "secondary", onclick: () => replace(outcome)}, "Dismiss"))));
  }

  replace(main, h("h1", {}, "New issue"),
    h("p", {class: "meta"}, "Made in Jira through the hub's agent, from the create screens the mirror knows."),
    form, outcome);
  summary.focus();
}
