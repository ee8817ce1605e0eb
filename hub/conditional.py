"""HTTP conditional requests, as every edge that serves files answers them.

The API's downloads and the web interface's files both answer 304 by
:func:`etag_matches`; it lives below both edges so that neither imports the other.
"""

from __future__ import annotations


def etag_matches(header: str | None, etag: str) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (weak comparison, or ``*``).

    The header is ``*`` or a list of tags, each maybe ``W/``-prefixed (RFC 9110
    section 13.1.2: If-None-Match compares weakly).
    """
    if not header:
        return False
    if header.strip() == "*":
        return True
    tags = [t.strip().removeprefix("W/") for t in header.split(",")]
    return etag in tags
