"""Commands: the work interfaces queue for agents and what agents report of it.

The kinds of command, one module each, and their registry (``kinds``); enqueueing (``queue``),
claims, leases and heartbeats (``dispatch``), reports (``reports``), batches, sync runs (their
rows in ``runs``, their listing and the full-run marking in ``sync_runs``), the agents known to
the hub, the refreshes the hub queues on its own (``schedule``) and the signal that wakes a
waiting claim (``work_signal``, the interface, and one module per engine).
"""
