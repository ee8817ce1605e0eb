// The board: a project's agile board (GET /api/v1/boards/{id}), its columns and their statuses as
// Jira's board configuration has them, the active sprint's issues (scrum) or the board's issues
// (kanban) as cards. Quick filters by assignee and type narrow the cards; a card dragged to another
// column, or moved with its "Move" button, is a transition write (board_move.js), shown pending
// where it goes until Jira takes it. The board is read again every LIVE_MS while the tab is
// visible; #/board alone lists the boards, or opens the only one.

import * as api from "./api.js";
import {follow, outcome, planMove, sendMove} from "./board_move.js";
import {h, lozenge, person, replace, say, scrolling, sleep, status, time} from "./dom.js";
import {titled} from "./phone.js";

export const LIVE_MS = 5000;
// A quick filter's value for the cards with no assignee (no Jira login is empty).
const NOBODY = "";

/** Draw the board page: the board `id`, or the chooser (the only board straight away) when null. */
export async function renderBoard(main, id, signal) {
  if (id === null) {
    const boards = await api.request("GET", "/api/v1/boards", {signal});
    if (signal.aborted) return;
    if (boards.items.length !== 1) {
      chooser(main, boards.items);
      return;
    }
    id = String(boards.items[0].id);
    // The address names the board, without a history entry of its own (Back leaves the board).
    history.replaceState(null, "", `#/board/${encodeURIComponent(id)}`);
  }
  await boardPage(main, id, signal);
}

function chooser(main, boards) {
  titled("Boards");
  replace(main, h("h1", {}, "Boards"), boards.length
    ? h("ul", {class: "board-list"}, boards.map((board) => h("li", {},
      h("a", {href: `#/board/${encodeURIComponent(board.id)}`}, boardName(board)),
      h("span", {class: "meta"}, ` ${board.type || "board"} of ${board.project}`,
        board.configured ? "" : " (columns not read yet)"))))
    : h("p", {class: "empty"}, "No project has a board yet. An admin gives a project its Jira board: ",
      h("code", {}, "hub project add LABEL --board-id N --board-type scrum"), "."));
}

function boardName(board) {
  return board.name || `Board ${board.id}`;
}

async function boardPage(main, id, signal) {
  const path = `/api/v1/boards/${encodeURIComponent(id)}`;
  let board, who;
  try {
    [board, who] = await Promise.all([api.request("GET", path, {signal}), api.me()]);
  } catch (error) {
    if (error.name === "AbortError" || signal.aborted) return;
    replace(main, h("p", {}, h("a", {href: "#/board"}, "← Boards")), h("h1", {}, "Board"),
      h("p", {class: "status error", role: "alert"},
        error.status === 404 ? `No board ${id}: no project of the hub has it.` : `Could not read the board: ${error.message}`));
    return;
  }
  if (signal.aborted) return;
  const view = new BoardView(main, path, board, Boolean(who?.may?.includes("write")), signal);
  view.draw();
  view.live();
}

/** The quick filters the address names: `assignee` (a login; empty for the unassigned) and `type`,
 *  each as often as pressed. */
function pickedFromAddress() {
  const query = new URLSearchParams(location.hash.split("?")[1] || "");
  return {assignee: new Set(query.getAll("assignee")), type: new Set(query.getAll("type"))};
}

/** One board on screen: the last answer read, the quick filters pressed, the moves under way. */
class BoardView {
  constructor(main, path, board, mayWrite, signal) {
    Object.assign(this, {main, path, board, mayWrite, signal});
    this.text = JSON.stringify(board);  // the last answer, to draw again only when it changed
    this.picked = pickedFromAddress();
    this.moves = new Map();  // key -> {to: column index, write} while a transition is under way
    this.errors = new Map();  // key -> why its last move did not happen (Jira's words)
    this.busy = 0;  // a menu, a form or a drag is open: a redraw would take it away
    this.stale = false;
    this.said = status();
    this.alert = status("alert");
    this.alert.classList.add("board-alert");
    this.head = h("div", {class: "board-head"});
    this.filters = h("div", {class: "board-filters"});
    this.note = h("p", {class: "note board-note"});
    this.columns = h("div", {class: "board-columns"});
    replace(main, this.head, this.filters, this.said, this.alert, this.note,
      scrolling(this.columns, {role: "region", "aria-label": "Columns"}));
  }

