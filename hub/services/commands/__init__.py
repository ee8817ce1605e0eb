"""Commands: the work interfaces queue for agents and what agents report of it.

Enqueueing (``queue``), claims, leases and heartbeats (``dispatch``), reports (``reports``),
batches, sync runs, the agents known to the hub, the refreshes the hub queues on its own
(``schedule``) and the signal that wakes a waiting claim (``work_signal``).
"""
