"""Domain errors: what a service raises when a request cannot be carried out.

Services know nothing of HTTP; :mod:`hub.api.errors` is the one place that maps
these to statuses. Each error names what went wrong in words a client can act on.
"""

from __future__ import annotations


class HubError(Exception):
    """Base of the errors a client can cause; ``title`` is a short summary."""

    title = "Request failed"

    def __init__(self, description: str, **extra):
        super().__init__(description)
        self.description = description
        # More members of the error body, e.g. the state that made a request conflict.
        self.extra = extra


class NotFound(HubError):
    title = "Not found"


class Forbidden(HubError):
    """The token may not do this to this object (another token's saved filter, ...)."""

    title = "Forbidden"


class Conflict(HubError):
    """The request does not fit the current state (a command already finished, ...)."""

    title = "Conflict"


class ContractError(HubError):
    """Valid JSON that breaks the contract; ``field`` names the offending field."""

    title = "Invalid request"

    def __init__(self, description: str, field: str | None = None):
        super().__init__(description, **({"field": field} if field else {}))


class Unauthenticated(HubError):
    """The request's token no longer exists: revoked while the request waited."""

    title = "Unknown token"


class BadRequest(HubError):
    """The request cannot be read as sent (a body cut short, ...)."""

    title = "Bad request"


class TooLarge(HubError):
    title = "Too large"


class TooMany(HubError):
    """The token already keeps as many of something as the hub lets one token keep at once
    (queued commands): nothing was changed. ``retry_after`` is the seconds the client is told
    to wait, by when agents may have taken some of them."""

    title = "Too many requests"

    def __init__(self, description: str, retry_after: int = 60):
        super().__init__(description)
        self.retry_after = retry_after


class InvalidQuery(ContractError):
    """A JQL query that does not parse or that the mirror cannot answer: the message as
    Jira words it, and where (``at``: the character, 1-based, on line 1; None for the whole
    query), which the answer carries as ``position``."""

    def __init__(self, message: str, at: int | None = None, field: str = "jql"):
        super().__init__(message, field)
        self.at = at
        if at is not None:
            self.extra["position"] = {"line": 1, "character": at}


class TooSlow(HubError):
    """A query that ran past its time bound and was interrupted; nothing was changed.
    ``retry_after`` is the seconds the client is told to wait."""

    title = "Query too slow"

    def __init__(self, description: str, retry_after: int = 5):
        super().__init__(description)
        self.retry_after = retry_after


class Unavailable(HubError):
    """Something the hub stands on (the S3 file store) cannot be reached just now;
    nothing was changed. ``retry_after`` is the seconds the client is told to wait."""

    title = "Service unavailable"

    def __init__(self, description: str, retry_after: int = 5):
        super().__init__(description)
        self.retry_after = retry_after
