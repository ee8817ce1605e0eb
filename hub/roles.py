"""Who may call a route: the role sets every edge that serves routes declares.

A resource names one of these in its ``roles`` attribute (see
:mod:`hub.api.auth`, which checks them). They live apart from the API so that
the web interface's resources, another edge, can say who may read them without
importing the API's middleware.
"""

from __future__ import annotations

from hub import vocabulary

PUBLIC: frozenset[str] = frozenset()
AGENT = frozenset({vocabulary.AGENT})
INTERFACE = frozenset({vocabulary.INTERFACE, vocabulary.ADMIN})
ADMIN = frozenset({vocabulary.ADMIN})
METRICS = frozenset({vocabulary.METRICS, vocabulary.ADMIN})
# Any token the hub knows, whatever its role.
ANY = frozenset(vocabulary.TOKEN_ROLES)
