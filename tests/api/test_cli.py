"""``hub`` as an operator runs it: ``main(argv)`` in-process, and the installed console
script in a subprocess where the process is the point (exit status, usage errors)."""

from __future__ import annotations

import argparse
import sqlite3

import pytest

from hub.cli import build_parser
from hub.migrations import CURRENT_VERSION
from tests.support import created_hub, engine_rows, hub_config, run_hub, run_script
from tests.support.dbfactory import make_db, schema_version
from tests.support.engine_rows import engine_settings

# What a command does to a hub runs on both engines; a test of the command line alone (usage,
# --help, a setting refused before anything is opened) takes no engine and runs once.
pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture
def empty_database_url(backend, request):
    """No hub yet: on PostgreSQL the URL of an empty database of this test's own (None on SQLite,
    whose hub is the data dir's hub.sqlite)."""
    if backend != "postgresql":
        yield None
        return
    server, _template = request.getfixturevalue("postgres_template")
    name = server.create_database(prefix="hub_empty")
    yield server.url(name)
    from hub.db import database

    # A command run in this process may have left its connection to the database bound.
    if database.obj is not None and getattr(database.obj, "database", None) == name:
        database.obj.close()
    server.drop_database(name)


@pytest.mark.backends("sqlite")  # hub.sqlite of each older schema migrated on: SQLite's migration history
@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
def test_migrate_prints_old_and_new_version_and_the_backup(tmp_path, version):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    make_db(data_dir / "hub.sqlite", version)

    first = run_hub("migrate", data_dir=data_dir)

    assert first.returncode == 0, first.stderr
    [backup] = (data_dir / "backups").glob("*.sqlite")
    assert f"schema v{version} → v{CURRENT_VERSION}; backup {backup}" in first.stdout
    assert schema_version(data_dir / "hub.sqlite") == CURRENT_VERSION

    again = run_hub("migrate", data_dir=data_dir)
    assert again.returncode == 0
    assert f"is at schema v{CURRENT_VERSION}; nothing to migrate" in again.stdout


def test_migrate_creates_a_new_database(tmp_path, empty_database_url):
    engine = engine_settings(empty_database_url)
    result = run_hub("migrate", data_dir=tmp_path / "data", **engine)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("created ") and f"at schema v{CURRENT_VERSION}" in result.stdout
    config = hub_config(tmp_path / "data", empty_database_url)
    version = engine_rows.rows(config, "SELECT value FROM setting WHERE key = 'schema_version'")
    assert version == [(str(CURRENT_VERSION),)]
    again = run_hub("migrate", data_dir=tmp_path / "data", **engine)
    assert again.returncode == 0 and f"is at schema v{CURRENT_VERSION}; nothing to migrate" in again.stdout


