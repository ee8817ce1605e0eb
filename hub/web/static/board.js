// The board: a project's agile board, its columns as Jira's board configuration has them.

import {h, replace} from "./dom.js";

/** Draw the board page: the board `id`, or the chooser when null. */
export async function renderBoard(main, id, signal) {
  replace(main, h("h1", {}, "Board"), h("p", {class: "empty"}, "No board yet."));
}
