// An issue's fields as the details panel and the custom field section show them, formatted
// by their type as Jira shows them: people by display name (login on hover), versions with
// their release, sprints with their state, time tracking as Jira writes it, dates and times
// in the reader's zone, numbers in the reader's locale, URLs as links, options by value, an
// object as "key: value" text. An empty field is left out (unless the edit screen has it:
// then it can be filled in place), and so are Jira's internals (Rank, Work Ratio, Sprint as
// a raw string, Development). Every value goes in as text (dom.js).

import {day, h, issueLink, lozenge, person, time} from "./dom.js";
import {wikiBlock} from "./rendered.js";

// Jira's time tracking defaults: a working day of 8 hours, a week of 5 days.
const UNITS = [["w", 5 * 8 * 3600], ["d", 8 * 3600], ["h", 3600], ["m", 60]];

/** Seconds as Jira writes a duration: "1w 2d 3h 30m" (8h day, 5d week), "0m" for none; a dash for null. */
export function jiraDuration(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(Number(seconds))) return "—";
  let left = Math.max(0, Math.round(Number(seconds) / 60) * 60);
  const parts = [];
  for (const [unit, size] of UNITS) {
    const count = Math.floor(left / size);
    if (count) parts.push(`${count}${unit}`);
    left -= count * size;
  }
  return parts.length ? parts.join(" ") : "0m";
}

/** Jira's field id (an edit screen's key) of each issue member the details panel shows. */
export const JIRA_IDS = {
  summary: "summary", issue_type: "issuetype", priority: "priority", assignee: "assignee", reporter: "reporter",
  components: "components", fix_versions: "fixVersions", affects_versions: "versions", labels: "labels",
  duedate: "duedate", resolution: "resolution", environment: "environment",
};

/** Whether a value is empty: nothing to show. */
export function empty(value) {
  return value === null || value === undefined || value === "" || (Array.isArray(value) && !value.length)
    || (Object.getPrototypeOf(value) === Object.prototype && !Object.keys(value).length);
}

function list(items, item) {
  return h("ul", {class: "inline-list"}, items.map((one) => h("li", {}, item(one))));
}

function version(v) {
  if (typeof v !== "object" || v === null) return String(v);
  const released = v.released === true;
  return [v.name, " ", h("span", {class: released ? "tag released" : "tag unreleased"},
    released ? "released" : "unreleased"),
  v.release_date ? [" ", h("span", {class: "meta"}, day(v.release_date))] : null];
}

// The sprint the issue is in now: the one its sprint field names, else the last active one.
function currentSprint(issue) {
  const sprints = issue.sprints || [];
  const named = sprints.find((sprint) => issue.sprint && sprint.name === issue.sprint);
  if (named) return named;
  return sprints.filter((sprint) => sprint.state === "active").at(-1) || null;
}

function sprints(issue) {
  if (!Array.isArray(issue.sprints) || !issue.sprints.length) return issue.sprint || null;
  const current = currentSprint(issue);
  return list(issue.sprints, (sprint) => [
    h("a", {href: `#/issues?sprint=${encodeURIComponent(sprint.id)}`}, sprint.name),
    " ", h("span", {class: `tag sprint-${sprint.state || "unknown"}`}, sprint.state || "state unknown"),
    sprint === current ? [" ", h("strong", {class: "current"}, "current")] : null,
  ]);
}

/** The status as a lozenge of its category (categories: status name -> category_key). */
export function statusLozenge(name, categories) {
  return lozenge(name, categories?.get(name));
}

/**
 * The details panel's fields, in the order shown: [{name, label, value, shown}] where name is
 * the issue object's member (the div.field's data-field) and value what the <dd> holds. Empty
 * fields are left out, except, for a token that may write (fillable: true), those the edit
 * screen (`edit_fields`) has: they show "None" (the assignee "Unassigned", as Jira says), so
 * that they can be filled in place. The
 * custom fields of the edit screen follow (their id as name); the others have a section of
 * their own (customFieldRows).
 */
