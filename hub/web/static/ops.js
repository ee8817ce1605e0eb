// Operations: the hub at a glance (GET /api/v1/overview), kept live. Agents with what
// each holds and whether its Jira answers, open commands (cancel one), failed and
// cancelled ones with their errors (retry one), recent sync runs, and enqueueing a
// full refresh. It reads again every LIVE_MS while the tab is visible, one read at a
// time, and stops when the reader leaves the page (the page's signal).

import * as api from "./api.js";
import {age, bytes, h, replace, say, sleep, status, table, time} from "./dom.js";

const RECENT_RUNS = 20;
// One page of agents (online ones first); the overview counts them all.
const AGENTS_SHOWN = 50;
// Failed and cancelled commands shown, newest first.
const GIVEN_UP = 10;
export const LIVE_MS = 5000;

// Where the zone JQL reads dates in comes from (GET /api/v1/overview's jql_time_zone.source).
const ZONE_SOURCES = {HUB_JQL_TIME_ZONE: "set by HUB_JQL_TIME_ZONE",
                      jira: "the Jira user's, as the agent reported it",
                      default: "UTC, as neither HUB_JQL_TIME_ZONE nor an agent has said another"};

export async function renderOps(main, signal) {
  const line = status();
  const updated = h("p", {class: "note", id: "ops-updated"});
  const body = h("div", {});
  const may = await permissions(signal);
  if (signal.aborted) return;  // left (or signed out) while the role was read
  // Offered only to a token that may use it (not merely hidden: a page's CSS can undo hidden).
  const refresh = may.enqueue ? h("button", {type: "button", id: "enqueue-refresh"}, "Enqueue a full refresh") : null;
  const reloadButton = h("button", {type: "button", class: "secondary"}, "Reload now");
  replace(main, h("h1", {}, "Operations"),
    h("p", {class: "note"}, `This page reads the hub again every ${LIVE_MS / 1000} s while it is in view.`),
    h("div", {class: "buttons"}, refresh, reloadButton), line, updated, body);

  let busy = null, again = false;
  // One read at a time: asked while one runs, another follows it once.
  async function load() {
    if (busy) { again = true; return busy; }
    busy = (async () => {
      do {
        again = false;
        await read();
      } while (again && !signal.aborted);
    })();
    try { await busy; } finally { busy = null; }
  }

  async function read() {
    let overview, online, offline, runs, queued, claimed, failed, cancelled;
    try {
      [overview, online, offline, runs, queued, claimed, failed, cancelled] = await Promise.all([
        api.request("GET", "/api/v1/overview", {signal}),
        api.request("GET", "/api/v1/agents", {query: {online: "true", limit: AGENTS_SHOWN}, signal}),
        api.request("GET", "/api/v1/agents", {query: {online: "false", limit: AGENTS_SHOWN}, signal}),
        api.request("GET", "/api/v1/sync-runs", {query: {limit: RECENT_RUNS}, signal}),
        api.request("GET", "/api/v1/commands", {query: {status: "queued"}, signal}),
        api.request("GET", "/api/v1/commands", {query: {status: "claimed"}, signal}),
        api.request("GET", "/api/v1/commands", {query: {status: "failed", limit: GIVEN_UP}, signal}),
        api.request("GET", "/api/v1/commands", {query: {status: "cancelled", limit: GIVEN_UP}, signal}),
      ]);
    } catch (error) {
      if (error.name !== "AbortError") say(line, `Could not read the hub's state: ${error.message}`, true);
      return;
    }
    if (signal.aborted) return;
    const open = [...claimed.items, ...queued.items];
    const agents = [...online.items, ...offline.items].slice(0, AGENTS_SHOWN);
    const givenUp = [...failed.items, ...cancelled.items]
      .sort((a, b) => String(b.finished_at || "").localeCompare(String(a.finished_at || "")) || b.id - a.id)
      .slice(0, GIVEN_UP);
    // The page is drawn anew: the control that had the focus gets it back, found by its id.
    const focused = document.activeElement?.id;
    replace(body,
      part("Queue", summary(overview), table(null, ["Type", "Status", "Commands"],
        overview.queue.map((row) => [row.type, row.status, String(row.count)]), "No commands yet.")),
      part("Agents", shown(agents.length, overview.agents), table(null,
        ["Agent", "Status", "Holds", "Last seen", "Version", "Detail", ""],
        agents.map((agent) => [agent.agent_id, agentStatus(agent), holdings(agent),
          h("span", {}, time(agent.last_seen_at), ` (${age(agent.last_seen_at)})`),
          String(agent.version ?? "—"), agent.detail || "—",
          may.removeAgents && !agent.online ? h("button", {type: "button", class: "secondary",
            id: `forget-${agent.agent_id}`, onclick: () => forget(agent.agent_id)},
          `Forget agent ${agent.agent_id}`) : ""]),
        "No agent has been heard from.")),
      part("Open commands", table(null, ["Id", "Type", "Target", "Status", "Created", "Agent", ""],
        open.map((command) => [String(command.id), command.type, paramsText(command),
          command.status, time(command.created_at), command.agent_id || "—",
          may.cancel ? h("button", {type: "button", class: "danger", id: `cancel-${command.id}`,
            onclick: () => cancel(command.id)}, `Cancel command ${command.id}`) : ""]),
        "Nothing queued or claimed.")),
      part("Failed and cancelled commands", table(null,
        ["Id", "Type", "Target", "Status", "Attempts", "Ended", "Error", ""],
        givenUp.map((command) => [String(command.id), command.type, paramsText(command), command.status,
          String(command.deliveries), time(command.finished_at),
          h("span", {class: "error-text"}, command.error || "—"),
          may.retry ? h("button", {type: "button", id: `retry-${command.id}`,
            onclick: () => retry(command.id)}, `Retry command ${command.id}`) : ""]),
        "No command has failed or been cancelled lately.")),
      part("Recent sync runs", table(null,
        ["Run", "Command", "Kind", "Status", "Started", "Duration", "Issues loaded", "Error"],
        runs.items.map((run) => [String(run.id), String(run.command_id ?? "—"), KINDS[run.kind] || run.kind || "—",
          run.status, time(run.started_at),
          run.status === "running" ? `running for ${precise(elapsed(run.started_at))}` : precise(run.duration_seconds),
          String(run.issues_loaded ?? 0), h("span", {class: "error-text"}, run.error || "—")]),
        "No sync runs yet.")),
      part("Store", h("p", {id: "store"},
        `${overview.store.files} file${overview.store.files === 1 ? "" : "s"}, ${bytes(overview.store.bytes)}`)),
      "gone_issues" in overview ? part("Gone issues", h("p", {id: "gone-issues"},
        `${overview.gone_issues} issue${overview.gone_issues === 1 ? "" : "s"} no longer returned by Jira `,
        overview.gone_issues ? h("a", {href: "#/issues?gone=true"}, "(list them)") : null)) : null,
      overview.jql_time_zone ? part("JQL time zone", h("p", {id: "jql-time-zone"},
        `JQL reads dates in ${overview.jql_time_zone.name}: `
        + (ZONE_SOURCES[overview.jql_time_zone.source] || overview.jql_time_zone.source) + ".")) : null);
    if (focused && !document.activeElement?.id) document.getElementById(focused)?.focus();
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}.`;
  }

  async function act(what, call, done) {
    try {
      const answer = await call();
      say(line, done(answer));
    } catch (error) {
      if (error.name === "AbortError") return;
      say(line, `Could not ${what}: ${error.message}`, true);
    }
    await load();
  }

  const cancel = (id) => act(`cancel command ${id}`,
    () => api.request("POST", `/api/v1/commands/${id}/cancel`, {signal}), () => `Command ${id} cancelled.`);
  const retry = (id) => act(`retry command ${id}`,
    () => api.request("POST", `/api/v1/commands/${id}/retry`, {signal}),
    (command) => `Command ${id} retried: command ${command.id} is ${command.status}.`);
  const forget = (agentId) => act(`forget agent ${agentId}`,
    () => api.request("DELETE", `/api/v1/agents/${encodeURIComponent(agentId)}`, {signal}),
    () => `Agent ${agentId} forgotten; it registers again if it is heard from.`);

  refresh?.addEventListener("click", async () => {
    refresh.disabled = true;
    try {
      // 200 with the open one when a full refresh is already queued or running (one at a time).
      await act("enqueue a refresh", async () => {
        const response = await api.request("POST", "/api/v1/commands", {body: {type: "refresh"}, signal, raw: true});
        return {command: await response.json(), open: response.status === 200};
      }, ({command, open}) => (open
        ? `A full refresh is already open: command ${command.id} is ${command.status}.`
        : `Full refresh queued: command ${command.id}.`));
    } finally {
      refresh.disabled = false;
    }
  });
  reloadButton.addEventListener("click", () => { say(line, ""); load(); });
  // Back in view: read at once rather than at the next tick.
  const visible = () => { if (document.visibilityState === "visible") load(); };
  document.addEventListener("visibilitychange", visible);
  signal.addEventListener("abort", () => document.removeEventListener("visibilitychange", visible), {once: true});

  await load();
  live(load, signal);
}

// Read again every LIVE_MS while the tab is visible, until the page is left.
async function live(load, signal) {
  while (!signal.aborted) {
    await sleep(LIVE_MS, signal);
    if (!signal.aborted && document.visibilityState === "visible") await load();
  }
}

// What this token may do here: GET /api/v1/me's "may" (the route table's roles, by action),
// or, on a hub without it, by the role GET /api/v1/whoami gives (interface and admin tokens
// enqueue, cancel and retry; only admin tokens remove agents). Unknown: nothing offered.
async function permissions(signal) {
  let me = null;
  try {
    // Asked only of a hub that has it (/openapi.json says so), so no 404 is met on the way.
    const path = await api.offers("/api/v1/me") ? "/api/v1/me" : "/api/v1/whoami";
    me = await api.request("GET", path, {signal});
  } catch (error) {
    if (error.name === "AbortError") throw error;
  }
  if (me && Array.isArray(me.may)) {
    const may = new Set(me.may);
    return {enqueue: may.has("enqueue_refresh"), cancel: may.has("cancel_commands"),
            retry: may.has("retry_commands"), removeAgents: may.has("remove_agents")};
  }
  const role = me?.role;
  const writes = role === "interface" || role === "admin";
  return {enqueue: writes, cancel: writes, retry: writes, removeAgents: role === "admin"};
}

const KINDS = {full: "full", incremental: "incremental", jql: "other query"};

function part(title, ...content) {
  const id = `o-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return h("section", {"aria-labelledby": id}, h("h2", {id}, title), content);
}

