// Operations: the hub at a glance (GET /api/v1/overview), agents, open
// commands (cancel one), recent sync runs, and enqueueing a full refresh.

import * as api from "./api.js";
import {age, bytes, duration, h, replace, say, status, table, time} from "./dom.js";

const RECENT_RUNS = 20;
// One page of agents (online ones first); the overview counts them all.
const AGENTS_SHOWN = 50;

export async function renderOps(main, signal) {
  const line = status();
  const body = h("div", {});
  const refresh = h("button", {type: "button", id: "enqueue-refresh"}, "Enqueue a full refresh");
  const reloadButton = h("button", {type: "button", class: "secondary"}, "Reload");
  replace(main, h("h1", {}, "Operations"),
    h("p", {class: "note"}, "Operators use an admin token here; the hub answers these reads to interface tokens too."),
    h("div", {class: "buttons"}, refresh, reloadButton), line, body);

  // Where the zone JQL reads dates in comes from (GET /api/v1/overview's jql_time_zone.source).
  const ZONE_SOURCES = {HUB_JQL_TIME_ZONE: "set by HUB_JQL_TIME_ZONE",
                        jira: "the Jira user's, as the agent reported it",
                        default: "UTC, as neither HUB_JQL_TIME_ZONE nor an agent has said another"};

  async function load() {
    let overview, online, offline, runs, queued, claimed;
    try {
      [overview, online, offline, runs, queued, claimed] = await Promise.all([
        api.request("GET", "/api/v1/overview", {signal}),
        api.request("GET", "/api/v1/agents", {query: {online: "true", limit: AGENTS_SHOWN}, signal}),
        api.request("GET", "/api/v1/agents", {query: {online: "false", limit: AGENTS_SHOWN}, signal}),
        api.request("GET", "/api/v1/sync-runs", {query: {limit: RECENT_RUNS}, signal}),
        api.request("GET", "/api/v1/commands", {query: {status: "queued"}, signal}),
        api.request("GET", "/api/v1/commands", {query: {status: "claimed"}, signal}),
      ]);
    } catch (error) {
      if (error.name !== "AbortError") say(line, `Could not read the hub's state: ${error.message}`, true);
      return;
    }
    const open = [...claimed.items, ...queued.items];
    const agents = [...online.items, ...offline.items].slice(0, AGENTS_SHOWN);
    replace(body,
      part("Queue", summary(overview), table(null, ["Type", "Status", "Commands"],
        overview.queue.map((row) => [row.type, row.status, String(row.count)]), "No commands yet.")),
      part("Agents", shown(agents.length, overview.agents), table(null,
        ["Agent", "Online", "Last seen", "Version", "State", "Detail"],
        agents.map((agent) => [agent.agent_id, agent.online ? "online" : "offline",
          h("span", {}, time(agent.last_seen_at), ` (${age(agent.last_seen_at)})`),
          String(agent.version ?? "—"), agent.state || "—", agent.detail || "—"]),
        "No agent has been heard from.")),
      part("Open commands", table(null, ["Id", "Type", "Params", "Status", "Created", "Agent", ""],
        open.map((command) => [String(command.id), command.type, paramsText(command),
          command.status, time(command.created_at), command.agent_id || "—",
          h("button", {type: "button", class: "danger", onclick: () => cancel(command.id)},
            `Cancel command ${command.id}`)]),
        "Nothing queued or claimed.")),
      part("Recent sync runs", table(null,
        ["Run", "Command", "Status", "Started", "Duration", "Issues loaded", "Error"],
        runs.items.map((run) => [String(run.id), String(run.command_id), run.status, time(run.started_at),
          duration(run.duration_seconds), String(run.issues_loaded ?? 0), run.error || "—"]),
        "No sync runs yet.")),
      part("Store", h("p", {id: "store"},
        `${overview.store.files} file${overview.store.files === 1 ? "" : "s"}, ${bytes(overview.store.bytes)}`)),
      "gone_issues" in overview ? part("Gone issues", h("p", {id: "gone-issues"},
        `${overview.gone_issues} issue${overview.gone_issues === 1 ? "" : "s"} no longer returned by Jira `,
        overview.gone_issues ? h("a", {href: "#/issues?gone=true"}, "(list them)") : null)) : null,
      overview.jql_time_zone ? part("JQL time zone", h("p", {id: "jql-time-zone"},
        `JQL reads dates in ${overview.jql_time_zone.name}: `
        + (ZONE_SOURCES[overview.jql_time_zone.source] || overview.jql_time_zone.source) + ".")) : null);
  }

  async function cancel(id) {
    try {
      await api.request("POST", `/api/v1/commands/${id}/cancel`, {signal});
      say(line, `Command ${id} cancelled.`);
    } catch (error) {
      if (error.name === "AbortError") return;
      say(line, `Could not cancel command ${id}: ${error.message}`, true);
    }
    await load();
  }

  refresh.addEventListener("click", async () => {
    refresh.disabled = true;
    try {
      const command = await api.request("POST", "/api/v1/commands", {body: {type: "refresh"}, signal});
      say(line, `Full refresh queued: command ${command.id}.`);
      await load();
    } catch (error) {
      if (error.name !== "AbortError") say(line, `Could not enqueue a refresh: ${error.message}`, true);
    } finally {
      refresh.disabled = false;
    }
  });
  reloadButton.addEventListener("click", () => { say(line, ""); load(); });
  await load();
}

function part(title, ...content) {
  const id = `o-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return h("section", {"aria-labelledby": id}, h("h2", {id}, title), content);
}

function shown(count, totals) {
  const more = totals.total > count ? `; the first ${count} shown, online ones first` : "";
  return h("p", {id: "agents-shown", class: "note"},
    `${totals.online} online of ${totals.total} heard from${more}.`);
}

function summary(overview) {
  const last = (run) => run
    ? h("span", {}, time(run.finished_at), `, ${duration(run.duration_seconds)}, ${run.issues_loaded ?? 0} issues`)
    : "none yet";
  return h("dl", {class: "fields"},
    h("dt", {}, "Oldest queued"), h("dd", {}, overview.oldest_queued_at
      ? h("span", {}, time(overview.oldest_queued_at), ` (${duration(overview.oldest_queued_age_seconds)} ago)`)
      : "nothing queued"),
    h("dt", {}, "Agents"), h("dd", {}, `${overview.agents.online} online of ${overview.agents.total}`),
    h("dt", {}, "Last full refresh"), h("dd", {}, last(overview.last_runs.full)),
    h("dt", {}, "Last incremental refresh"), h("dd", {}, last(overview.last_runs.incremental)));
}

// A command's params as text; a check's 500 keys are told by their number, not listed.
function paramsText(command) {
  const params = command.params || {};
  if (Array.isArray(params.keys)) {
    const first = params.keys.slice(0, 3).join(", ");
    return `${params.keys.length} key${params.keys.length === 1 ? "" : "s"}: ${first}`
      + (params.keys.length > 3 ? ", …" : "") + (params.run_id ? ` (after run ${params.run_id})` : "");
  }
  return JSON.stringify(params);
}
