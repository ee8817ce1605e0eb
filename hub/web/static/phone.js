// The issues page on a narrow screen (a phone, 390 px): the filters fold behind
// one button, "Filters (3)", that says how many are set and opens them, and the
// results read as cards, one per issue, each line named by its column. On a wide
// screen the button is not shown and nothing is folded: app.css decides by the
// screen's width (its "phone" section), this module only marks what may fold.
//
// Also the page's title (titled): what the tab, the history and bookmarks show.

import {h} from "./dom.js";

/** The page's title: the parts given, then the hub's name ("AURORA-12 · Summary · sdlc-hub"). */
export function titled(...parts) {
  document.title = [...parts.filter((part) => part), "sdlc-hub"].join(" · ");
}

/**
 * Fold the filters of form behind one button, put after keep (else first). What stays in
 * view when folded: keep (the search box's field) and the form's buttons. The button counts
 * the filters that hold a value, and follows them as they change.
 */
export function foldFilters(form, keep) {
  form.id ||= "filters";
  const toggle = h("button", {type: "button", class: "secondary filters-toggle", "aria-expanded": "false",
                              "aria-controls": form.id});
  const folding = [...form.children].filter((child) => child !== keep && !child.classList.contains("buttons"));
  for (const child of folding) child.classList.add("foldable");
  const count = () => {
    const set = folding.flatMap((child) => [...child.querySelectorAll("input, select, textarea")])
      .filter((input) => input.value.trim() !== "").length;
    toggle.textContent = set ? `Filters (${set})` : "Filters";
  };
  toggle.addEventListener("click", () => {
    const open = form.classList.toggle("unfolded");
    toggle.setAttribute("aria-expanded", String(open));
    if (open) form.querySelector(".foldable input, .foldable select")?.focus();
  });
  form.addEventListener("input", count);
  form.addEventListener("change", count);
  form.classList.add("folds");
  if (keep) keep.after(toggle);
  else form.prepend(toggle);
  count();
  return toggle;
}

/**
 * Let the results of container read as cards on a narrow screen: each cell of each table put
 * in it (now or later, as pages load) is named by its column's header (data-label), which
 * app.css writes before the value when the rows are cards.
 */
export function cards(container) {
  const label = () => {
    for (const table of container.querySelectorAll("table")) {
      table.classList.add("cards");
      const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
      for (const row of table.querySelectorAll("tbody tr")) {
        [...row.children].forEach((cell, at) => {
          if (names[at] && !cell.hasAttribute("data-label")) cell.setAttribute("data-label", names[at]);
        });
      }
    }
  };
  new MutationObserver(label).observe(container, {childList: true, subtree: true});
  label();
}
