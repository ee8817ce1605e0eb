"""Running Huey's consumer: in its own process (``hub worker``) or beside the API."""

from __future__ import annotations

import signal

from huey import Huey
from huey.consumer import Consumer

WORKERS = 2


def create_consumer(huey: Huey) -> Consumer:
    """A thread consumer with periodic tasks, the kind both ways of running use."""
    return huey.create_consumer(workers=WORKERS, worker_type="thread", periodic=True)


def run_forever(huey: Huey) -> None:
    """Run the consumer in this process until SIGINT or SIGTERM (``hub worker``)."""
    create_consumer(huey).run()


def start_in_process(huey: Huey) -> Consumer:
    """Start the consumer's threads beside the caller's own main loop (``hub serve``).

    Huey's ``start`` installs signal handlers that only its own ``run`` loop
    reads; the server's loop runs instead, so the usual handlers are put back
    and the caller stops the consumer when its loop ends.
    """
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    consumer = create_consumer(huey)
    consumer.start()
    for sig, handler in saved.items():
        signal.signal(sig, handler)
    return consumer
