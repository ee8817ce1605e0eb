// Drawing a part of a page anew while the reader uses it (the issues list read again every
// few seconds): the focus kept on the same link or button, and a wait while the tab is hidden.

// What a focused element is, so that the same one can be focused again once its container is
// drawn anew (a link by its address, a header by its order, a facet by its name and value).
function focusKey(element) {
  const facet = element.closest("[data-facet]")?.getAttribute("data-facet") || "";
  const name = element.querySelector(".facet-name")?.textContent ?? element.textContent;
  return [element.tagName, element.getAttribute("href"), element.getAttribute("data-sort"), facet, name].join("\u0000");
}

/** Draw container anew with redraw(), the focus kept on the same link or button when it was in it. */
export function keepingFocus(container, redraw) {
  const active = document.activeElement;
  const key = active && active !== container && container.contains(active) ? focusKey(active) : null;
  redraw();
  if (key === null) return;
  const again = [...container.querySelectorAll("a, button, summary")].find((one) => focusKey(one) === key);
  again?.focus({preventScroll: true});
}

/** A promise that resolves once the tab is visible again, or signal aborts. */
export function visible(signal) {
  return new Promise((resolve) => {
    const done = () => {
      if (document.hidden && !signal.aborted) return;
      document.removeEventListener("visibilitychange", done);
      resolve();
    };
    document.addEventListener("visibilitychange", done);
    signal.addEventListener("abort", done, {once: true});
  });
}
