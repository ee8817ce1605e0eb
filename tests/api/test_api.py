"""The Falcon app through its TestClient, on a real database."""

from __future__ import annotations

import falcon.testing
import pytest

from hub.migrations import CURRENT_VERSION

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture
def client(hub):
    return hub.client


def test_healthz_answers_without_a_token(client):
    resp = client.simulate_get("/healthz")
    assert resp.status_code == 200
    assert resp.json == {"status": "ok", "schema_version": CURRENT_VERSION}


def test_unknown_path_is_a_json_404_with_title_and_description(client):
    resp = client.simulate_get("/no/such/thing")
    assert resp.status_code == 404
    assert set(resp.json) == {"title", "description"}


def test_wrong_method_is_a_json_405(client):
    resp = client.simulate_post("/healthz", body="{}")
    assert resp.status_code == 405
    assert set(resp.json) == {"title", "description"}


def test_get_app_takes_its_configuration_from_the_environment(tmp_path, monkeypatch):
    from hub.api.app import get_app

    monkeypatch.setenv("HUB_DATA_DIR", str(tmp_path / "env-data"))
    client = falcon.testing.TestClient(get_app())
    assert client.simulate_get("/healthz").json == {"status": "ok", "schema_version": CURRENT_VERSION}
    assert (tmp_path / "env-data" / "hub.sqlite").exists()