// "online, Jira unreachable since 10:02" rather than "online / idle"; "Jira unknown" for an
// agent that does not say (before protocol v18).
function agentStatus(agent) {
  if (!agent.online) return h("span", {class: "agent-offline"}, "offline");
  const jira = agent.jira;
  if (!jira) return h("span", {}, "online; Jira unknown (the agent does not report it)");
  if (jira.reachable) {
    return h("span", {}, "online; Jira reachable",
      jira.checked_at ? h("span", {class: "note"}, ` (checked ${age(jira.checked_at)})`) : null);
  }
  return h("span", {class: "jira-down"}, "online, Jira unreachable since ", time(jira.since || jira.checked_at),
    jira.error ? h("span", {class: "error-text"}, `: ${jira.error}`) : null);
}

// What an agent holds now: each command, its target, since when, and when its lease runs out.
function holdings(agent) {
  const holds = agent.holds || [];
  if (!holds.length) return agent.online ? (agent.state || "idle") : "—";
  return h("ul", {class: "holds"}, holds.map((held) => h("li", {},
    `${held.type} ${held.id}: ${paramsText(held)}; since `, time(held.claimed_at),
    ` (${age(held.claimed_at)}), lease until `, time(held.lease_until),
    held.deliveries > 1 ? `, attempt ${held.deliveries}` : "")));
}