export function fieldRows(issue, categories = null, {fillable = false} = {}) {
  const people = issue.people || {};
  const editable = fillable && issue.edit_fields || {};
  const onScreen = (name) => (JIRA_IDS[name] || name) in editable;
  const rows = [
    ["issue_type", "Type", issue.issue_type],
    ["status", "Status", issue.status ? statusLozenge(issue.status, categories) : null],
    ["priority", "Priority", issue.priority],
    ["resolution", "Resolution", "resolution" in issue
      ? (issue.resolution ? [issue.resolution, issue.resolved_at || issue.resolved
        ? [" · ", time(issue.resolved_at || issue.resolved)] : null] : "Unresolved") : null],
    ["affects_versions", "Affects versions", empty(issue.affects_versions) ? null : list(issue.affects_versions, version)],
    ["fix_versions", "Fix versions", empty(issue.fix_versions) ? null : list(issue.fix_versions, version)],
    ["components", "Components", empty(issue.components) ? null : list(issue.components, (name) => name)],
    ["labels", "Labels", empty(issue.labels) ? null
      : h("ul", {class: "labels"}, issue.labels.map((label) => h("li", {class: "label"}, label)))],
    ["sprints", "Sprint", sprints(issue)],
    ["epic_key", "Epic", issue.epic_key && issue.epic_key !== issue.key ? issueLink(issue.epic_key) : null],
    ["parent_key", "Parent", issue.parent_key ? issueLink(issue.parent_key) : null],
    ["assignee", "Assignee", issue.assignee ? person(issue.assignee, people[issue.assignee])
      : h("span", {class: "empty"}, "Unassigned")],
    ["reporter", "Reporter", issue.reporter ? person(issue.reporter, people[issue.reporter]) : null],
    ["duedate", "Due", issue.duedate ? day(issue.duedate) : null],
    ["planned_start", "Planned start", issue.planned_start ? day(issue.planned_start) : null],
    ["planned_end", "Planned end", issue.planned_end ? day(issue.planned_end) : null],
    ["time_original_estimate", "Original estimate", empty(issue.time_original_estimate) ? null
      : jiraDuration(issue.time_original_estimate)],
    ["time_estimate", "Remaining", empty(issue.time_estimate) ? null : jiraDuration(issue.time_estimate)],
    ["time_spent", "Logged", issue.time_spent ? jiraDuration(issue.time_spent) : null],
    ["created", "Created", issue.created ? time(issue.created) : null],
    ["jira_updated", "Updated in Jira", issue.jira_updated ? time(issue.jira_updated) : null],
    ["fetched_at", "Fetched by the hub", issue.fetched_at ? time(issue.fetched_at, {ago: true}) : null],
    ["neighbor", "Neighbour", issue.neighbor ? "yes: outside the scope, read because an issue links to it" : null],
  ];
  const shown = rows.map(([name, label, value]) => {
    if (!empty(value)) return {name, label, value};
    return onScreen(name) ? {name, label, value: h("span", {class: "empty"}, "None")} : null;
  }).filter(Boolean);
  for (const row of customFieldRows(issue, {editable: true, fillable})) shown.push(row);
  return shown;
}

/** The key facts shown first on a narrow screen (before the description): status, assignee, priority. */
export function keyFacts(issue, categories = null) {
  const people = issue.people || {};
  return [
    ["Status", issue.status ? statusLozenge(issue.status, categories) : null],
    ["Assignee", issue.assignee ? person(issue.assignee, people[issue.assignee]) : "Unassigned"],
    ["Priority", issue.priority],
  ].filter(([, value]) => !empty(value));
}

// Jira's internals: fields a person does not read on an issue (a lexical rank, the
// development panel's summary, Jira's own bookkeeping), or that the panel shows from the
// issue's own members (the sprints, the epic, the planned dates).
const INTERNAL_IDS = new Set(["workratio", "lastViewed", "votes", "watches", "progress", "aggregateprogress",
  "aggregatetimespent", "aggregatetimeestimate", "aggregatetimeoriginalestimate", "timetracking", "worklog",
  "comment", "attachment", "issuelinks", "thumbnail", "subtasks", "timespent", "timeestimate",
  "timeoriginalestimate"]);
const INTERNAL_TYPES = /gh-lexo-rank|gh-sprint|gh-epic-link|gh-epic-color|devsummary|jira-development-integration/i;
const INTERNAL_NAMES = new Set(["rank", "development", "sprint", "epic link", "epic colour", "epic color",
  "work ratio", "planned start", "planned end"]);

/** Whether a custom field is one of Jira's internals, never shown. */
export function internal(id, field) {
  return INTERNAL_IDS.has(id) || INTERNAL_TYPES.test(String(field.custom || ""))
    || INTERNAL_NAMES.has(String(field.name || "").toLowerCase());
}

function isCascade(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && "parent" in value
    && Object.keys(value).every((name) => name === "parent" || name === "child");
}

