"""Schemathesis hooks for tests/api/test_fuzz.py.

Long-polls (``wait`` on claims and attachment reads) may hold a request for
up to 30 s; valid waits are cut to one second so that the run stays short.
Invalid ones are left alone: they are refused at once, and must be.
"""

from __future__ import annotations

import schemathesis


def _short(container):
    if isinstance(container, dict):
        wait = container.get("wait")
        if isinstance(wait, (int, float)) and not isinstance(wait, bool) and 1 < wait <= 30:
            container["wait"] = 1
        elif isinstance(wait, str) and wait.isdigit() and 1 < int(wait) <= 30:
            container["wait"] = "1"
    return container


@schemathesis.hook
def map_case(context, case):
    _short(case.body)
    _short(case.query)
    return case
