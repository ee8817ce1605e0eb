// Attaching files: dropped on the attachments' drop zone (containers.attachments) or chosen
// with its file input, each sent as the raw body of POST /api/v1/issues/{key}/attachments?filename=.

import {h, say, status} from "./dom.js";
import {reveal} from "./write_reveal.js";
import {ask} from "./write_status.js";

/** Mount the drop zone and the file input in containers.attachments; {update()}. */
export function mountAttach(containers, env) {
  const zone = containers.attachments;
  if (!zone) return {update() {}};
  const input = h("input", {id: "attach-files", type: "file", multiple: true, class: "visually-hidden"});
  const line = status();
  const chooser = h("label", {for: "attach-files", class: "attach-choose"}, "Choose files");
  zone.classList.add("drop-zone");
  zone.append(h("div", {class: "attach-box"},
    h("p", {class: "attach-hint"}, "Drop files here to attach them in Jira, or ", chooser, "."), input, line));
  const opener = h("button", {type: "button", class: "secondary", id: "attach-open",
    onclick: () => { reveal(zone); input.click(); }}, "Attach");

  async function attach(files) {
    say(line, "");
    for (const file of files) {
      const key = env.issue.key;
      try {
        await env.act({op: "attach", params: {filename: file.name}},
          () => ask("POST", `/api/v1/issues/${encodeURIComponent(key)}/attachments`,
            {query: {filename: file.name}, body: file}));
        say(line, `${file.name} sent; it shows pending until Jira has it.`);
      } catch (error) {
        say(line, `${file.name} not sent: ${error.description || error.message}`, true);
        input.focus();
      }
    }
  }

  input.addEventListener("change", () => {
    const files = [...input.files];
    input.value = "";
    attach(files);
  });
  zone.addEventListener("dragover", (event) => {
    if (![...(event.dataTransfer?.types || [])].includes("Files")) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragleave", (event) => {
    if (!zone.contains(event.relatedTarget)) zone.classList.remove("dragging");
  });
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("dragging");
    const files = [...(event.dataTransfer?.files || [])];
    if (files.length) attach(files);
  });
  containers.actions?.append(h("div", {class: "write-actions"}, opener));
  return {update() {}};
}
