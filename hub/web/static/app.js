// The web interface: sign-in, then the pages by the address's #fragment:
// #/issues, #/issue/KEY, #/board (#/board/ID), #/create, #/ops. Each page gets an AbortSignal that fires when
// the reader leaves it, which ends its requests and long-polls.
//
// Signed in or not is the hub's to say (GET /api/v1/session, then /api/v1/me):
// the page holds no token. When the hub ends the session (expired, signed out in
// another tab, token revoked) the sign-in page says why, and keeps the address,
// so that signing in again returns to where the reader was.

import * as api from "./api.js";
import {renderBoard} from "./board.js";
import {renderCreate} from "./create.js";
import {h, replace, say, status} from "./dom.js";
import {renderIssue} from "./issue.js";
import {renderIssues} from "./issues.js";
import {renderOps} from "./ops.js";
import {titled} from "./phone.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
let leaving = null;
let notice = "";

function signInPage() {
  nav.hidden = true;
  titled("Sign in");
  const line = status("alert");
  const input = h("input", {id: "token", name: "token", type: "password", autocomplete: "off",
                            required: true, spellcheck: "false"});
  const button = h("button", {type: "submit"}, "Sign in");
  const form = h("form", {class: "sign-in", "aria-labelledby": "sign-in-title"},
    h("h1", {id: "sign-in-title"}, "Sign in"),
    h("p", {}, "Paste an interface (or admin) token made with ",
      h("code", {}, "hub token add NAME --role interface"),
      ". The hub exchanges it for a sign-in of this browser, in every tab, until you sign out; "
      + "the page does not keep the token."),
    h("label", {for: "token"}, "Token"), input, button, line);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (!value) return;
    button.disabled = true;
    say(line, "Checking the token…");
    try {
      await api.signIn(value);
      input.value = "";
      notice = "";
      if (!location.hash || location.hash === "#/" || location.hash === "#") location.hash = "#/issues";
      else route();
    } catch (error) {
      button.disabled = false;
      say(line, signInError(error), true);
      input.focus();
    }
  });
  replace(main, notice ? h("p", {class: "status error", role: "alert"}, notice) : null, form);
  input.focus();
}

function signInError(error) {
  if (error.status === 401) return "Wrong token: this hub does not know it (revoked or mistyped).";
  if (error.status === 403) return `This token cannot sign in here: ${error.description}`;
  return `Could not sign in: ${error.message}`;
}

async function route() {
  leaving?.abort();
  leaving = new AbortController();
  const signal = leaving.signal;
  let who;
  try {
    who = await api.me();
  } catch (error) {
    replace(main, h("h1", {}, "The hub cannot be reached"), h("p", {class: "status error", role: "alert"},
      `${error.message}. Reload the page to try again.`));
    return;
  }
  if (signal.aborted) return;
  if (!who) {
    notice = notice || api.signedOutBecause();
    signInPage();
    return;
  }
  nav.hidden = false;
  import("./create.js").then((create) => create.showCreateLink(who.may));  // "New issue" only to a writer
  const hash = location.hash.startsWith("#/") ? location.hash : "#/issues";
  for (const link of nav.querySelectorAll("a")) {
    const current = hash.startsWith(link.getAttribute("href"));
    if (current) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  const issue = hash.match(/^#\/issue\/(.+)$/);
  try {
    // Each page names itself in the title (the issue page its summary too, once read).
    if (issue) {
      titled(decodeURIComponent(issue[1]));
      await renderIssue(main, decodeURIComponent(issue[1]), signal);
    } else if (hash.startsWith("#/board")) {
      titled("Board");
      const board = hash.match(/^#\/board\/([^/?]+)/);
      await renderBoard(main, board ? decodeURIComponent(board[1]) : null, signal);
    } else if (hash.startsWith("#/create")) {
      titled("New issue");
      await renderCreate(main, signal);
    } else if (hash.startsWith("#/ops")) {
      titled("Operations");
      await renderOps(main, signal);
    } else {
      titled("Issues");
      await renderIssues(main, signal);
    }
  } catch (error) {
    if (error.name === "AbortError" || signal.aborted) return;
    replace(main, h("h1", {}, "Something went wrong"), h("p", {class: "status error", role: "alert"}, error.message));
  }
}

api.whenUnauthorized((error) => {
  // The address stays as it is: signing in again returns to it.
  notice = error.description || "The hub no longer accepts this sign-in: sign in again.";
  route();
});

api.whenOtherTab((what) => {
  notice = what === "signed-out" ? "You signed out in another tab." : "";
  route();
});

document.getElementById("sign-out").addEventListener("click", async () => {
  try {
    await api.signOut();
  } catch { /* signed out here whatever the hub answered: the next call finds out */ }
  notice = "";
  history.replaceState(null, "", location.pathname);
  route();
});

window.addEventListener("hashchange", () => {
  // Only #/... addresses are pages; "#main" (the skip link) just moves focus.
  if (location.hash && !location.hash.startsWith("#/")) return;
  route();
  main.focus({preventScroll: true});
});
route();
