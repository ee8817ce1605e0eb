// Jira wiki markup as readable text. The result is built of elements whose
// content is set as text: markup in the description (HTML or script included)
// shows as the characters it is, and never becomes part of the page.

import {h} from "./dom.js";

const HEADING = /^h([1-6])\.\s*(.*)$/;
const ITEM = /^\s*([*#-]+)\s+(.*)$/;
const BLOCK = /^\{(code|noformat|quote)(?::[^}]*)?\}(.*)$/;

/** Inline markup made plain: [text|url] -> "text (url)", {{mono}} -> mono, *bold* -> bold. */
export function plain(line) {
  return line
    .replace(/\[([^|\]]+)\|([^\]]+)\]/g, "$1 ($2)")
    .replace(/\[(https?:[^\]\s]+|~[^\]\s]+)\]/g, "$1")
    .replace(/\{\{(.+?)\}\}/g, "$1")
    .replace(/\{color(?::[^}]*)?\}/g, "")
    .replace(/!([^!\s|]+)(?:\|[^!]*)?!/g, "[image: $1]")
    .replace(/(^|[\s(])\*(\S(?:[^*]*\S)?)\*(?=$|[\s).,:;!?])/g, "$1$2");
}

/** The description as a fragment of headings, lists, blocks and paragraphs. */
export function wikiToNodes(text) {
  const fragment = document.createDocumentFragment();
  const lines = String(text).split(/\r?\n/);
  let paragraph = [];
  let list = null;
  const flush = () => {
    if (paragraph.length) fragment.append(h("p", {}, paragraph.join("\n")));
    paragraph = [];
    list = null;
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const block = line.match(BLOCK);
    if (block) {
      flush();
      const end = `{${block[1]}}`;
      const body = block[2] ? [block[2]] : [];
      for (i += 1; i < lines.length && !lines[i].startsWith(end); i += 1) body.push(lines[i]);
      fragment.append(block[1] === "quote" ? h("blockquote", {}, body.join("\n"))
                                            : h("pre", {}, body.join("\n")));
      continue;
    }
    const heading = line.match(HEADING);
    if (heading) {
      flush();
      fragment.append(h(`h${Math.min(6, Number(heading[1]) + 2)}`, {}, plain(heading[2])));
      continue;
    }
    const item = line.match(ITEM);
    if (item && !/^\s*-{4,}\s*$/.test(line)) {
      if (paragraph.length) { fragment.append(h("p", {}, paragraph.join("\n"))); paragraph = []; }
      const ordered = item[1].endsWith("#");
      if (!list || list.ordered !== ordered) {
        list = {ordered, node: h(ordered ? "ol" : "ul")};
        fragment.append(list.node);
      }
      list.node.append(h("li", {}, plain(item[2])));
      continue;
    }
    if (!line.trim()) { flush(); continue; }
    list = null;
    paragraph.push(plain(line));
  }
  flush();
  return fragment;
}
