"""How ``hub serve`` runs waitress: its settings, and the open-files limit they need.

Behind a proxy that terminates TLS the hub must see the scheme the client used
(the session cookie's ``Secure``, the origin a signed-in page's writes must come
from: :func:`hub.api.auth.over_tls`). waitress believes proxy headers from one
address only (its ``trusted_proxy``, or ``*`` for anyone), and by default it
deletes them all from the request before the app sees it. So
:func:`proxy_settings` hands waitress ``HUB_TRUSTED_PROXIES`` when it names one
address, and waitress itself takes that peer's ``X-Forwarded-Proto`` as the
request's scheme and deletes everyone else's. When it names several, waitress
passes the header on and the hub believes it from those peers alone (the same
check, in :func:`hub.api.auth.over_tls`); when it names none, waitress deletes it
from every request.
"""

from __future__ import annotations

import logging
import resource
from typing import Any

from hub.config import Config

log = logging.getLogger(__name__)

# waitress reads request bodies 8 KiB per recv() by default, which makes it,
# not the disk, the bottleneck of a large upload.
RECV_BYTES = 256 * 1024
# Requests waitress reads ahead on a connection while one runs there. Any
# value above 0 keeps the socket watched during a request, which is what lets
# a long-poll see that its client has gone; a small one bounds what a
# pipelining client can queue.
REQUEST_LOOKAHEAD = 2
# Connections the kernel queues while waitress is at its connection limit;
# Linux caps it at net.core.somaxconn.
MIN_BACKLOG = 1024
# File descriptors besides client connections: the databases, their WAL and
# shared-memory files, log files, the worker's queue, uploads being spooled.
SPARE_FILES = 256


def waitress_settings(config: Config) -> dict[str, Any]:
    """The keyword arguments for ``waitress.create_server``."""
    return {
        "host": config.host,
        "port": config.port,
        "threads": config.threads,
        "connection_limit": config.connection_limit,
        "channel_timeout": config.channel_timeout,
        # Idle connections are closed at the first sweep after channel_timeout;
        # sweeping a few times per timeout keeps them from lingering much longer.
        "cleanup_interval": max(1, min(30, config.channel_timeout // 4)),
        "channel_request_lookahead": REQUEST_LOOKAHEAD,
        "backlog": max(MIN_BACKLOG, config.connection_limit),
        # waitress refuses a body when content_length >= this; one above the
        # largest body the hub takes keeps both limits inclusive. The hub
        # checks each route's own limit itself.
        "max_request_body_size": max(config.max_upload_bytes, config.max_json_bytes) + 1,
        "recv_bytes": RECV_BYTES,
        **proxy_settings(config.trusted_proxies),
    }


def proxy_settings(trusted_proxies: tuple[str, ...]) -> dict[str, Any]:
    """waitress's proxy settings for the addresses of ``HUB_TRUSTED_PROXIES`` (see the module's doc).

    Only ``X-Forwarded-Proto`` is taken: the hub reads no other proxy header, and
    waitress would put ``X-Forwarded-For``'s client in ``REMOTE_ADDR``, where the
    hub looks for the proxy's own address.
    """
    peers = set(trusted_proxies)
    if len(peers) == 1:
        return {"trusted_proxy": peers.pop(), "trusted_proxy_headers": {"x-forwarded-proto"},
                "clear_untrusted_proxy_headers": True}
    # Several: waitress cannot name them, and trusting "*" would take anyone's word.
    return {"clear_untrusted_proxy_headers": not peers}


def files_needed(config: Config) -> int:
    """Open files the hub may need at its connection limit.

    Each connection is a socket, and a download a client reads slowly keeps its
    file open as well, without a thread: two per connection.
    """
    return 2 * config.connection_limit + SPARE_FILES


def raise_open_files_limit(needed: int) -> int:
    """Raise RLIMIT_NOFILE's soft limit toward ``needed`` (at most the hard limit).

    Returns the soft limit in force afterwards; logs a warning when it stays
    below ``needed``, since connections past it are refused by the kernel
    rather than queued.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("could not raise the open files limit from %d to %d: %s", soft, target, exc)
    if soft != resource.RLIM_INFINITY and soft < needed:
        log.warning("open files limit is %d (hard limit %s); HUB_CONNECTION_LIMIT needs about %d: "
                    "lower HUB_CONNECTION_LIMIT or raise the limit (ulimit -n, LimitNOFILE=)",
                    soft, hard, needed)
    return soft
