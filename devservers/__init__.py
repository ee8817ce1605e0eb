"""Real servers (PostgreSQL, ...) started for a test run or a benchmark, ended with it.

Nothing here is a mock, and nothing here is part of the hub: the tests (``tests/support``)
and the benchmarks (``bench/``) both start their servers from here, so that neither imports
the other. :mod:`devservers.launch` says how a server is had once per run (free ports, the
reason none can be had), :mod:`devservers.postgres` starts PostgreSQL from the machine's own
packages, and :mod:`devservers.reaper` ends every server a process started when that process
is killed.
"""
