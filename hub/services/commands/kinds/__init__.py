"""The registry of command kinds: what each type of command is, in one module per kind.

A kind (:class:`Kind`) says everything the hub does differently for its type:

- its params, as the JSON Schema of each member (``/openapi.json`` shows them in
  ``POST /api/v1/commands``), the ones it cannot do without, and its own rule on
  their values (:meth:`Kind.checked_params`);
- who enqueues it (interfaces, or the hub alone: :attr:`Kind.refusal`) and how
  (:meth:`Kind.enqueue`: the open command of the same params answered, the batch
  joined, the locks and transaction it takes);
- the lowest agent protocol version that is given it (:attr:`Kind.since`);
- what an agent reports of it: state pages (:meth:`Kind.page`), a file
  (:attr:`Kind.files`), and the result its ``done`` must hold
  (:attr:`Kind.result_schema`, :meth:`Kind.done`).

:class:`~hub.services.commands.queue.CommandService`, the dispatcher and the report
service read the registry and branch on no type of their own; the API builds its
schemas from it. Adding a kind is one module here, registered in :data:`KINDS` by
the list at the end of this module, plus its docs and the agent's handler.
"""

from hub.services.commands.kinds import check_issues, fetch_attachment, refresh, write
from hub.services.commands.kinds.registry import (
    KINDS,
    Kind,
    Reporting,
    claimable,
    enqueued_by_interfaces,
    kind,
    names,
    open_same,
    opening_runs,
    register,
    spoken,
    taking_files,
    taking_pages,
    unbounded,
    unregister,
)

__all__ = ["KINDS", "Kind", "Reporting", "check_issues", "claimable", "enqueued_by_interfaces",
           "fetch_attachment", "kind", "names", "open_same", "opening_runs", "refresh", "register", "spoken",
           "taking_files", "taking_pages", "unbounded", "unregister", "write"]

# The kinds of this hub, in the order its lists and /openapi.json name them.
for _kind in (refresh.KIND, fetch_attachment.KIND, check_issues.KIND, write.KIND):
    register(_kind)
