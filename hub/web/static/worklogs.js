// An issue's worklogs: who logged how much and when, with the total for the
// whole issue, paged by the API's cursor ("Show more worklogs").

import * as api from "./api.js";
import {h, replace, say, scrolling, status, time} from "./dom.js";
import {jiraDuration} from "./fields.js";
import {wikiBlock} from "./rendered.js";

const PAGE_SIZE = 50;

export function worklogsPanel(key, signal) {
  const path = `/api/v1/issues/${encodeURIComponent(key)}/worklogs`;
  const total = h("p", {class: "worklog-total", id: "worklog-total"});
  const body = h("tbody", {});
  const tableBox = scrolling(h("table", {},
    h("thead", {}, h("tr", {}, ["Author", "Started", "Time spent", "Comment"].map(
      (name) => h("th", {scope: "col"}, name)))), body), {hidden: true});
  const more = h("button", {type: "button", class: "secondary", hidden: true}, "Show more worklogs");
  const line = status();
  let cursor = null;

  async function load() {
    more.disabled = true;
    let page;
    try {
      page = await api.request("GET", path, {query: {limit: PAGE_SIZE, cursor, render: "html"}, signal});
    } catch (error) {
      if (error.name === "AbortError") return;
      say(line, `Could not read the worklogs: ${error.message}`, true);
      return;
    }
    if (cursor === null) {
      const count = page.total ?? page.items.length;
      total.textContent = count
        ? `${count} worklog${count === 1 ? "" : "s"}, ${jiraDuration(page.time_spent)} logged in all.`
        : "No work logged.";
    }
    body.append(...page.items.map((log) => h("tr", {},
      h("td", {}, log.author_display && log.author_display !== log.author
        ? `${log.author_display} (${log.author})` : log.author || "—"),
      h("td", {}, time(log.started_at || log.started)),
      h("td", {}, jiraDuration(log.time_spent)),
      h("td", {}, log.comment ? wikiBlock(log.comment_html, {}, signal) : "—"))));
    tableBox.hidden = body.children.length === 0;
    cursor = page.next_cursor ?? null;
    more.hidden = cursor === null;
    more.disabled = false;
  }

  more.addEventListener("click", load);
  // An older hub keeps no worklogs: asked only when /openapi.json lists them.
  api.offers("/api/v1/issues/{key}/worklogs").then((offered) => {
    if (offered) load();
    else say(line, "This hub keeps no worklogs.");
  }, (error) => say(line, `Could not read the worklogs: ${error.message}`, true));
  return replace(h("div", {}), total, tableBox, more, line);
}