  /** Draw everything from this.board, this.picked and this.moves (the focused card keeps focus). */
  draw() {
    const focused = this.focused();
    const board = this.board;
    titled(boardName(board), "Board");
    replace(this.head,
      h("h1", {}, boardName(board), " ", h("span", {class: "board-type"}, board.type === "kanban" ? "Kanban" : "Scrum")),
      h("p", {class: "meta"}, `Project ${board.project}. `, h("a", {href: "#/board"}, "All boards")),
      board.type === "kanban" ? null : sprintLine(board.sprint));
    this.drawFilters();
    const shown = board.issues.filter((card) => this.passes(card));
    const placed = board.columns.map(() => []);
    let nowhere = 0;
    for (const card of shown) {
      const column = this.moves.get(card.key)?.to ?? card.column;
      if (column === null || column === undefined || !placed[column]) nowhere += 1;
      else placed[column].push(card);
    }
    const notes = [];
    if (!board.configured) {
      notes.push("Jira's columns for this board are not known yet: an agent reads its columns on the next refresh. "
        + "Until then the statuses are grouped by their category.");
    }
    if (board.total > board.issues.length) notes.push(`The first ${board.issues.length} of ${board.total} issues are shown.`);
    if (nowhere) notes.push(`${nowhere} of these issues are in statuses no column holds.`);
    if (!board.issues.length) {
      notes.push(board.type === "kanban" ? "No issues on this board." : "No issues in an active sprint.");
    }
    this.note.textContent = notes.join(" ");
    replace(this.columns, board.columns.map((column, index) => this.column(column, index, placed[index])));
    focused?.();
  }

  /** Where the focus is (a card, its Move button, a quick filter), as a function that puts it back
   *  once the board is drawn anew; null when it is elsewhere. */
  focused() {
    const at = document.activeElement;
    if (!at || !this.main.contains(at)) return null;
    const find = (selector) => () => this.main.querySelector(selector)?.focus({preventScroll: true});
    if (at.dataset.kind) {
      return find(`button[data-kind="${at.dataset.kind}"][data-value="${CSS.escape(at.dataset.value)}"]`);
    }
    const card = at.closest(".card");
    if (!card) return null;
    const selector = `.card[data-key="${CSS.escape(card.dataset.key)}"]`;
    return find(at.classList.contains("card-move") ? `${selector} .card-move` : selector);
  }

  drawFilters() {
    const people = new Map(), types = new Set();
    for (const card of this.board.issues) {
      people.set(card.assignee || NOBODY, card.assignee ? this.board.people?.[card.assignee] || card.assignee : "Unassigned");
      if (card.issue_type) types.add(card.issue_type);
    }
    // People by name, "Unassigned" last.
    const byName = (a, b) => (a[0] === NOBODY) - (b[0] === NOBODY) || a[1].localeCompare(b[1]);
    const group = (label, kind, values) => (values.length < 1 ? null : h("div", {class: "quick-filter", role: "group",
      "aria-label": `Quick filters: ${label}`}, h("span", {class: "quick-label", "aria-hidden": "true"}, `${label}:`),
      values.map(([value, name]) => h("button", {type: "button", class: "secondary toggle",
        "aria-pressed": String(this.picked[kind].has(value)), "data-kind": kind, "data-value": value,
        title: kind === "assignee" && value ? value : null, onclick: () => this.toggle(kind, value)}, name))));
    const any = this.picked.assignee.size + this.picked.type.size;
    replace(this.filters,
      group("Assignee", "assignee", [...people].sort(byName)),
      group("Type", "type", [...types].sort().map((type) => [type, type])),
      any ? h("button", {type: "button", class: "secondary", onclick: () => this.clearFilters()}, "Clear filters") : null);
  }

  toggle(kind, value) {
    const set = this.picked[kind];
    if (set.has(value)) set.delete(value); else set.add(value);
    this.remember();
    this.draw();
    const count = this.board.issues.filter((card) => this.passes(card)).length;
    say(this.said, `${count} of ${this.board.issues.length} issues shown.`);
  }

  clearFilters() {
    this.picked.assignee.clear();
    this.picked.type.clear();
    this.remember();
    this.draw();
    this.filters.querySelector("button")?.focus();
    say(this.said, `All ${this.board.issues.length} issues shown.`);
  }

  /** Keep the quick filters in the address (#/board/ID?assignee=ivanov&type=Bug), without a history
   *  entry each (Back leaves the board), so that a reload or a link shows the same cards. */
  remember() {
    const query = new URLSearchParams();
    for (const kind of ["assignee", "type"]) for (const value of this.picked[kind]) query.append(kind, value);
    const base = location.hash.split("?")[0];
    history.replaceState(null, "", query.size ? `${base}?${query}` : base);
  }

  /** Whether card passes the quick filters: any pressed value of each kind (none pressed: any). */
  passes(card) {
    const {assignee, type} = this.picked;
    return (!assignee.size || assignee.has(card.assignee || NOBODY)) && (!type.size || type.has(card.issue_type));
  }

