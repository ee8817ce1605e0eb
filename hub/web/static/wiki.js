// Jira wiki markup as readable text. The result is built of elements whose
// content is set as text: markup in the description (HTML or script included)
// shows as the characters it is, and never becomes part of the page.
//
// Anyone who can comment in Jira chooses this text, so nothing here may take
// more than linear time in it: a backtracking regular expression over `{{` or
// `[~` repeated 16,000 times froze the page for seconds. Each kind of inline
// markup is one left-to-right pass that finds its closing delimiter in a table
// of "next position of" built once (so a missing delimiter is never searched
// for again from every opening one), and the line patterns are read by hand.
// The passes do exactly what the regular expressions beside each one in the
// comments did, in the same order, so well-formed markup reads as before.

import {h} from "./dom.js";

/** Jira's default limit for a text field; longer text is shown as plain text. */
export const MARKUP_LIMIT = 32767;

const BLOCK = /^\{(code|noformat|quote)(?::[^}]*)?\}(.*)$/;  // anchored, one way to match: linear
const RULE = /^\s*-{4,}\s*$/;  // anchored, disjoint classes: linear
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;  // what `.` does not match

const BANG = 0x21, LEFT_PAREN = 0x28, STAR = 0x2a, COLON = 0x3a, CLOSE_BRACKET = 0x5d, TILDE = 0x7e, PIPE = 0x7c,
  CLOSE_BRACE = 0x7d;

/** Whether the UTF-16 unit c is one that a regular expression's \s matches. */
function isSpace(c) {
  return (c >= 0x09 && c <= 0x0d) || c === 0x20 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a)
    || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** For each position of text, the first position at or after it whose unit passes test, or -1. */
function nextWhere(text, test) {
  const next = new Int32Array(text.length + 1);
  next[text.length] = -1;
  for (let i = text.length - 1; i >= 0; i -= 1) next[i] = test(text.charCodeAt(i), i) ? i : next[i + 1];
  return next;
}

/**
 * One pass of text: at each occurrence of opening, match(i) answers [end, replacement]
 * for a match of text[i, end) or null, as a global replace would; matches never overlap.
 */
function pass(text, opening, match) {
  const out = [];
  let copied = 0;
  for (let i = text.indexOf(opening); i >= 0; i = text.indexOf(opening, i)) {
    const found = match(i);
    if (found) {
      out.push(text.slice(copied, i), found[1]);
      copied = i = found[0];
    } else {
      i += 1;
    }
  }
  out.push(text.slice(copied));
  return out.join("");
}

/** /\[([^|\]]+)\|([^\]]+)\]/g -> "$1 ($2)": [text|url]. */
function titledLinks(text) {
  const stop = nextWhere(text, (c) => c === PIPE || c === CLOSE_BRACKET);
  const close = nextWhere(text, (c) => c === CLOSE_BRACKET);
  return pass(text, "[", (i) => {
    const bar = stop[i + 1];
    if (bar <= i + 1 || text.charCodeAt(bar) !== PIPE) return null;
    const end = close[bar + 1];
    return end > bar + 1 ? [end + 1, `${text.slice(i + 1, bar)} (${text.slice(bar + 1, end)})`] : null;
  });
}

/** /\[(https?:[^\]\s]+|~[^\]\s]+)\]/g -> "$1": a bare link in brackets, [~user]. */
function bareLinks(text) {
  const stop = nextWhere(text, (c) => c === CLOSE_BRACKET || isSpace(c));
  return pass(text, "[", (i) => {
    let body = -1;
    if (text.startsWith("https:", i + 1)) body = i + 7;
    else if (text.startsWith("http:", i + 1)) body = i + 6;
    else if (text.charCodeAt(i + 1) === TILDE) body = i + 2;
    if (body < 0) return null;
    const end = stop[body];
    return end > body && text.charCodeAt(end) === CLOSE_BRACKET ? [end + 1, text.slice(i + 1, end)] : null;
  });
}

/** /\{\{(.+?)\}\}/g -> "$1": {{monospace}}, on one line, up to the first }} after a character. */
function monospace(text) {
  const close = nextWhere(text, (c, i) => c === CLOSE_BRACE && text.charCodeAt(i + 1) === CLOSE_BRACE);
  const newline = nextWhere(text, (c) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029);
  return pass(text, "{{", (i) => {
    const end = i + 3 <= text.length ? close[i + 3] : -1;
    if (end < 0) return null;
    const terminator = newline[i + 2];
    return terminator < 0 || terminator >= end ? [end + 2, text.slice(i + 2, end)] : null;
  });
}

/** /\{color(?::[^}]*)?\}/g -> "": {color}, {color:red}. */
function colors(text) {
  const close = nextWhere(text, (c) => c === CLOSE_BRACE);
  return pass(text, "{color", (i) => {
    const after = i + 6;
    const c = text.charCodeAt(after);
    const end = c === CLOSE_BRACE ? after : c === COLON ? close[after + 1] : -1;
    return end >= 0 ? [end + 1, ""] : null;
  });
}

