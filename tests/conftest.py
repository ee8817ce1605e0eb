"""Shared fixtures: every test gets its own data dir under ``tmp_path``."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from hub.config import Config
from tests.support import BROWSER_ARGS, chromium
from tests.support.hubs import Hub

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
    config.addinivalue_line(
        "markers", "browser: a test that drives Chromium (given to each test using the browser fixture); "
        "make check leaves these out")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Modules marked ``long`` first, the rest after, each group in file order: with the
    Makefile's ``-n 3 --dist loadfile --no-loadscope-reorder`` a process takes a whole module
    at a time, in this order, and a long module started last would keep one process running
    for minutes after the others had finished. A test that uses the ``browser`` fixture is
    marked ``browser`` here, for ``-m "not browser"`` (make check) to leave it out: tryfirst,
    so that the mark is there before ``-m`` selects."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


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
    from tests.support.engines import postgres_server, require

    server, reason = postgres_server()
    require(reason)
    name = server.create_database(prefix="hub_template")
    migrate_postgres(server.url(name))
    yield server, name
    server.drop_database(name)


@pytest.fixture(scope="session")
def postgres_copies(postgres_template):
    """Copies of the template for the tests on PostgreSQL, made ahead by a thread of this
    process (tests/support/pg_copies.py): a test waits for none."""
    from tests.support.pg_copies import TemplateCopies

    copies = TemplateCopies(*postgres_template)
    yield copies
    copies.close()


@pytest.fixture
def database_url(backend, request) -> str | None:
    """For a test on PostgreSQL, the URL of a database of its own at the current schema."""
    if backend != "postgresql":
        yield None
        return
    copies = request.getfixturevalue("postgres_copies")
    name = copies.take()
    yield copies.server.url(name)
    from hub.db import database

    if database.obj is not None and getattr(database.obj, "database", None) == name:
        database.obj.close()
    copies.give_back(name)


@pytest.fixture(scope="module")
def module_database_url(backend, request) -> str | None:
    """For a module whose tests share one hub, and so make ``backend`` a module-scoped
    fixture of their own: None on SQLite (the data dir's file), else the URL of a
    PostgreSQL database of the module's own at the current schema, dropped after."""
    from tests.support.engine_rows import engine_database

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