  column(column, index, cards) {
    const heading = `col-${index}`;
    const list = h("ol", {class: "cards", "aria-labelledby": heading},
      cards.map((card) => h("li", {}, this.card(card, index))));
    const section = h("section", {class: "board-column", "data-column": index, "aria-labelledby": heading},
      h("h2", {id: heading}, h("span", {class: "column-name"}, column.name), " ",
        h("span", {class: "count", "aria-label": `${cards.length} ${cards.length === 1 ? "issue" : "issues"}`},
          String(cards.length))),
      h("p", {class: "column-statuses"}, column.statuses.map((s) => [lozenge(s.name, s.category_key), " "])),
      cards.length ? list : h("p", {class: "empty"}, "No issues."));
    if (this.mayWrite) this.dropZone(section, index);
    return section;
  }

  card(card, index) {
    const move = this.moves.get(card.key);
    const menu = this.mayWrite && !move ? this.moveMenu(card, index) : null;
    const error = this.errors.get(card.key);
    const ids = {key: `card-${card.key}`, summary: `card-${card.key}-summary`};
    const node = h("article", {class: `card${move ? " pending" : ""}`, tabindex: "0", "data-key": card.key,
      "aria-labelledby": `${ids.key} ${ids.summary}`, draggable: this.mayWrite && !move ? "true" : null},
    h("div", {class: "card-top"},
      h("a", {href: `#/issue/${encodeURIComponent(card.key)}`, id: ids.key, class: "card-key", draggable: "false"}, card.key),
      card.flagged ? h("span", {class: "flag"}, "⚑ Flagged") : null,
      move ? h("span", {class: "pending-mark"}, "pending") : null),
    h("p", {class: "card-summary", id: ids.summary}, card.summary || "(no summary)"),
    h("div", {class: "card-foot"},
      h("p", {class: "card-meta"},
        h("span", {class: "card-type", title: "Type"}, card.issue_type || "—"),
        h("span", {class: "card-priority", title: "Priority"}, card.priority || "—"),
        h("span", {class: "card-assignee"}, card.assignee ? person(card.assignee, this.board.people?.[card.assignee])
          : "Unassigned")),
      menu?.button),
    menu?.list,
    error ? h("p", {class: "card-error", role: "note"}, error, " ",
      h("button", {type: "button", class: "secondary small", onclick: () => { this.errors.delete(card.key); this.draw(); }},
        "Dismiss")) : null);
    node.addEventListener("keydown", (event) => this.cardKey(event, node));
    if (this.mayWrite && !move) {
      node.addEventListener("dragstart", (event) => {
        event.dataTransfer.setData("text/plain", card.key);
        event.dataTransfer.effectAllowed = "move";
        this.dragging = card;
        this.busy += 1;
        node.classList.add("dragging");
        this.columns.classList.add("dragging");
      });
      node.addEventListener("dragend", () => {
        node.classList.remove("dragging");
        this.columns.classList.remove("dragging");
        this.dragging = null;
        this.release();
      });
    }
    return node;
  }