const NUMBER = new Intl.NumberFormat(undefined, {maximumFractionDigits: 2});
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const URL_TEXT = /^https?:\/\/[^\s]+$/i;

/** A URL as a link (http and https only; anything else stays text), opened in a new tab. */
export function urlLink(text) {
  return URL_TEXT.test(text)
    ? h("a", {href: text, target: "_blank", rel: "noopener noreferrer nofollow", class: "url"}, text) : text;
}

function objectText(value) {
  return Object.entries(value).filter(([, one]) => !empty(one))
    .map(([name, one]) => `${name}: ${typeof one === "object" && one !== null
      ? (Array.isArray(one) ? one.map(plain).join(", ") : `{${objectText(one)}}`) : plain(one)}`).join("; ");
}

function plain(value) {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(plain).join(", ");
  if (typeof value === "object") return objectText(value);
  return String(value);
}

/**
 * One custom field's value as a person reads it, by its type (Jira's schema `type`, `custom`):
 * users by display name, dates as days, date-times in the reader's zone, numbers in the
 * reader's locale, URLs as links, a cascading select as "A → B", a list one item after
 * another, any other object as "key: value; …". null when it holds nothing to show.
 */
export function customValue(field, people = {}) {
  const value = field.value;
  if (empty(value)) return null;
  const type = String(field.type || "").toLowerCase();
  const custom = String(field.custom || "").toLowerCase();
  if (type === "user" || custom.includes("userpicker")) {
    const logins = Array.isArray(value) ? value : [value];
    return joined(logins.map((login) => person(String(login), people[login])));
  }
  if (Array.isArray(value)) return joined(value.map((one) => customValue({...field, value: one}, people)).filter(Boolean));
  if (isCascade(value)) {
    return empty(value.child) ? String(value.parent) : `${value.parent} → ${value.child}`;
  }
  if (typeof value === "object") return objectText(value) || null;
  if (typeof value === "number") return NUMBER.format(value);
  const text = String(value);
  if (type === "date" || DATE_ONLY.test(text)) return day(text);
  if (type === "datetime" || DATE_TIME.test(text)) return time(text);
  if (type === "number" && text.trim() !== "" && !Number.isNaN(Number(text))) return NUMBER.format(Number(text));
  return urlLink(text);
}

function joined(parts) {
  if (!parts.length) return null;
  return parts.flatMap((part, n) => (n ? [", ", part] : [part]));
}

/**
 * The custom fields to show, by display name: [{name: id, label, value}]. editable: true for
 * those on the edit screen (the details panel shows them, so that they can be edited in
 * place; empty ones too when fillable: the token may write), false for the others (the
 * custom fields section); Jira's internals and empty fields left out. A wiki field (Jira's textarea) as the hub rendered it.
 */
export function customFieldRows(issue, {editable = false, fillable = false, signal = undefined} = {}) {
  const screen = issue.edit_fields || {};
  const people = issue.people || {};
  const fields = issue.custom_fields || {};
  const rows = [];
  const ids = new Set(Object.keys(fields));
  if (editable && fillable) for (const id of Object.keys(screen)) if (id.startsWith("customfield_")) ids.add(id);
  for (const id of ids) {
    if ((id in screen) !== editable) continue;
    const field = fields[id] || {name: screen[id]?.name, value: null};
    if (internal(id, field)) continue;
    const value = typeof field.value_html === "string" && !empty(field.value)
      ? wikiBlock(field.value_html, {}, signal) : customValue(field, people);
    if (value === null && !(editable && fillable)) continue;
    rows.push({name: id, label: field.name || id, value: value ?? h("span", {class: "empty"}, "None")});
  }
  return rows.sort((a, b) => String(a.label).localeCompare(String(b.label)) || a.name.localeCompare(b.name));
}

/** The custom fields section: a <dl> of the fields not on the edit screen, each a div.field. */
export function customFieldList(issue, signal = undefined) {
  const rows = customFieldRows(issue, {signal});
  if (!rows.length) return null;
  return h("dl", {class: "fields custom-fields"}, rows.map((row) => fieldDiv(row)));
}

/** One field of a <dl>: <div class="field" data-field=NAME><dt>label</dt><dd>value</dd></div>. */
export function fieldDiv(row) {
  return h("div", {class: "field", "data-field": row.name},
    h("dt", {title: row.name.startsWith("customfield_") ? row.name : null}, row.label), h("dd", {}, row.value));
}
