from __future__ import annotations

from pathlib import Path

import pytest

from hub.config import GIB, Config, ConfigError


def test_defaults_without_environment():
    config = Config.from_env({})
    assert config == Config()
    assert config.data_dir == Path("./hub-data")
    assert (config.host, config.port) == ("127.0.0.1", 8765)
    assert (config.lease_seconds, config.max_deliveries) == (300, 5)
    assert config.max_upload_bytes == 2 * GIB
    assert config.files_quota_bytes == 10 * GIB
    assert config.files_max_age_days == 30
    assert config.cleanup_cron == "0 3 * * *"
    assert config.db_path == Path("./hub-data/hub.sqlite")
    assert config.queue_path == Path("./hub-data/queue.sqlite")


def test_environment_overrides_and_empty_means_default():
    config = Config.from_env({
        "HUB_DATA_DIR": "/srv/hub", "HUB_PORT": " 9000 ", "HUB_LEASE_SECONDS": "60",
        "HUB_HOST": "", "HUB_CLEANUP_CRON": "30  2 * * 1",
    })
    assert config.data_dir == Path("/srv/hub")
    assert config.port == 9000
    assert config.lease_seconds == 60
    assert config.host == "127.0.0.1"
    assert config.cleanup_cron == "30 2 * * 1"


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("HUB_PORT", "http", "HUB_PORT must be an integer"),
        ("HUB_PORT", "70000", "HUB_PORT must be at least 0 and at most 65535"),
        ("HUB_LEASE_SECONDS", "0", "HUB_LEASE_SECONDS must be at least 1"),
        ("HUB_MAX_DELIVERIES", "-1", "HUB_MAX_DELIVERIES must be at least 1"),
        ("HUB_CLEANUP_CRON", "daily", "HUB_CLEANUP_CRON must be a five-field cron"),
        ("HUB_LOG_LEVEL", "LOUD", "HUB_LOG_LEVEL must be DEBUG"),
        ("HUB_LOG_FORMAT", "xml", "HUB_LOG_FORMAT must be text or json"),
        ("HUB_JQL_TIME_ZONE", "Mars/Olympus", "HUB_JQL_TIME_ZONE must be an IANA time zone"),
        ("HUB_JQL_TIME_ZONE", "../../etc/passwd", "HUB_JQL_TIME_ZONE must be an IANA time zone"),
    ],
)
def test_bad_values_name_the_variable(name, value, message):
    with pytest.raises(ConfigError, match=message):
        Config.from_env({name: value})


@pytest.mark.parametrize("cron, message", [
    ("*/0 * * * *", "slice step cannot be zero"),
    ("99 99 * * *", "99 is not a valid input"),
    ("0 3 32 * *", "32 is not a valid input"),
    ("5/2 * * * *", "5/2 is not a valid input"),  # Huey's default would ignore it
    ("1,,2 * * * *", "is not a valid input"),
    ("0 0 * * */2", "day-of-week"),
    ("0-5/0 * * * *", "slice step cannot be zero"),
])
def test_a_cron_huey_cannot_run_is_refused_naming_the_variable(cron, message):
    with pytest.raises(ConfigError, match=rf"HUB_CLEANUP_CRON is not a cron expression .*{message}"):
        Config.from_env({"HUB_CLEANUP_CRON": cron})


@pytest.mark.parametrize("cron", ["0 3 * * *", "*/15 * * * 1-5", "0 0 1,15 * 0", "59 23 31 12 7"])
def test_a_cron_huey_runs_is_accepted_as_written(cron):
    assert Config.from_env({"HUB_CLEANUP_CRON": cron}).cleanup_cron == cron


def test_a_data_dir_that_is_a_file_or_under_one_is_refused(tmp_path):
    (tmp_path / "plain").write_text("not a directory")
    with pytest.raises(ConfigError, match="HUB_DATA_DIR names a file"):
        Config.from_env({"HUB_DATA_DIR": str(tmp_path / "plain")})
    with pytest.raises(ConfigError, match=r"HUB_DATA_DIR is under .*plain, which is a file"):
        Config.from_env({"HUB_DATA_DIR": str(tmp_path / "plain" / "data")})
    # A directory to be created, however deep, is fine.
    assert Config.from_env({"HUB_DATA_DIR": str(tmp_path / "a" / "b")}).data_dir == tmp_path / "a" / "b"


def test_long_poll_threads_must_leave_threads_that_answer():
    with pytest.raises(ConfigError, match="HUB_LONG_POLL_THREADS must be below HUB_THREADS"):
        Config.from_env({"HUB_THREADS": "8", "HUB_LONG_POLL_THREADS": "8"})


@pytest.mark.parametrize("value", ["http://hub:8765", "a b", "-hub", "hub_1", "x" * 300])
def test_a_host_that_cannot_be_listened_on_is_refused(value):
    with pytest.raises(ConfigError, match="HUB_HOST must be an IP address or a host name"):
        Config.from_env({"HUB_HOST": value})


@pytest.mark.parametrize("value, host", [("0.0.0.0", "0.0.0.0"), ("[::1]", "::1"), ("::", "::"),
                                         ("localhost", "localhost"), ("hub.example.org", "hub.example.org")])
def test_addresses_and_host_names_are_kept(value, host):
    assert Config.from_env({"HUB_HOST": value}).host == host