  /** "Move…" on a card ({button, list}): a list of the other columns, each a button that does what
   *  a drag does, shown under the card's last line. */
  moveMenu(card, index) {
    const menuId = `move-${card.key}`;
    const menu = h("ul", {class: "move-menu", id: menuId, hidden: true},
      this.board.columns.map((column, target) => (target === index ? null : h("li", {},
        h("button", {type: "button", class: "secondary", onclick: () => { close(false); this.move(card, target); }},
          column.name)))));
    const button = h("button", {type: "button", class: "secondary small card-move", "aria-expanded": "false",
      "aria-controls": menuId, "aria-label": `Move ${card.key} to…`}, "Move…");
    const close = (refocus) => {
      if (menu.hidden) return;
      menu.hidden = true;
      button.setAttribute("aria-expanded", "false");
      if (refocus) button.focus();
      this.release();
    };
    button.addEventListener("click", () => {
      if (!menu.hidden) { close(true); return; }
      menu.hidden = false;
      button.setAttribute("aria-expanded", "true");
      this.busy += 1;
      menu.querySelector("button")?.focus();
    });
    menu.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.stopPropagation(); close(true); }
    });
    menu.addEventListener("focusout", (event) => {
      if (!menu.contains(event.relatedTarget) && event.relatedTarget !== button) close(false);
    });
    return {button: h("div", {class: "card-actions"}, button), list: menu};
  }

  /** Arrow keys go from card to card (up and down a column, across to the next one's); Enter opens it. */
  cardKey(event, node) {
    if (event.target !== node) return;
    if (event.key === "Enter") {
      location.hash = `#/issue/${encodeURIComponent(node.dataset.key)}`;
      return;
    }
    const steps = {ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0]}[event.key];
    if (!steps) return;
    event.preventDefault();
    const sections = [...this.columns.querySelectorAll(".board-column")];
    const here = node.closest(".board-column");
    const row = [...here.querySelectorAll(".card")].indexOf(node);
    if (steps[1]) {
      here.querySelectorAll(".card")[row + steps[1]]?.focus();
      return;
    }
    for (let at = sections.indexOf(here) + steps[0]; at >= 0 && at < sections.length; at += steps[0]) {
      const cards = sections[at].querySelectorAll(".card");
      if (cards.length) { cards[Math.min(row, cards.length - 1)].focus(); return; }
    }
  }

  dropZone(section, index) {
    const allowed = () => this.dragging && (this.moves.get(this.dragging.key)?.to ?? this.dragging.column) !== index;
    section.addEventListener("dragover", (event) => {
      if (!allowed()) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
      section.classList.add("drop-here");
    });
    section.addEventListener("dragleave", (event) => {
      if (!section.contains(event.relatedTarget)) section.classList.remove("drop-here");
    });
    section.addEventListener("drop", (event) => {
      section.classList.remove("drop-here");
      if (!allowed()) return;
      event.preventDefault();
      const card = this.dragging;
      this.dragging = null;
      this.move(card, index);
    });
  }

  /** A menu, form or drag ended: a read that came meanwhile is drawn now. */
  release() {
    this.busy = Math.max(0, this.busy - 1);
    if (!this.busy && this.stale) {
      this.stale = false;
      this.draw();
    }
  }

  /** Move card to the column `target`: the transition write (with its screen's form when it has
   *  one), the card drawn there at once marked pending, until the write ends; then the board as
   *  the mirror has it, or the card back where it was with Jira's words. */
  async move(card, target) {
    const column = this.board.columns[target];
    this.errors.delete(card.key);
    say(this.alert, "");
    this.busy += 1;  // the form, while it is open
    let plan;
    try {
      plan = await planMove(card, column, this.board.people);
    } finally {
      this.release();
    }
    const refocus = () => this.columns.querySelector(`.card[data-key="${CSS.escape(card.key)}"]`)?.focus({preventScroll: true});
    if (!plan) { refocus(); return; }  // the form was cancelled
    if (plan.error) {
      this.fail(card, plan.error);
      refocus();
      return;
    }
    this.moves.set(card.key, {to: target});
    this.draw();
    refocus();
    say(this.said, `${card.key} moving to ${column.name}: pending until Jira takes it.`);
    let write;
    try {
      write = await sendMove(card.key, plan);
      write = await follow(write, this.signal);  // null: the page was left
    } catch (error) {
      if (error.name === "AbortError" || this.signal.aborted) return;
      this.moves.delete(card.key);
      this.fail(card, error.description || error.message);
      return;
    }
    if (!write || this.signal.aborted) return;
    await this.read();
    this.moves.delete(card.key);
    if (write.status === "done") {
      this.draw();
      const now = this.board.issues.find((one) => one.key === card.key);
      const at = now ? this.board.columns[now.column]?.name : null;
      say(this.said, at ? `${card.key} is in ${at} now.` : `Jira moved ${card.key}.`);
    } else {
      this.fail(card, outcome(write));
    }
    refocus();
  }

  fail(card, message) {
    this.errors.set(card.key, message);
    this.draw();
    say(this.alert, `${card.key} was not moved: ${message}`, true);
  }

  /** Read the board again; true when it changed. */
  async read() {
    try {
      const board = await api.request("GET", this.path, {signal: this.signal});
      const text = JSON.stringify(board);
      if (text === this.text) return false;
      this.text = text;
      this.board = board;
      return true;
    } catch (error) {
      if (error.name !== "AbortError" && !this.signal.aborted) say(this.alert, `Could not read the board: ${error.message}`, true);
      return false;
    }
  }

  /** Read again every LIVE_MS while the tab is visible (at once when it comes back in view), until left. */
  async live() {
    const again = async () => {
      if (this.signal.aborted || document.visibilityState !== "visible") return;
      if (await this.read()) {
        if (this.busy) this.stale = true;
        else this.draw();
      }
    };
    const visible = () => { if (document.visibilityState === "visible") again(); };
    document.addEventListener("visibilitychange", visible);
    this.signal.addEventListener("abort", () => document.removeEventListener("visibilitychange", visible), {once: true});
    while (!this.signal.aborted) {
      await sleep(LIVE_MS, this.signal);
      await again();
    }
  }
}

function sprintLine(sprint) {
  if (!sprint) return h("p", {class: "sprint empty"}, "No active sprint: the board shows a sprint's issues once one is active.");
  return h("div", {class: "sprint"},
    h("p", {}, h("strong", {}, sprint.name), sprint.end_date ? [" · ends ", time(sprint.end_date)] : null),
    sprint.goal ? h("p", {class: "sprint-goal"}, "Goal: ", sprint.goal) : null);
}
