// Bringing a write's form into view: it may sit in a tab panel not shown (the Work log tab),
// whose tab is selected first, as a reader clicking it would.

/** Select the tab whose panel holds node (when it is hidden), then scroll node into view. */
export function reveal(node) {
  const panel = node.closest("[role=tabpanel]");
  if (panel && (panel.hidden || !panel.checkVisibility?.())) {
    const tab = panel.id && document.querySelector(`[role=tab][aria-controls="${CSS.escape(panel.id)}"]`);
    tab?.click();
  }
  node.scrollIntoView?.({block: "nearest"});
}
