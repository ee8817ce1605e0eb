// An issue's fields as the side panel and the custom field table show them:
// people by display name, versions with their release, sprints with their
// state, time tracking as Jira writes it, and custom field values flattened as
// a person reads them. Every value goes in as text (dom.js).

import {day, h, issueLink, scrolling, time} from "./dom.js";
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

/** A login as a person reads it: "Ivan Ivanov (ivanov)" when people names it, else the login; a dash for none. */
export function person(login, people) {
  if (login === null || login === undefined || login === "") return "—";
  const display = people?.[login];
  return display && display !== login ? `${display} (${login})` : String(login);
}

function dash(value) {
  return value === null || value === undefined || value === "" ? "—" : String(value);
}

function list(items, item, empty = "—") {
  if (!Array.isArray(items) || !items.length) return empty;
  return h("ul", {class: "inline-list"}, items.map((one) => h("li", {}, item(one))));
}

function version(v) {
  const released = v.released === true;
  return [v.name, " ", h("span", {class: released ? "tag released" : "tag unreleased"},
    released ? "released" : "unreleased"),
  v.release_date ? [" ", h("span", {class: "meta"}, day(v.release_date))] : null];
}

function resolution(issue) {
  if (!issue.resolution) return "Unresolved";
  const when = issue.resolved_at || issue.resolved;
  return when ? [issue.resolution, " · ", time(when)] : issue.resolution;
}

// The sprint the issue is in now: the one its sprint field names, else the last active one.
function currentSprint(issue) {
  const sprints = issue.sprints || [];
  const named = sprints.find((sprint) => issue.sprint && sprint.name === issue.sprint);
  if (named) return named;
  return sprints.filter((sprint) => sprint.state === "active").at(-1) || null;
}

function sprints(issue) {
  if (!Array.isArray(issue.sprints) || !issue.sprints.length) return dash(issue.sprint);
  const current = currentSprint(issue);
  return list(issue.sprints, (sprint) => [
    h("a", {href: `#/issues?sprint=${encodeURIComponent(sprint.id)}`}, sprint.name),
    " ", h("span", {class: `tag sprint-${sprint.state || "unknown"}`}, sprint.state || "state unknown"),
    sprint === current ? [" ", h("strong", {class: "current"}, "current")] : null,
  ]);
}

/**
 * The side panel's rows, [label, value] in the order shown: the issue's own
 * fields, then resolution, versions, parent, time tracking and sprints (the
 * sub-tasks have a section of their own, issue.js). A field the hub does not send (an older hub) is left out.
 */
export function fieldRows(issue) {
  const people = issue.people || {};
  const has = (name) => name in issue;
  const rows = [
    ["Type", dash(issue.issue_type)], ["Status", dash(issue.status)],
    has("resolution") ? ["Resolution", resolution(issue)] : null,
    ["Priority", dash(issue.priority)],
    ["Assignee", person(issue.assignee, people)], ["Reporter", person(issue.reporter, people)],
    has("parent_key") ? ["Parent", issue.parent_key ? issueLink(issue.parent_key) : "—"] : null,
    ["Epic", issue.epic_key ? issueLink(issue.epic_key) : "—"],
    has("components") ? ["Components", list(issue.components, (name) => name)] : null,
    has("fix_versions") ? ["Fix versions", list(issue.fix_versions, version)] : null,
    has("affects_versions") ? ["Affects versions", list(issue.affects_versions, version)] : null,
    ["Labels", issue.labels && issue.labels.length ? issue.labels.join(", ") : "—"],
    ["Sprints", sprints(issue)],
    has("time_original_estimate") ? ["Original estimate", jiraDuration(issue.time_original_estimate)] : null,
    has("time_estimate") ? ["Remaining", jiraDuration(issue.time_estimate)] : null,
    has("time_spent") ? ["Logged", jiraDuration(issue.time_spent)] : null,
    ["Due", day(issue.duedate)], ["Planned start", day(issue.planned_start)],
    ["Planned end", day(issue.planned_end)],
    ["Created", time(issue.created)], ["Updated in Jira", time(issue.jira_updated)],
    ["Fetched by the hub", time(issue.fetched_at, {ago: true})],
    ["Neighbour", issue.neighbor ? "yes: outside the scope, read because an issue links to it" : "no"],
  ];
  return rows.filter(Boolean);
}

function isCascade(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && "parent" in value
    && Object.keys(value).every((name) => name === "parent" || name === "child");
}

/** One value of a custom field as text: lists joined with ", ", a cascading select as "A → B", other JSON as JSON. */
export function customValue(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.map(customValue).join(", ");
  if (isCascade(value)) {
    return value.child === null || value.child === undefined ? String(value.parent) : `${value.parent} → ${value.child}`;
  }
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

// A user picker's value (a login, or a list of them), as the side panel names people.
function isUserField(field) {
  return field.type === "user" || String(field.custom || "").toLowerCase().includes("userpicker");
}

function userValue(value, people) {
  return Array.isArray(value) ? value.map((one) => person(one, people)).join(", ") : person(value, people);
}

/** The custom fields, by display name, as a compact table (name → value); users by display name from people;
 * a wiki field (Jira's textarea) as the hub rendered it. */
export function customFieldTable(fields, people = {}, signal = undefined) {
  const entries = Object.entries(fields || {})
    .map(([id, field]) => ({id, ...field}))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)) || a.id.localeCompare(b.id));
  if (!entries.length) return h("p", {class: "empty"}, "No custom fields.");
  return scrolling(h("table", {class: "custom-fields"},
    h("thead", {}, h("tr", {}, h("th", {scope: "col"}, "Field"), h("th", {scope: "col"}, "Value"))),
    h("tbody", {}, entries.map((field) => h("tr", {"data-field": field.id},
      h("th", {scope: "row", title: field.id}, field.name || field.id),
      // A wiki field (Jira's textarea) comes rendered by the hub (value_html), as the description.
      h("td", {}, typeof field.value_html === "string"
        ? wikiBlock(field.value_html, {}, signal)
        : isUserField(field) ? userValue(field.value, people) : customValue(field.value)))))));
}
