// Jira's wiki text as the hub rendered it (GET …?render=html, hub/services/markup.py):
// HTML that the hub has already cut down to an allow-list. The page trusts no markup it
// did not build itself, so it reads that HTML inert (DOMParser: no script runs, no image
// loads) and builds it again with h() from the same allow-list: an element it does not
// name is dropped (its text kept), an attribute it does not name is never set, and a URL
// is kept only if it is http(s), mailto or the hub's own attachment content.
//
// An image the text shows whose attachment the hub does not hold yet comes as a
// placeholder carrying the attachment's id: here it becomes a Fetch button that asks the
// hub for it and shows the image once the agent has fetched it (telling the page, by the
// ATTACHMENT_READY event, so that its attachments table shows the file ready).

import * as api from "./api.js";
import {h, say, scrolling, sleep, status} from "./dom.js";

const TAGS = new Set(["p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "sup", "sub",
  "code", "pre", "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "a", "img", "span"]);
const ATTRIBUTES = {a: ["href", "title"], img: ["src", "alt"], ol: ["start"], span: ["class"], code: ["class"],
  p: ["class"]};
const CLASSES = /^(underline|citation|mention|attachment-file|plain|jira-color-[a-z]+|language-[A-Za-z0-9#+_-]+)$/;
const URLS = /^(https?:\/\/|mailto:|\/api\/v1\/attachments\/[1-9][0-9]{0,17}\/content$)/i;
const LONG_POLL_SECONDS = 20;

/** The event an inline image's element sends (bubbling) once its attachment is fetched: detail {id}. */
export const ATTACHMENT_READY = "attachment-ready";

/** The path of an attachment's content (an <img> sends the session cookie, not a token). */
export function contentPath(id) {
  return `/api/v1/attachments/${encodeURIComponent(id)}/content`;
}

/** The nodes of the hub's rendered HTML, built again from the allow-list. */
export function renderedNodes(html, signal) {
  const body = new DOMParser().parseFromString(String(html || ""), "text/html").body;
  return [...body.childNodes].flatMap((node) => rebuilt(node, signal));
}

/** A block of rendered wiki text: a div.wiki holding the hub's HTML. */
export function wikiBlock(html, attrs = {}, signal = undefined) {
  return h("div", {class: "wiki", ...attrs}, renderedNodes(html, signal));
}

function rebuilt(node, signal) {
  if (node.nodeType === Node.TEXT_NODE) return [document.createTextNode(node.data)];
  if (node.nodeType !== Node.ELEMENT_NODE) return [];
  const tag = node.localName;
  if (tag === "span" && node.classList.contains("attachment-missing")) {
    return [fetchButton(node.getAttribute("data-attachment-id"), node.textContent, signal)];
  }
  const children = [...node.childNodes].flatMap((child) => rebuilt(child, signal));
  if (!TAGS.has(tag)) return children;
  const attrs = {};
  for (const name of ATTRIBUTES[tag] || []) {
    const value = node.getAttribute(name);
    if (value === null) continue;
    if ((name === "href" || name === "src") && !URLS.test(value)) continue;
    if (name === "class") {
      const kept = value.split(/\s+/).filter((one) => CLASSES.test(one)).join(" ");
      if (kept) attrs.class = kept;
      continue;
    }
    attrs[name] = value;
  }
  if (tag === "a" && attrs.href) attrs.rel = "noopener noreferrer nofollow";
  // A table wider than its column scrolls in a box of its own, which the keyboard reaches.
  if (tag === "table") return [scrolling(h(tag, attrs, children))];
  return [h(tag, attrs, children)];
}

/** An image not yet in the hub's store: its name and a button that fetches it, then the image. */
function fetchButton(id, name, signal) {
  const note = status();
  const holder = h("span", {class: "attachment-missing", "data-attachment-id": id});
  const button = h("button", {type: "button", class: "secondary", onclick: fetchIt}, `Fetch ${name}`);
  holder.append(h("span", {class: "attachment-name"}, name), " ", button, note);

  async function fetchIt() {
    button.disabled = true;
    say(note, "Asking the hub…");
    try {
      let state = await api.request("POST", `/api/v1/attachments/${encodeURIComponent(id)}/fetch`, {signal});
      while (state.state === "fetching") {
        say(note, "The agent is fetching it…");
        const asked = Date.now();
        state = await api.request("GET", `/api/v1/attachments/${encodeURIComponent(id)}`,
          {query: {wait: LONG_POLL_SECONDS, known: "fetching"}, signal});
        // An answer at once with nothing new (no long-poll slot free) is not asked again at once.
        if (state.state === "fetching" && Date.now() - asked < 1000) await sleep(1000, signal);
      }
      if (state.state === "ready") {
        const image = h("img", {src: contentPath(id), alt: name});
        holder.replaceWith(image);
        // The page's attachments table (attachments.js) shows the file ready too, without a reload.
        image.dispatchEvent(new CustomEvent(ATTACHMENT_READY, {bubbles: true, detail: {id}}));
        return;
      }
      say(note, state.state === "failed" ? `Could not fetch it: ${state.error || "the agent failed"}.`
        : "Not fetched.", true);
    } catch (error) {
      if (error.name === "AbortError") return;
      say(note, `Could not ask for it: ${error.message}`, true);
    }
    button.disabled = false;
  }

  return holder;
}
