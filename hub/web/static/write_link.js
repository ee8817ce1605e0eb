// "Link issue": a link type by either of its phrases ("blocks", "is blocked by", from the
// catalogues' link types) and the other issue's key → POST /api/v1/issues/{key}/links.

import {h, replace, say, status} from "./dom.js";
import {reveal} from "./write_reveal.js";
import {ask} from "./write_status.js";

/** Mount the form in containers.links and its button in containers.actions; {update()}. */
export function mountLink(containers, env) {
  const box = containers.links;
  if (!box) return {update() {}};
  const kind = h("select", {id: "link-type", required: true});
  const other = h("input", {id: "link-key", type: "text", required: true, autocomplete: "off",
    spellcheck: "false", placeholder: "AURORA-12", pattern: "[A-Za-z][A-Za-z0-9_]*-[0-9]+"});
  const line = status();
  const form = h("form", {id: "link-form", class: "write-form link-form", hidden: true},
    h("h3", {}, "Link issue"),
    h("div", {class: "form-row"},
      h("div", {class: "form-field"}, h("label", {for: "link-type"}, "This issue"), kind),
      h("div", {class: "form-field"}, h("label", {for: "link-key"}, "Issue key"), other)),
    h("div", {class: "buttons"}, h("button", {type: "submit"}, "Link"),
      h("button", {type: "button", class: "secondary", onclick: () => { form.hidden = true; opener.focus(); }}, "Close")),
    line);
  const opener = h("button", {type: "button", class: "secondary", id: "link-issue", "aria-controls": "link-form",
    onclick: () => { form.hidden = false; reveal(form); kind.focus(); }}, "Link");

  // Each type by both its phrases (one when they read alike: "relates to").
  env.catalogues.then((catalogues) => {
    const options = [];
    for (const type of catalogues.link_types || []) {
      options.push(h("option", {value: JSON.stringify({type: type.name, side: "outward"})}, type.outward || type.name));
      if (type.inward && type.inward !== type.outward) {
        options.push(h("option", {value: JSON.stringify({type: type.name, side: "inward"})}, type.inward));
      }
    }
    replace(kind, options.length ? options : h("option", {value: ""}, "No link types known"));
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!kind.value) return;
    const {type, side} = JSON.parse(kind.value);
    const target = other.value.trim().toUpperCase();
    if (!target) { say(line, "Give the other issue's key.", true); other.focus(); return; }
    const body = {type, [side]: target};
    other.value = "";
    say(line, "");
    try {
      await env.act({op: "link", params: {...body, type: kind.selectedOptions[0].textContent}},
        () => ask("POST", `/api/v1/issues/${encodeURIComponent(env.issue.key)}/links`, {body}));
      say(line, "Link sent; it shows pending until Jira has it.");
    } catch (error) {
      other.value = target;
      say(line, `Not sent: ${error.description || error.message}`, true);
      (String(error.body?.field || "") === "type" ? kind : other).focus();
    }
  });

  box.append(form);
  containers.actions?.append(h("div", {class: "write-actions"}, opener));
  return {update() {}};
}
