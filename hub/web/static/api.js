// The hub's public API (/api/v1), with the bearer token of this tab.
//
// The token lives in sessionStorage: it stays while the tab is open (and across
// reloads of it), is gone when the tab closes, and is never shared with other
// tabs or written to a cookie, so no other site's request can carry it.

const TOKEN_KEY = "sdlc-hub.token";

export function token() { return sessionStorage.getItem(TOKEN_KEY); }
export function signIn(value) { sessionStorage.setItem(TOKEN_KEY, value); }
export function signOut() { sessionStorage.removeItem(TOKEN_KEY); }

/** An answer of the hub other than 2xx, with its title and description (and its whole JSON
 *  body: a JQL error's field and position, say). */
export class ApiError extends Error {
  constructor(status, title, description, body = null) {
    super(description ? `${title}: ${description}` : title);
    this.status = status;
    this.title = title;
    this.description = description;
    this.body = body;
  }
}

// Called when the hub answers 401 to a signed-in tab (the token was revoked).
let onUnauthorized = () => {};
export function whenUnauthorized(callback) { onUnauthorized = callback; }

/** The URL of path with query's non-empty members. */
export function url(path, query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * Call the API with this tab's token (or bearer: a token being tried): the
 * parsed JSON answer (null for 204), or the Response itself with raw: true. Anything but 2xx throws ApiError; a network failure throws
 * ApiError with status 0.
 */
export async function request(method, path, {query, body, signal, raw = false, bearer = null} = {}) {
  const headers = {Authorization: `Bearer ${bearer || token()}`, Accept: "application/json"};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url(path, query), {
      method, headers, signal, cache: "no-store", credentials: "omit",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError(0, "The hub cannot be reached", String(error.message || error));
  }
  if (!response.ok) {
    let title = response.statusText || `HTTP ${response.status}`, description = "", body = null;
    try {
      body = await response.json();
      title = body.title || title;
      description = body.description || "";
    } catch { /* a body that is not JSON: keep the status text */ }
    const error = new ApiError(response.status, title, description, body);
    if (response.status === 401 && !bearer && token()) onUnauthorized(error);
    throw error;
  }
  if (raw) return response;
  return response.status === 204 ? null : response.json();
}

let described = null;

// /openapi.json, read once per tab.
function description() {
  if (!described) {
    described = fetch("/openapi.json", {cache: "no-store", credentials: "omit"})
      .then((response) => response.json())
      .catch((error) => { described = null; throw error; });
  }
  return described;
}

/**
 * The query parameters GET /api/v1/issues takes, by name, from /openapi.json
 * (read once): the page offers the search box, filters and orders the hub
 * has, and nothing it does not.
 */
export async function issueListParameters() {
  const doc = await description();
  return Object.fromEntries(
    (doc.paths["/api/v1/issues"]?.get?.parameters || [])
      .filter((param) => param.in === "query")
      .map((param) => [param.name, param.schema || {}]));
}

/** Whether the hub answers GET on path (as /openapi.json writes it, e.g. "/api/v1/sprints"). */
export async function offers(path) {
  const doc = await description();
  return Boolean(doc.paths[path]?.get);
}
