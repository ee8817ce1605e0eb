// Building the page from data: every piece of data goes in as text (text nodes,
// textContent, attribute values), never as markup, so nothing the mirror holds
// can become HTML or script.

/** An element: h("a", {href: "#/x", onclick: f}, "text", child, ...). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (name === "value") {
      node.value = value;
    } else {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(node, children);
  return node;
}

/** Append children (nodes, or anything else as text) to node. */
export function append(node, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replace node's children. */
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** A table from headers and rows of cells (each cell a node or text); a header
 * given as "" is a column of buttons, named "Actions" for screen readers. */
export function table(caption, headers, rows, empty = "None.") {
  if (!rows.length) return h("p", {class: "empty"}, empty);
  return scrolling(h("table", {},
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, headers.map((name) => h("th", {scope: "col"},
      name === "" ? h("span", {class: "visually-hidden"}, "Actions") : name)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell)))))));
}

/** A box that scrolls sideways when content is wider than the screen. While it
 * does, it is a Tab stop of its own, so that a keyboard can scroll it (arrow keys)
 * even when nothing inside it is focusable; while it fits, it adds no Tab stop. */
export function scrolling(content, attrs = {}) {
  // A Tab stop from the start, until layout shows the content fits: a box drawn anew (the
  // operations page every few seconds) is never, even for a frame, one the keyboard cannot scroll.
  const box = h("div", {...attrs, class: "scroll", tabindex: "0"}, content);
  const watch = new ResizeObserver(() => {
    if (box.scrollWidth > box.clientWidth) box.setAttribute("tabindex", "0");
    else box.removeAttribute("tabindex");
  });
  watch.observe(box);
  watch.observe(content);
  return box;
}

/** A link to an issue's page. */
export function issueLink(key) {
  return h("a", {href: `#/issue/${encodeURIComponent(key)}`}, key);
}

const DAY = new Intl.DateTimeFormat(undefined, {day: "numeric", month: "short", year: "numeric"});
const CLOCK = new Intl.DateTimeFormat(undefined, {hour: "2-digit", minute: "2-digit", hourCycle: "h23"});
const RELATIVE = new Intl.RelativeTimeFormat(undefined, {numeric: "auto"});
const SPANS = [["year", 365 * 86400], ["month", 30 * 86400], ["week", 7 * 86400], ["day", 86400],
  ["hour", 3600], ["minute", 60], ["second", 1]];

/** The reader's zone at date as an offset: "UTC", "UTC+03:00", "UTC-05:30". */
export function zone(date) {
  const offset = -date.getTimezoneOffset();
  if (!offset) return "UTC";
  const minutes = Math.abs(offset);
  const pad = (n) => String(n).padStart(2, "0");
  return `UTC${offset > 0 ? "+" : "-"}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/**
 * A date as the page writes every date: the reader's locale's day, a 24-hour
 * clock and the zone it is read in, e.g. "20 Nov 2026, 07:00 UTC+03:00", so that
 * two people reading the same issue in two zones can tell which hour is meant.
 */
export function when(date) {
  return `${DAY.format(date)}, ${CLOCK.format(date)} ${zone(date)}`;
}

/** How far a date is from now, as a person says it: "3 hours ago", "in 5 minutes", "now". */
export function relative(date, now = Date.now()) {
  const seconds = (date.getTime() - now) / 1000;
  for (const [unit, size] of SPANS) {
    if (Math.abs(seconds) >= size || unit === "second") {
      const count = Math.round(seconds / size);
      return count === 0 && unit === "second" ? RELATIVE.format(0, "second") : RELATIVE.format(count, unit);
    }
  }
  return "";
}

/**
 * A hub time (ISO 8601) as a <time> element: written as when() writes it, its
 * ISO form in the datetime attribute and the tooltip, and with {ago: true} how
 * long ago it was after it ("… (3 hours ago)"). A dash for none.
 */
export function time(value, {ago = false} = {}) {
  if (!value) return "—";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return h("time", {datetime: value, title: date.toISOString()},
    ago ? `${when(date)} (${relative(date)})` : when(date));
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const CALENDAR_DAY = new Intl.DateTimeFormat(undefined, {day: "numeric", month: "short", year: "numeric",
  timeZone: "UTC"});

/**
 * A date Jira keeps without a time (a due date, a version's release, "2026-12-20") as
 * the reader's locale writes a day: "20 Dec 2026"; it has no zone, so none is shown.
 * A value with a time is written as time() writes it; a dash for none.
 */
export function day(value) {
  if (!value) return "—";
  const match = DATE_ONLY.exec(String(value));
  if (!match) return time(value);
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (Number.isNaN(date.getTime())) return String(value);
  return h("time", {datetime: value, title: value}, CALENDAR_DAY.format(date));
}

/** Seconds as "4.2 s", "3 min 5 s", "2 h 10 min". */
export function duration(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  if (seconds < 60) return `${Math.round(seconds * 10) / 10} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

/** How long ago a hub time was, e.g. "5 min ago". */
export function age(value) {
  if (!value) return "never";
  const seconds = (Date.now() - new Date(value).getTime()) / 1000;
  return Number.isNaN(seconds) ? String(value) : `${duration(Math.max(0, seconds))} ago`;
}

/** Bytes as "512 B", "1.5 KiB", "3.2 MiB". */
export function bytes(count) {
  if (count === null || count === undefined) return "—";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = count, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return unit ? `${value.toFixed(1)} ${units[unit]}` : `${value} B`;
}

/** A promise that resolves after ms, or at once when signal aborts. */
export function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, {once: true});
  });
}

/** The reads of one view, numbered: each call starts a read and returns a check that holds
 *  while no later read of the view has started. Answers can come out of order (a query
 *  changed, then changed again); only the newest read asked may draw. */
export function newest() {
  let last = 0;
  return () => {
    const mine = ++last;
    return () => mine === last;
  };
}

/** A status line that screen readers announce. */
export function status(kind = "polite") {
  return h("p", {class: "status", role: kind === "alert" ? "alert" : "status", "aria-live": kind === "alert" ? "assertive" : "polite"});
}

/** Show msg in a status line, as an error when error is true. */
export function say(line, msg, error = false) {
  line.textContent = msg || "";
  line.classList.toggle("error", Boolean(error && msg));
}

/** A person as every page names one: the display name Jira shows (the login when the
 *  mirror knows none), the login on hover. A dash for nobody. */
export function person(login, display) {
  if (!login) return "—";
  return h("span", {class: "person", title: login}, display || login);
}

const CATEGORY_CLASSES = {new: "todo", indeterminate: "doing", done: "done"};

/** A status as a lozenge coloured by its Jira status category (category_key: new,
 *  indeterminate or done; anything else is drawn neutral), its name as text. */
export function lozenge(name, categoryKey) {
  if (!name) return "—";
  const tone = CATEGORY_CLASSES[categoryKey] || "unknown";
  return h("span", {class: `lozenge lozenge-${tone}`}, name);
}
