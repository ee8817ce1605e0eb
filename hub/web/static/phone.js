// The issues page on a narrow screen (a phone, 390 px): the results read as cards, one per
// issue, each line named by its column (the filters fold behind "Filters (n)" on every
// screen: issues.js). On a wide screen the rows are a table: app.css decides by the screen's
// width, this module only names the cells.
//
// Also the page's title (titled): what the tab, the history and bookmarks show.

/** The page's title: the parts given, then the hub's name ("AURORA-12 · Summary · sdlc-hub"). */
export function titled(...parts) {
  document.title = [...parts.filter((part) => part), "sdlc-hub"].join(" · ");
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
