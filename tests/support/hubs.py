"""The hub the tests build in process, and the clocks they give it.

:class:`Hub` is the one app the tests use (the ``hub`` and ``make_hub`` fixtures of
tests/conftest.py make it); :class:`MovableClock` and :class:`TickingClock` set its time.
:func:`built_services` wires a hub's services alone, as the builder does, for a test
that calls them without an app.
"""

from __future__ import annotations

from hub.config import Config


def built_services(config: Config, *, clock=None, store=None, on_full_run_done=None):
    """The services of the hub ``config`` describes, wired by the builder
    (:func:`hub.assembly.build_services`) as a served hub's are, on the database the test
    opened: ``clock`` sets their time (the real one by default), ``store`` is their file
    store (by default the one the settings name), ``on_full_run_done`` what a full run's
    end calls (by default nothing). A test that needs other bounds (a lease, a limit)
    gives them as settings: ``dataclasses.replace(config, lease_seconds=60)``."""
    from hub.assembly import build_services

    return build_services(config, on_full_run_done or (lambda run_id: None), clock, store)


class MovableClock:
    """A clock for lease tests: now() is what the test says it is."""

    def __init__(self, start: str = "2026-11-02T09:00:00+00:00"):
        from datetime import datetime

        self.moment = datetime.fromisoformat(start)

    def now(self):
        return self.moment

    def advance(self, seconds: float) -> None:
        from datetime import timedelta

        self.moment += timedelta(seconds=seconds)


class TickingClock(MovableClock):
    """Real time to start with, then one second later at every reading, so that
    each event a test causes has its own time (the hub writes whole seconds)."""

    def __init__(self):
        from hub.clock import Clock, iso

        super().__init__(iso(Clock().now()))

    def now(self):
        self.advance(1)
        return self.moment


class Hub:
    """A migrated hub on its own data dir, with a TestClient and one token per role.

    The one app the tests build: ``clock`` sets the time (a TickingClock by
    default), ``on_full_run_done`` replaces the worker's enqueue (by default the
    real task, run inline: Huey is in immediate mode in tests).
    """

    def __init__(self, config: Config, *, clock=None, on_full_run_done=None):
        import falcon.testing

        from hub import startup
        from hub.api.app import create_app
        from hub.assembly import build

        startup.prepare(config)
        self.config = config
        self.clock = clock or TickingClock()
        if on_full_run_done is None:
            from worker.tasks import mark_neighbours as on_full_run_done
        # The worker's tasks run on what is built here: this hub's settings, services and clock.
        self.built = build(config, on_full_run_done, self.clock)
        self.app = create_app(self.built)
        self.client = falcon.testing.TestClient(self.app)
        tokens = self.built.services.tokens
        self.tokens = {role: tokens.add(f"test-{role}", role) for role in ("agent", "interface", "admin")}

    def close(self) -> None:
        """Let go of what the build opened (:meth:`hub.assembly.Built.close`): the work signal's
        listener, above all, which would otherwise outlive the test's database."""
        self.built.close()

    def headers(self, role: str | None) -> dict:
        return {"Authorization": f"Bearer {self.tokens[role]}"} if role else {}

    def agent(self, method: str, path: str, body=None, role: str | None = "agent"):
        return self.client.simulate_request(method, path, json=body, headers=self.headers(role))

    def api(self, method: str, path: str, body=None, role: str | None = "interface",
            headers: dict | None = None, **kwargs):
        return self.client.simulate_request(method, path, json=body,
                                            headers={**self.headers(role), **(headers or {})}, **kwargs)
