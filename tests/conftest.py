"""Shared fixtures: every test gets its own data dir under ``tmp_path``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hub.config import Config
from tests.support import BROWSER_ARGS, chromium


def pytest_configure(config):
    # Task bodies run inline, in the test's thread, on the test's database.
    from worker.instance import huey

    huey.immediate = True


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium from the system's packages, driven by Playwright, for one
    test module; skipped without it (naming what is missing), failed with CI=true."""
    path, reason = chromium()
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests cannot run in CI: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=BROWSER_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def config(data_dir: Path) -> Config:
    return Config(data_dir=data_dir)


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
        from hub.services.tokens import TokenService

        startup.prepare(config)
        self.config = config
        self.clock = clock or TickingClock()
        if on_full_run_done is None:
            from worker.tasks import mark_neighbours as on_full_run_done
        # The worker's tasks run on what is built here: this hub's settings, services and clock.
        self.built = build(config, on_full_run_done, self.clock)
        self.app = create_app(self.built)
        self.client = falcon.testing.TestClient(self.app)
        tokens = TokenService()
        self.tokens = {role: tokens.add(f"test-{role}", role) for role in ("agent", "interface", "admin")}

    def headers(self, role: str | None) -> dict:
        return {"Authorization": f"Bearer {self.tokens[role]}"} if role else {}

    def agent(self, method: str, path: str, body=None, role: str | None = "agent"):
        return self.client.simulate_request(method, path, json=body, headers=self.headers(role))

    def api(self, method: str, path: str, body=None, role: str | None = "interface",
            headers: dict | None = None, **kwargs):
        return self.client.simulate_request(method, path, json=body,
                                            headers={**self.headers(role), **(headers or {})}, **kwargs)


@pytest.fixture
def make_hub(data_dir: Path):
    """``make_hub(clock=..., on_full_run_done=..., **settings)``: a Hub on this test's
    data dir with those settings."""

    def make(*, clock=None, on_full_run_done=None, **settings) -> Hub:
        return Hub(Config(data_dir=data_dir, **settings), clock=clock,
                   on_full_run_done=on_full_run_done)

    return make


@pytest.fixture
def hub(make_hub) -> Hub:
    return make_hub()
