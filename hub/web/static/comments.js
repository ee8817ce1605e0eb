// An issue's comments, oldest first, a page at a time: the issue page shows the first page
// it read with the issue, and "Show more comments" reads the next by the API's cursor. A
// page's texts share the hub's budget for rendering one answer, so an issue with hundreds
// of long comments costs each page that budget at most.

import * as api from "./api.js";
import {h, say, status, time} from "./dom.js";
import {wikiBlock} from "./rendered.js";

export const PAGE_SIZE = 50;

/** The first page's query (GET …/comments), read beside the issue. */
export const FIRST_PAGE = {limit: PAGE_SIZE, render: "html"};

/** Who wrote an item (a comment, a change): the display name and the login, or the login alone. */
export function who(item) {
  if (!item.author) return "unknown";
  return item.author_display && item.author_display !== item.author
    ? `${item.author_display} (${item.author})` : item.author;
}

function entry(comment, signal) {
  return h("li", {},
    h("p", {class: "meta"}, who(comment), " · ", time(comment.created_at || comment.created)),
    wikiBlock(comment.body_html, {}, signal));
}

/** The comments panel: ``first`` is the first page (FIRST_PAGE) as the hub answered it. */
export function commentsPanel(key, first, signal) {
  if (!first.items.length) return h("p", {class: "empty"}, "No comments.");
  const path = `/api/v1/issues/${encodeURIComponent(key)}/comments`;
  const list = h("ol", {class: "comments", id: "comments"});
  const count = h("p", {class: "comment-count", id: "comment-count"});
  const more = h("button", {type: "button", class: "secondary", id: "more-comments", hidden: true},
    "Show more comments");
  const line = status();
  const total = first.total ?? first.items.length;
  let cursor = null;

  function show(page) {
    list.append(...page.items.map((comment) => entry(comment, signal)));
    cursor = page.next_cursor ?? null;
    count.textContent = `${total} comment${total === 1 ? "" : "s"}`
      + (cursor === null ? "." : `, ${list.children.length} shown.`);
    more.hidden = cursor === null;
    more.disabled = false;
  }

  more.addEventListener("click", async () => {
    more.disabled = true;
    say(line, "");
    let page;
    try {
      page = await api.request("GET", path, {query: {...FIRST_PAGE, cursor}, signal});
    } catch (error) {
      if (error.name === "AbortError") return;
      say(line, `Could not read more comments: ${error.message}`, true);
      more.disabled = false;
      return;
    }
    show(page);
  });
  show(first);
  return h("div", {}, count, list, more, line);
}
