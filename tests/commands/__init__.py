"""The command queue, claims, leases, reports and the hub's own refreshes."""
