// An issue's worklogs: who logged how much and when, with the total for the
// whole issue, paged by the API's cursor ("Show more worklogs"); read again in
// place when the issue page finds the issue changed.

import * as api from "./api.js";
import {h, person, replace, say, scrolling, status, time} from "./dom.js";
import {jiraDuration} from "./fields.js";
import {wikiBlock} from "./rendered.js";

const PAGE_SIZE = 50;

/** The worklogs panel: {node, reload()}; reload reads the first page again and draws it
 *  when it differs (a promise of whether it did), onCount(n) is told the total. */
export function worklogsPanel(key, signal, onCount = () => {}) {
  const path = `/api/v1/issues/${encodeURIComponent(key)}/worklogs`;
  const total = h("p", {class: "worklog-total", id: "worklog-total"});
  const body = h("tbody", {});
  const tableBox = scrolling(h("table", {},
    h("thead", {}, h("tr", {}, ["Author", "Started", "Time spent", "Comment"].map(
      (name) => h("th", {scope: "col"}, name)))), body), {hidden: true});
  const more = h("button", {type: "button", class: "secondary", hidden: true}, "Show more worklogs");
  const line = status();
  let cursor = null;
  let last = "";
  const offered = api.offers("/api/v1/issues/{key}/worklogs");

  function row(log) {
    return h("tr", {},
      h("td", {}, log.author ? person(log.author, log.author_display) : "—"),
      h("td", {}, time(log.started_at || log.started)),
      h("td", {}, jiraDuration(log.time_spent)),
      h("td", {}, log.comment ? wikiBlock(log.comment_html, {}, signal) : "—"));
  }

  async function read(from) {
    more.disabled = true;
    try {
      return await api.request("GET", path, {query: {limit: PAGE_SIZE, cursor: from, render: "html"}, signal});
    } catch (error) {
      if (error.name !== "AbortError") say(line, `Could not read the worklogs: ${error.message}`, true);
      return null;
    } finally {
      more.disabled = false;
    }
  }

  function show(page, fresh) {
    if (fresh) {
      const count = page.total ?? page.items.length;
      total.textContent = count
        ? `${count} worklog${count === 1 ? "" : "s"}, ${jiraDuration(page.time_spent)} logged in all.`
        : "No work logged.";
      total.classList.toggle("empty", !count);
      onCount(count);
      body.replaceChildren();
    }
    body.append(...page.items.map(row));
    tableBox.hidden = body.children.length === 0;
    cursor = page.next_cursor ?? null;
    more.hidden = cursor === null;
  }

  more.addEventListener("click", async () => {
    const page = await read(cursor);
    if (page) show(page, false);
  });

  async function reload() {
    // An older hub keeps no worklogs: asked only when /openapi.json lists them.
    let has;
    try {
      has = await offered;
    } catch (error) {
      say(line, `Could not read the worklogs: ${error.message}`, true);
      return false;
    }
    if (!has) {
      say(line, "This hub keeps no worklogs.");
      return false;
    }
    const page = await read(null);
    if (!page) return false;
    const seen = JSON.stringify(page);
    if (seen === last) return false;
    last = seen;
    show(page, true);
    say(line, "");
    return true;
  }

  reload();
  return {node: replace(h("div", {}), total, tableBox, more, line), reload};
}