@pytest.mark.backends("sqlite")  # a hub.sqlite whose schema is made newer by hand: SQLite's migration history
def test_migrate_refuses_a_newer_database_and_says_why(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    db = make_db(data_dir / "hub.sqlite", 5)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE setting SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()

    result = run_hub("migrate", data_dir=data_dir)

    assert result.returncode == 1
    assert "newer than this hub" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_configuration_names_the_variable(tmp_path):
    result = run_script("migrate", data_dir=tmp_path / "data", HUB_PORT="eighty")
    assert result.returncode == 2
    assert "HUB_PORT must be an integer" in result.stderr
    assert not (tmp_path / "data").exists()


def test_unknown_command_is_a_usage_error(tmp_path):
    result = run_script("frobnicate", data_dir=tmp_path / "data")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


def test_projects_and_scope_make_the_base_jql(tmp_path, database_url):
    data_dir = created_hub(tmp_path / "data", database_url)
    engine = engine_settings(database_url)
    assert "base JQL: (none: add a project)" in run_hub("project", "list", data_dir=data_dir, **engine).stdout
    added = run_hub("project", "add", "AWPCA", "--name", "АРМ КА", "--board-id", "4216",
                    "--board-type", "scrum", data_dir=data_dir, **engine)
    assert added.returncode == 0, added.stderr
    assert 'base JQL: labels in ("AWPCA")' in added.stdout
    assert run_hub("scope", "set", "project = AURORA", data_dir=data_dir, **engine).returncode == 0
    run_hub("project", "add", "KPI", "--name", "KPI", data_dir=data_dir, **engine)
    listed = run_hub("project", "list", data_dir=data_dir, **engine).stdout.splitlines()
    assert listed == ["AWPCA\tАРМ КА\tscrum board 4216", "KPI\tKPI\tno board",
                      'base JQL: project = AURORA AND labels in ("AWPCA", "KPI")']
    duplicate = run_hub("project", "add", "KPI", "--name", "again", data_dir=data_dir, **engine)
    assert duplicate.returncode == 1 and "exists" in duplicate.stderr
    half = run_hub("project", "add", "X", "--name", "X", "--board-id", "1", data_dir=data_dir, **engine)
    assert half.returncode == 1 and "go together" in half.stderr
    removed = run_hub("project", "remove", "KPI", data_dir=data_dir, **engine)
    assert 'base JQL: project = AURORA AND labels in ("AWPCA")' in removed.stdout
    assert run_hub("project", "remove", "KPI", data_dir=data_dir, **engine).returncode == 1


@pytest.mark.parametrize("cron", ["*/0 * * * *", "99 99 * * *"])
def test_a_bad_cleanup_cron_stops_serve_before_anything_is_created(tmp_path, cron):
    result = run_hub("serve", "--no-worker", data_dir=tmp_path / "data", HUB_CLEANUP_CRON=cron,
                     HUB_PORT="0")
    assert result.returncode == 2
    assert result.stderr.startswith("hub: configuration: HUB_CLEANUP_CRON")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("command", [("serve", "--no-worker"), ("migrate",)])
def test_a_data_dir_naming_a_file_is_a_configuration_error(tmp_path, command):
    (tmp_path / "data").write_text("a file")
    result = run_hub(*command, data_dir=tmp_path / "data", HUB_PORT="0")
    assert result.returncode == 2
    assert result.stderr.strip() == ("hub: configuration: HUB_DATA_DIR names a file, not a directory: "
                                     f"{str(tmp_path / 'data')!r}")
    under = run_hub(*command, data_dir=tmp_path / "data" / "hub", HUB_PORT="0")
    assert under.returncode == 2 and "HUB_DATA_DIR is under" in under.stderr
    assert "Traceback" not in under.stderr
    assert (tmp_path / "data").read_text() == "a file"


NEEDS_A_HUB = [("token", "add", "x", "--role", "agent"), ("token", "list"), ("token", "revoke", "x"),
               ("project", "add", "X", "--name", "X"), ("project", "list"), ("project", "remove", "X"),
               ("scope", "set", "x"), ("scope", "show"), ("cleanup",), ("backup", "elsewhere"), ("worker",)]


@pytest.mark.parametrize("command", NEEDS_A_HUB, ids=" ".join)
def test_commands_but_serve_and_migrate_refuse_to_create_a_data_dir(tmp_path, monkeypatch, command,
                                                                  empty_database_url):
    monkeypatch.chdir(tmp_path)  # where "backup elsewhere" would write
    data_dir = tmp_path / "data"
    engine = engine_settings(empty_database_url)
    result = run_hub(*command, data_dir=data_dir, **engine)
    assert result.returncode == 2, result.stdout
    if empty_database_url:
        assert result.stderr.startswith("hub: no hub in the database at "), result.stderr
    else:
        assert result.stderr.startswith(f"hub: no hub at {data_dir / 'hub.sqlite'} (HUB_DATA_DIR is ")
    assert "Traceback" not in result.stderr
    assert not data_dir.exists()
    data_dir.mkdir()  # an empty dir is no hub either
    assert run_hub(*command, data_dir=data_dir, **engine).returncode == 2
    assert list(data_dir.iterdir()) == [] and not (tmp_path / "elsewhere").exists()
    if empty_database_url:  # nor was one made in the database
        assert engine_rows.tables(hub_config(data_dir, empty_database_url)) == []


@pytest.mark.backends("sqlite")  # where ./hub-data/hub.sqlite is looked for: the data dir is SQLite's hub
def test_a_command_run_from_another_directory_names_the_data_dir_it_looked_for(tmp_path, monkeypatch, capsys):
    from hub.cli import main

    created_hub(tmp_path / "hub-data")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("HUB_DATA_DIR", raising=False)

    assert main(["token", "add", "laptop", "--role", "interface"]) == 2

    err = capsys.readouterr().err
    assert f"no hub at {elsewhere / 'hub-data' / 'hub.sqlite'}" in err
    assert "HUB_DATA_DIR is not set, so ./hub-data" in err and "HUB_DATA_DIR to your hub's data dir" in err
    assert list(elsewhere.iterdir()) == []


def test_scope_show_prints_the_scope_and_the_base_jql(tmp_path, database_url):
    data_dir = created_hub(tmp_path / "data", database_url)
    engine = engine_settings(database_url)
    assert run_hub("scope", "show", data_dir=data_dir, **engine).stdout.splitlines() == [
        "scope: (none)", "base JQL: (none: add a project)"]
    run_hub("scope", "set", "project = AURORA", data_dir=data_dir, **engine)
    run_hub("project", "add", "AWPCA", "--name", "A", data_dir=data_dir, **engine)
    assert run_hub("scope", "show", data_dir=data_dir, **engine).stdout.splitlines() == [
        "scope: project = AURORA", 'base JQL: project = AURORA AND labels in ("AWPCA")']


def parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every parser of the ``hub`` command tree, with the words that reach it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from parsers(child, (*path, name))


@pytest.mark.parametrize("path", [path for path, _ in parsers(build_parser())], ids=" ".join)
def test_every_help_ends_with_an_example(path):
    parser = dict(parsers(build_parser()))[path]
    text = parser.format_help()
    assert "\nexample:\n  " in text, text
    example = text.split("\nexample:\n  ", 1)[1].splitlines()[0]
    words = example.split()
    first = next(i for i, word in enumerate(words) if word == "hub")
    assert words[first + 1:first + 1 + len(path)] == list(path), example
