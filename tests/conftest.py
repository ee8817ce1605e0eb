"""Shared fixtures: every test gets its own data dir under ``tmp_path``."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from hub.config import Config
from tests.support import BROWSER_ARGS, chromium

BACKENDS = ("sqlite", "postgresql")


def pytest_configure(config):
    # Task bodies run inline, in the test's thread, on the test's database.
    from worker.instance import huey

    huey.immediate = True
    config.addinivalue_line(
        "markers", "backends(*names, shared=False): run the test's hub on each engine named (sqlite, "
        "postgresql), with shared=True one hub per engine for the module; HUB_TEST_BACKENDS narrows the choice "
        "for a run")
    config.addinivalue_line(
        "markers", "long: a module whose tests take minutes in all; such modules run first")


def pytest_collection_modifyitems(config, items):
    """Modules marked ``long`` first, the rest after, each group in file order: with the
    Makefile's ``-n 3 --dist loadfile --no-loadscope-reorder`` a process takes a whole module
    at a time, in this order, and a long module started last would keep one process running
    for minutes after the others had finished."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


def pytest_generate_tests(metafunc):
    """A test under ``@pytest.mark.backends(...)`` that uses a hub runs once per engine named.

    ``backends(..., shared=True)`` on a module whose tests share one hub per engine (a
    module-scoped fixture built on ``backend``) makes ``backend`` module-scoped there: the
    module's tests run engine by engine, each engine's hub made once.
    """
    marker = metafunc.definition.get_closest_marker("backends")
    if marker is None or "backend" not in metafunc.fixturenames:
        return
    wanted = [name.strip() for name in os.environ.get("HUB_TEST_BACKENDS", ",".join(BACKENDS)).split(",")]
    names = [name for name in marker.args if name in wanted] or list(marker.args[:1])
    shared = any(mark.kwargs.get("shared") for mark in metafunc.definition.iter_markers("backends"))
    # Given directly, the parameter stands in for the fixture below, at the scope asked for.
    metafunc.parametrize("backend", names, scope="module" if shared else "function")


@pytest.fixture
def backend() -> str:
    """The engine of a test's hub that is not parametrised: ``sqlite``."""
    return "sqlite"


@pytest.fixture(scope="session")
def postgres_template():
    """A database migrated once per run, copied for each test that runs on PostgreSQL;
    the server and the template's name."""
    from hub.migrations.postgres import migrate_postgres
    from tests.engines import postgres_server, require

    server, reason = postgres_server()
    require(reason)
    name = server.create_database(prefix="hub_template")
    migrate_postgres(server.url(name))
    yield server, name
    server.drop_database(name)


@pytest.fixture
def database_url(backend, request) -> str | None:
    """For a test on PostgreSQL, the URL of a database of its own at the current schema."""
    if backend != "postgresql":
        yield None
        return
    server, template = request.getfixturevalue("postgres_template")
    name = server.create_database(template=template)
    yield server.url(name)
    from hub.db import database

    if database.obj is not None and getattr(database.obj, "database", None) == name:
        database.obj.close()
    server.drop_database(name)


@pytest.fixture(scope="module")
def module_database_url(backend, request) -> str | None:
    """For a module whose tests share one hub, and so make ``backend`` a module-scoped
    fixture of their own: None on SQLite (the data dir's file), else the URL of a
    PostgreSQL database of the module's own at the current schema, dropped after."""
    from tests.engine_support import engine_database

    with engine_database(request, backend) as url:
        yield url


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
def config(data_dir: Path, database_url) -> Config:
    return Config(data_dir=data_dir, database_url=database_url)


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
        from hub.services.access.tokens import TokenService

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


@pytest.fixture
def make_hub(data_dir: Path, database_url):
    """``make_hub(clock=..., on_full_run_done=..., **settings)``: a Hub on this test's
    data dir (and database, on PostgreSQL) with those settings; each one made is closed
    when the test ends, before its database goes."""
    made: list[Hub] = []

    def make(*, clock=None, on_full_run_done=None, **settings) -> Hub:
        settings.setdefault("database_url", database_url)
        made.append(Hub(Config(data_dir=data_dir, **settings), clock=clock,
                        on_full_run_done=on_full_run_done))
        return made[-1]

    yield make
    with contextlib.ExitStack() as closing:  # every one closed (the last made first) whatever one raises
        for made_hub in made:
            closing.callback(made_hub.close)


@pytest.fixture
def hub(make_hub) -> Hub:
    return make_hub()
