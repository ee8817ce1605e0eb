// A new issue, made in Jira through a write, from the create screens the mirror knows.

import {h, replace} from "./dom.js";

/** Draw the new-issue page. */
export async function renderCreate(main, signal) {
  replace(main, h("h1", {}, "New issue"), h("p", {class: "empty"}, "Not yet."));
}
