// The issue page's actions: the writes a token may make, drawn into the page's containers.

/**
 * Mount the writes' controls on an issue page. ctx: {issue, may, containers, signal, reload}.
 * Returns {update(issue)}, called with every fresh read of the issue.
 */
export function mountWrites(ctx) {
  return {update() {}};
}