function shown(count, totals) {
  const more = totals.total > count ? `; the first ${count} shown, online ones first` : "";
  return h("p", {id: "agents-shown", class: "note"},
    `${totals.online} online of ${totals.total} heard from${more}.`);
}

function summary(overview) {
  const last = (run) => run
    ? h("span", {}, time(run.finished_at), `, ${precise(run.duration_seconds)}, ${run.issues_loaded ?? 0} issues`)
    : "none yet";
  return h("dl", {class: "fields"},
    h("dt", {}, "Oldest queued"), h("dd", {}, overview.oldest_queued_at
      ? h("span", {}, time(overview.oldest_queued_at), ` (${precise(overview.oldest_queued_age_seconds)} ago)`)
      : "nothing queued"),
    h("dt", {}, "Agents"), h("dd", {}, `${overview.agents.online} online of ${overview.agents.total}`),
    h("dt", {}, "Last full refresh"), h("dd", {}, last(overview.last_runs.full)),
    h("dt", {}, "Last incremental refresh"), h("dd", {}, last(overview.last_runs.incremental)));
}

/** Seconds as a run's duration: "4 s" or "4.2 s" under a minute (the hub keeps a run's times
 * to the second, so its durations are whole; a time counted here has a tenth), "2 min 05 s",
 * "1 h 02 min 05 s". */
export function precise(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds)) return "—";
  if (seconds < 60) return Number.isInteger(seconds) ? `${seconds} s` : `${(Math.round(seconds * 10) / 10).toFixed(1)} s`;
  const whole = Math.round(seconds);
  const two = (n) => String(n).padStart(2, "0");
  const [hours, minutes, rest] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  return hours ? `${hours} h ${two(minutes)} min ${two(rest)} s` : `${minutes} min ${two(rest)} s`;
}

function elapsed(since) {
  return Math.max(0, (Date.now() - new Date(since).getTime()) / 1000);
}

// A command's params as text; a check's 500 keys are told by their number, not listed.
function paramsText(command) {
  const params = command.params || {};
  if (Array.isArray(params.keys)) {
    const first = params.keys.slice(0, 3).join(", ");
    return `${params.keys.length} key${params.keys.length === 1 ? "" : "s"}: ${first}`
      + (params.keys.length > 3 ? ", …" : "") + (params.run_id ? ` (after run ${params.run_id})` : "");
  }
  if (params.attachment_id) return `attachment ${params.attachment_id}`;
  if (typeof params.jql === "string") {
    return params.updated_since ? `${params.jql} (updated since ${params.updated_since})` : params.jql;
  }
  return JSON.stringify(params);
}
