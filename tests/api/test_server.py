"""How ``hub serve`` sets waitress up: settings from HUB_*, and the open-files limit."""

from __future__ import annotations

import logging
import resource

import pytest

from hub.config import MIB, Config
from hub.server import files_needed, proxy_settings, raise_open_files_limit, waitress_settings


def test_waitress_gets_the_hub_settings_and_inclusive_body_limits():
    config = Config(threads=20, long_poll_threads=5, connection_limit=3000, channel_timeout=60,
                    max_upload_bytes=10 * MIB, max_json_bytes=4 * MIB)
    settings = waitress_settings(config)
    assert (settings["threads"], settings["connection_limit"], settings["channel_timeout"]) == (20, 3000, 60)
    # waitress refuses content_length >= max_request_body_size: one above keeps the limit inclusive.
    assert settings["max_request_body_size"] == 10 * MIB + 1
    assert waitress_settings(Config(max_upload_bytes=MIB))["max_request_body_size"] == 4 * MIB + 1
    # Without lookahead waitress never notices a client leaving mid-request.
    assert settings["channel_request_lookahead"] > 0
    assert settings["cleanup_interval"] == 15 and settings["backlog"] == 3000
    assert waitress_settings(Config(channel_timeout=2))["cleanup_interval"] == 1
    assert waitress_settings(Config(channel_timeout=3600))["cleanup_interval"] == 30


def test_waitress_takes_the_scheme_from_one_trusted_proxy_and_leaves_several_to_the_hub():
    from waitress.adjustments import Adjustments

    # One address: waitress's own trusted_proxy, X-Forwarded-Proto alone (X-Forwarded-For would
    # put the client where the hub looks for the proxy), everyone else's proxy headers deleted.
    one = waitress_settings(Config(trusted_proxies=("10.0.0.5",)))
    assert (one["trusted_proxy"], one["trusted_proxy_headers"], one["clear_untrusted_proxy_headers"]) == (
        "10.0.0.5", {"x-forwarded-proto"}, True)
    assert proxy_settings(("::1", "::1")) == proxy_settings(("::1",))
    # Several: waitress trusts nobody ("*" would be anyone) and passes the header to the hub,
    # which checks the peer itself; none: waitress deletes it from every request.
    several = waitress_settings(Config(trusted_proxies=("127.0.0.1", "::1")))
    assert "trusted_proxy" not in several and several["clear_untrusted_proxy_headers"] is False
    assert waitress_settings(Config(trusted_proxies=()))["clear_untrusted_proxy_headers"] is True
    for settings in (one, several):  # settings waitress takes as they are
        Adjustments(**settings)


@pytest.fixture
def nofile():
    saved = resource.getrlimit(resource.RLIMIT_NOFILE)
    yield saved
    resource.setrlimit(resource.RLIMIT_NOFILE, saved)


def test_the_open_files_limit_is_raised_toward_what_the_connection_limit_needs(nofile):
    _soft, hard = nofile
    if hard != resource.RLIM_INFINITY and hard <= 512:
        pytest.skip("a hard limit too low to lower the soft one under")
    # Any process may lower its soft limit, and raise it again up to the hard one.
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    needed = files_needed(Config(connection_limit=1000))
    expected = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    assert raise_open_files_limit(needed) == expected
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == expected


def test_a_hard_limit_too_low_is_logged_not_fatal(nofile, caplog):
    _soft, hard = nofile
    if hard == resource.RLIM_INFINITY:
        pytest.skip("no hard limit to exceed")
    with caplog.at_level(logging.WARNING, logger="hub.server"):
        assert raise_open_files_limit(hard + 1) == hard
    assert "HUB_CONNECTION_LIMIT needs about" in caplog.text
