// The hub's public API (/api/v1), with this browser's session.
//
// The page never keeps a token. Signing in posts it once to /api/v1/session,
// which answers with a session cookie the page's script cannot read (HttpOnly)
// and no other site's request carries (SameSite=Strict); every call then goes
// with that cookie and the X-Hub-Request header, without which the hub refuses
// a write as cross-site. So a new tab or a reload is signed in already, and
// signing out (here or in another tab) ends the session on the hub.

// The header every call of the page carries: no cross-site form can send it.
const PAGE_HEADER = {"X-Hub-Request": "1"};
// Tabs of this page tell each other of a sign-in or a sign-out.
const tabs = "BroadcastChannel" in window ? new BroadcastChannel("sdlc-hub.session") : null;

// GET /api/v1/me of this session ({name, role, may}), asked once until the session changes;
// null once the hub has said there is none.
let current;
// Why the hub last said this browser is not signed in, when it had been (its words), else "".
let endedBecause = "";

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

// Called when the hub answers 401 to a signed-in tab (the session expired, was ended in
// another tab, or its token was revoked), with the hub's error, whose description says why.
let onUnauthorized = () => {};
export function whenUnauthorized(callback) { onUnauthorized = callback; }

// Called when another tab of this page signs in or out, with "signed-in" or "signed-out".
let onOtherTab = () => {};
export function whenOtherTab(callback) { onOtherTab = callback; }
tabs?.addEventListener("message", (event) => {
  current = undefined;
  onOtherTab(event.data);
});

/**
 * Who this browser is signed in as: GET /api/v1/me ({name, role, may: [actions]}), asked once;
 * null when it is not signed in. The page offers an action only when may holds it.
 */
export function me() {
  if (current === undefined) {
    // GET /api/v1/session answers 200 signed in or not, so a signed-out page logs no error.
    current = request("GET", "/api/v1/session", {signingIn: true}).then((state) => {
      endedBecause = state.ended || "";
      if (!state.session) return null;
      return request("GET", "/api/v1/me", {signingIn: true}).catch((error) => {
        if (error.status === 401) return null;  // ended in between
        throw error;
      });
    }).catch((error) => {
      current = undefined;
      throw error;
    });
  }
  return current;
}

/** Whether the signed-in role may use action ("enqueue_refresh", "admin", ...; see /api/v1/me). */
export async function may(action) {
  const who = await me();
  return Boolean(who?.may?.includes(action));
}

/** Sign in: the token is posted once, exchanged for the session cookie, and forgotten. */
export async function signIn(token) {
  current = undefined;
  await request("POST", "/api/v1/session", {body: {token}, signingIn: true});
  endedBecause = "";
  tabs?.postMessage("signed-in");
  return me();
}

/** Sign out: the session ends on the hub (in every tab of this browser) and its cookie is cleared. */
export async function signOut() {
  try {
    await request("DELETE", "/api/v1/session", {signingIn: true});
  } finally {
    current = null;
    endedBecause = "";
    tabs?.postMessage("signed-out");
  }
}

/** Why the hub ended this browser's sign-in, in its words ("" when it never had one). */
export function signedOutBecause() { return endedBecause; }

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
 * Call the API with this browser's session (or bearer: a token given for this call alone):
 * the parsed JSON answer (null for 204), or the Response itself with raw: true. Anything but
 * 2xx throws ApiError; a network failure throws ApiError with status 0. A 401 tells
 * whenUnauthorized's callback, except while signing in (signingIn: the 401 is the answer).
 * headers adds request headers (an Idempotency-Key); a Blob body (a file) goes as it is,
 * with its own type, anything else as JSON.
 */
export async function request(method, path, {query, body, signal, raw = false, bearer = null,
                                             signingIn = false, headers: extra = {}} = {}) {
  const headers = {...extra, ...PAGE_HEADER, Accept: "application/json"};
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  const file = body instanceof Blob;
  if (file) headers["Content-Type"] = body.type || "application/octet-stream";
  else if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url(path, query), {
      method, headers, signal, cache: "no-store", credentials: bearer ? "omit" : "same-origin",
      body: body === undefined || file ? body : JSON.stringify(body),
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
    } catch (error) {
      // Left while its answer was read: the words of a 401 (why the sign-in ended) are lost with
      // it, so it tells nobody; a request still wanted meets the same 401 with its words.
      if (error.name === "AbortError" || signal?.aborted) throw new DOMException("left", "AbortError");
      /* a body that is not JSON: keep the status text */
    }
    const error = new ApiError(response.status, title, description, body);
    // Told once: the page's other requests of the moment meet the same end.
    if (response.status === 401 && !bearer && !signingIn && current !== null) {
      current = null;
      onUnauthorized(error);
    }
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
