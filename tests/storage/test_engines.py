"""The start check through the real ``hub`` command: an engine that cannot be used
stops ``hub serve``, ``hub worker`` and ``hub migrate`` with exit 2 and one line
naming the setting, never the password; a PostgreSQL that can be used is created
and migrated once, and its first admin token printed by one node however many start."""

from __future__ import annotations

import pytest

from hub.migrations import CURRENT_VERSION
from tests.support import run_script, start, stop, wait_for_line
from tests.support.engines import free_port, postgres_server, require

SECRET = "s3cr3t-Pa55"


def unreachable_postgres() -> str:
    """A PostgreSQL URL with a password, on a loopback port where nothing listens."""
    return f"postgresql://hub:{SECRET}@127.0.0.1:{free_port()}/hub"


def assert_one_line_exit_2(done, *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("hub: "), lines
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert SECRET not in done.stdout + done.stderr


@pytest.mark.parametrize("command", [("migrate",), ("worker",), ("serve", "--no-worker")])
def test_an_unreachable_database_stops_the_start_with_exit_2(tmp_path, command):
    done = run_script(*command, data_dir=tmp_path / "data", HUB_DATABASE_URL=unreachable_postgres())
    assert_one_line_exit_2(done, "HUB_DATABASE_URL", "cannot reach PostgreSQL", "hub:***@127.0.0.1")
    assert not (tmp_path / "data" / "hub.sqlite").exists()


def test_a_password_given_as_a_parameter_is_not_shown_either(tmp_path):
    url = f"postgresql://127.0.0.1:{free_port()}/hub?user=hub&password={SECRET}"
    done = run_script("migrate", data_dir=tmp_path / "data", HUB_DATABASE_URL=url)
    assert_one_line_exit_2(done, "HUB_DATABASE_URL", "password=***")


def test_a_refused_login_names_the_cause_not_the_password(tmp_path):
    server, reason = postgres_server()
    require(reason)
    role = f"hub_checked_{free_port()}"
    server.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'right-one'")
    try:
        # The test server trusts loopback logins: ask it for a database the role may not reach.
        name = server.create_database(prefix="hub_closed")
        server.execute(f'REVOKE CONNECT ON DATABASE "{name}" FROM PUBLIC')
        host = server.admin_url.split("@", 1)[1].split("/", 1)[0]
        done = run_script("migrate", data_dir=tmp_path / "data",
                          HUB_DATABASE_URL=f"postgresql://{role}:{SECRET}@{host}/{name}")
        assert_one_line_exit_2(done, "HUB_DATABASE_URL", f"{role}:***@")
        server.drop_database(name)
    finally:
        server.execute(f"DROP ROLE {role}")


def test_an_unreachable_redis_queue_stops_the_worker_with_exit_2(tmp_path):
    done = run_script("worker", data_dir=tmp_path / "data",
                      HUB_QUEUE_URL=f"redis://:{SECRET}@127.0.0.1:{free_port()}/0")
    assert_one_line_exit_2(done, "HUB_QUEUE_URL", "cannot reach Redis", ":***@127.0.0.1")


def test_an_unreachable_store_stops_the_start_with_exit_2(tmp_path):
    done = run_script("migrate", data_dir=tmp_path / "data", HUB_STORE_URL="s3://hub-files/team",
                      AWS_ENDPOINT_URL=f"http://127.0.0.1:{free_port()}", AWS_ACCESS_KEY_ID="hub",
                      AWS_SECRET_ACCESS_KEY=SECRET, AWS_REGION="us-east-1")
    assert_one_line_exit_2(done, "HUB_STORE_URL", "'hub-files'")


def test_a_command_on_a_database_without_a_hub_is_refused(tmp_path):
    server, reason = postgres_server()
    require(reason)
    name = server.create_database(prefix="hub_empty")
    try:
        done = run_script("token", "list", data_dir=tmp_path / "data", HUB_DATABASE_URL=server.url(name))
        assert done.returncode == 2 and "no hub in the database" in done.stderr, done.stderr
        assert server.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", name) == [(0,)]
    finally:
        server.drop_database(name)


def test_nodes_starting_at_once_create_the_hub_once_and_print_one_admin_token(tmp_path):
    """Three nodes of one hub, each with its own data dir, started together on an empty
    database: the schema is made once and exactly one of them prints the admin token."""
    server, reason = postgres_server()
    require(reason)
    name = server.create_database(prefix="hub_nodes")
    nodes = [start("serve", "--no-worker", data_dir=tmp_path / f"node{i}", HUB_DATABASE_URL=server.url(name))
             for i in range(3)]
    try:
        for node in nodes:
            wait_for_line(node, r"serving on http://", timeout=90)
        printed = [node for node in range(3) if (tmp_path / f"node{node}" / "admin.token").exists()]
        assert len(printed) == 1, printed
        assert server.execute("SELECT name, role FROM token", name) == [("admin", "admin")]
        version = server.execute("SELECT value FROM setting WHERE key = 'schema_version'", name)
        assert version == [(str(CURRENT_VERSION),)]
    finally:
        for node in nodes:
            stop(node)
        server.drop_database(name)


def test_a_server_older_than_the_hub_needs_or_without_its_extension_is_refused(monkeypatch):
    """The real server, held to a version it is below and an extension it lacks: each check says
    which, in one line (no older server or one without unaccent is at hand to start)."""
    from hub import engine_check

    server, reason = postgres_server()
    require(reason)
    url = server.url("postgres")
    engine_check.check_database(url)  # as it is, the server is enough
    monkeypatch.setattr(engine_check, "MIN_POSTGRES_VERSION", 990000)
    with pytest.raises(engine_check.EngineUnavailable, match=r"is version \d+.*the hub needs 99 or later"):
        engine_check.check_database(url)
    monkeypatch.setattr(engine_check, "MIN_POSTGRES_VERSION", 140000)
    monkeypatch.setattr(engine_check, "REQUIRED_EXTENSIONS", ("unaccent", "no_such_extension"))
    with pytest.raises(engine_check.EngineUnavailable, match=r"lacks the extension\(s\) no_such_extension \("):
        engine_check.check_database(url)
