"""A write checked at the edge against what the mirror knows, before anything is queued.

Each refusal is a ContractError (422) naming the field. What the mirror cannot know is left to
Jira, whose refusal ends the write ``failed`` in Jira's own words.
"""

from __future__ import annotations

from hub.errors import ContractError
from hub.models import Issue
from hub.services.mirror.aliases import current_issue
from hub.vocabulary import CREATE_ISSUE


def check(op: str, key: str | None, params: dict) -> Issue | None:
    """The issue ``key`` names (its current key, should it have moved), once the write is one the
    mirror does not refuse; None for a new issue."""
    if op == CREATE_ISSUE:
        return None
    issue = current_issue(key or "")
    if issue is None:
        raise ContractError(f"key: no issue {key!r} in the mirror; a write goes to an issue the hub "
                            "mirrors (refresh it first)", "key")
    if issue.gone_at is not None:
        raise ContractError(f"key: issue {issue.key} is gone from Jira ({issue.gone_reason}); "
                            "nothing can be written to it", "key")
    return issue
