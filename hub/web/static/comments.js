// An issue's comments, oldest first, a page at a time: the issue page shows the first page
// it read with the issue, and "Show more comments" reads the next by the API's cursor. A
// page's texts share the hub's budget for rendering one answer, so an issue with hundreds
// of long comments costs each page that budget at most. Each comment is an
// <article class="comment" data-comment-id="ID">; the panel is drawn again in place when
// the issue page reads a new first page (a comment added in Jira, a write done).

import * as api from "./api.js";
import {h, person, replace, say, status, time} from "./dom.js";
import {wikiBlock} from "./rendered.js";

export const PAGE_SIZE = 50;

/** The first page's query (GET …/comments), read beside the issue. */
export const FIRST_PAGE = {limit: PAGE_SIZE, render: "html"};

/** Who wrote an item (a comment, a change): the display name, the login on hover. */
export function who(item) {
  if (!item.author) return "unknown";
  return person(item.author, item.author_display);
}

function entry(comment, signal) {
  const edited = comment.updated && comment.created && comment.updated !== comment.created;
  return h("li", {}, h("article", {class: "comment", "data-comment-id": comment.id},
    h("p", {class: "meta"}, h("span", {class: "author"}, who(comment)), " · ", time(comment.created_at || comment.created),
      edited ? [" · ", h("span", {class: "edited"}, "edited")] : null),
    wikiBlock(comment.body_html, {}, signal)));
}

/**
 * The comments panel: `first` is the first page (FIRST_PAGE) as the hub answered it.
 * Returns {node, update(first)}: update draws a newer first page in place (the pages read
 * after it by "Show more" are read again, so as many comments stay shown).
 */
export function commentsPanel(key, first, signal) {
  const path = `/api/v1/issues/${encodeURIComponent(key)}/comments`;
  const list = h("ol", {class: "comments", id: "comments"});
  const count = h("p", {class: "comment-count", id: "comment-count"});
  const more = h("button", {type: "button", class: "secondary", id: "more-comments", hidden: true},
    "Show more comments");
  const line = status();
  let total = 0;
  let cursor = null;
  let last = "";

  function show(page, fresh = false) {
    if (fresh) list.replaceChildren();
    list.append(...page.items.map((comment) => entry(comment, signal)));
    cursor = page.next_cursor ?? null;
    total = fresh ? page.total ?? page.items.length : total;
    count.textContent = !total ? "No comments yet." : `${total} comment${total === 1 ? "" : "s"}`
      + (cursor === null ? "." : `, ${list.children.length} shown.`);
    count.classList.toggle("empty", !total);
    more.hidden = cursor === null;
    more.disabled = false;
  }

  async function next() {
    return api.request("GET", path, {query: {...FIRST_PAGE, cursor}, signal});
  }

  more.addEventListener("click", async () => {
    more.disabled = true;
    say(line, "");
    try {
      show(await next());
    } catch (error) {
      if (error.name === "AbortError") return;
      say(line, `Could not read more comments: ${error.message}`, true);
      more.disabled = false;
    }
  });

  async function update(page) {
    const seen = JSON.stringify(page);
    if (seen === last) return false;
    last = seen;
    const wanted = list.children.length;
    show(page, true);
    // As many comments as were shown before stay shown (the reader was reading them).
    while (cursor !== null && list.children.length < wanted && !signal.aborted) show(await next());
    return true;
  }

  update(first);
  return {node: replace(h("div", {class: "comments-panel"}), count, list, more, line), update,
    count: () => total};
}