/** /!([^!\s|]+)(?:\|[^!]*)?!/g -> "[image: $1]": !name.png!, !name.png|thumbnail!. */
function images(text) {
  const stop = nextWhere(text, (c) => c === BANG || c === PIPE || isSpace(c));
  const bang = nextWhere(text, (c) => c === BANG);
  return pass(text, "!", (i) => {
    const name = stop[i + 1];
    if (name <= i + 1) return null;
    const c = text.charCodeAt(name);
    const end = c === BANG ? name : c === PIPE ? bang[name + 1] : -1;
    return end >= 0 ? [end + 1, `[image: ${text.slice(i + 1, name)}]`] : null;
  });
}

/** /(^|[\s(])\*(\S(?:[^*]*\S)?)\*(?=$|[\s).,:;!?])/g -> "$1$2": *bold*. */
function bold(text) {
  const n = text.length;
  const star = nextWhere(text, (c) => c === STAR);
  const closes = (x) => x === n || isSpace(text.charCodeAt(x)) || ").,:;!?".includes(text[x]);
  // The closing star of a bold whose text starts at q, tried in the order the
  // expression backtracks: the longest [^*]* first, then one shorter, then none.
  const closing = (q) => {
    if (q >= n || isSpace(text.charCodeAt(q))) return -1;
    const m = star[q + 1];
    if (m >= 0) {
      if (text.charCodeAt(m + 1) === STAR && closes(m + 2)) return m + 1;
      if (m - 1 >= q + 1 && !isSpace(text.charCodeAt(m - 1)) && closes(m + 1)) return m;
    }
    return text.charCodeAt(q + 1) === STAR && closes(q + 2) ? q + 1 : -1;
  };
  const out = [];
  let copied = 0;
  for (let p = 0; p < n;) {
    let end = -1;
    let lead = "";
    if (p === 0 && text.charCodeAt(0) === STAR) end = closing(1);
    if (end < 0) {
      const c = text.charCodeAt(p);
      if ((isSpace(c) || c === LEFT_PAREN) && text.charCodeAt(p + 1) === STAR) {
        end = closing(p + 2);
        lead = text[p];
      }
    }
    if (end < 0) {
      p += 1;
      continue;
    }
    out.push(text.slice(copied, p), lead, text.slice(p + (lead ? 2 : 1), end));
    copied = p = end + 1;
  }
  out.push(text.slice(copied));
  return out.join("");
}

/** Inline markup made plain: [text|url] -> "text (url)", {{mono}} -> mono, *bold* -> bold. */
export function plain(line) {
  return bold(images(colors(monospace(bareLinks(titledLinks(String(line)))))));
}

/** /^h([1-6])\.\s*(.*)$/ read by hand: [level, text] or null. */
function heading(line) {
  if (line.length < 3 || line[0] !== "h" || line[2] !== ".") return null;
  const level = line.charCodeAt(1) - 0x30;
  if (level < 1 || level > 6) return null;
  let start = 3;
  while (start < line.length && isSpace(line.charCodeAt(start))) start += 1;
  const text = line.slice(start);
  return LINE_TERMINATOR.test(text) ? null : [level, text];
}

/** /^\s*([*#-]+)\s+(.*)$/ read by hand: [bullets, text] or null. */
function item(line) {
  let a = 0;
  while (a < line.length && isSpace(line.charCodeAt(a))) a += 1;
  let b = a;
  while (b < line.length && "*#-".includes(line[b])) b += 1;
  let c = b;
  while (c < line.length && isSpace(line.charCodeAt(c))) c += 1;
  if (b === a || c === b) return null;
  const text = line.slice(c);
  return LINE_TERMINATOR.test(text) ? null : [line.slice(a, b), text];
}

/**
 * The description as a fragment of headings, lists, blocks and paragraphs.
 * Text longer than MARKUP_LIMIT is not read as markup: it is shown whole, as
 * plain text, after a note saying why.
 */
export function wikiToNodes(text) {
  const fragment = document.createDocumentFragment();
  const source = String(text);
  if (source.length > MARKUP_LIMIT) {
    fragment.append(
      h("p", {class: "note"}, `Shown as plain text: ${source.length.toLocaleString("en")} characters, `
        + `more than Jira's ${MARKUP_LIMIT.toLocaleString("en")} for a text field.`),
      h("p", {class: "plain"}, source));
    return fragment;
  }
  const lines = source.split(/\r?\n/);
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
    const title = heading(line);
    if (title) {
      flush();
      fragment.append(h(`h${Math.min(6, title[0] + 2)}`, {}, plain(title[1])));
      continue;
    }
    const entry = item(line);
    if (entry && !RULE.test(line)) {
      if (paragraph.length) { fragment.append(h("p", {}, paragraph.join("\n"))); paragraph = []; }
      const ordered = entry[0].endsWith("#");
      if (!list || list.ordered !== ordered) {
        list = {ordered, node: h(ordered ? "ol" : "ul")};
        fragment.append(list.node);
      }
      list.node.append(h("li", {}, plain(entry[1])));
      continue;
    }
    if (!line.trim()) { flush(); continue; }
    list = null;
    paragraph.push(plain(line));
  }
  flush();
  return fragment;
}
