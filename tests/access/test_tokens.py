"""Tokens: hashes only, constant-time checks, 401 and 403, the CLI, the first admin."""

from __future__ import annotations

import hashlib
import sqlite3
from typing import ClassVar

import pytest

from hub.api.whoami import actions_by_role
from hub.errors import Conflict, ContractError, NotFound
from hub.roles import ACTIONS, ADMIN, INTERFACE
from hub.services.access.tokens import new_token
from tests.support import created_hub, run_hub
from tests.support.engine_rows import stored_text
from tests.support.hubs import built_services

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_only_the_sha256_is_stored(hub):
    stored = stored_text(hub.config)
    for token in hub.tokens.values():
        assert token not in stored
        assert hashlib.sha256(token.encode()).hexdigest() in stored


def test_a_request_finds_its_token_by_index(hub, backend):
    if backend == "postgresql":
        import psycopg

        with psycopg.connect(hub.config.database_url) as conn:
            # A planner that sees three rows scans them: ask it as a big table would be asked.
            conn.execute("SET enable_seqscan = off")
            plan = " ".join(line for (line,) in conn.execute(
                "EXPLAIN SELECT id, name, role FROM token WHERE sha256 = %s", ("0" * 64,)))
        assert "Index Scan using token_sha256_key" in plan, plan
        return
    conn = sqlite3.connect(hub.config.db_path)
    plan = " ".join(row[-1] for row in conn.execute(
        "EXPLAIN QUERY PLAN SELECT id, name, role FROM token WHERE sha256 = ?", ("0" * 64,)))
    assert "USING INDEX" in plan and "SCAN" not in plan


def test_no_token_is_401_and_a_wrong_role_is_403(hub):
    assert hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": "a", "version": 14}, role=None).status_code == 401
    resp = hub.client.simulate_post("/agent/v1/heartbeat", json={}, headers={"Authorization": "Bearer nope"})
    assert resp.status_code == 401 and set(resp.json) == {"title", "description"}
    assert resp.headers["WWW-Authenticate"] == "Bearer"
    resp = hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": "a", "version": 14}, role="interface")
    assert resp.status_code == 403 and "role agent" in resp.json["description"]
    assert hub.api("GET", "/api/v1/commands", role="agent").status_code == 403
    assert hub.api("GET", "/api/v1/commands", role="admin").status_code == 200
    assert hub.api("GET", "/api/v1/commands", role="interface").status_code == 200


def test_every_operation_refuses_the_roles_it_is_closed_to(hub):
    """Each operation of /openapi.json answers 403, as the document says it may, to a
    token of each role its ``x-roles`` leaves out, whatever the request holds: the
    refusal comes before anything is read (which is why the fuzzing of
    tests/api/test_fuzz.py calls each operation only with a role it is open to)."""
    hub.tokens["metrics"] = hub.built.services.tokens.add("test-metrics", "metrics")
    samples = {"key": "AURORA-12", "attachment_id": "901", "command_id": "1", "note_id": "1",
               "batch_id": "1", "label": "NOPE", "name": "nobody", "agent_id": "a", "filter_id": "1",
               "write_id": "1", "comment_id": "1", "link_id": "1", "board_id": "1"}
    refused = 0
    for template, item in hub.client.simulate_get("/openapi.json").json["paths"].items():
        path = template.format(**samples)
        for method, operation in item.items():
            for role in sorted({"agent", "interface", "admin", "metrics"} - set(operation.get("x-roles", hub.tokens))):
                resp = hub.api(method.upper(), path, {"not": "read"} if method in ("post", "put", "patch") else None,
                               role=role)
                assert resp.status_code == 403, (method, path, role, resp.status_code, resp.text)
                assert "403" in operation["responses"]
                if method != "head":
                    assert set(resp.json) == {"title", "description"}
                    assert f"has role '{role}'" in resp.json["description"]
                refused += 1
    assert refused > 50


def test_a_method_a_route_does_not_answer_is_405_to_a_role_that_may_use_the_route(hub):
    # /api/v1/projects: GET for interfaces, POST for admins; a PUT is no role's, and says so as 405.
    for role in ("interface", "admin"):
        assert hub.api("PUT", "/api/v1/projects", {"label": "X"}, role=role).status_code == 405
    assert hub.api("PUT", "/api/v1/projects", {"label": "X"}, role="agent").status_code == 403


def test_a_revoked_token_is_401(hub):
    hub.built.services.tokens.revoke("test-interface")
    assert hub.api("GET", "/api/v1/commands").status_code == 401


def test_whoami_names_any_known_token_and_refuses_any_other(hub):
    """GET /api/v1/whoami: the cheap check a service in front of the hub asks before working."""
    metrics = hub.built.services.tokens.add("scraper", "metrics")
    for role in ("agent", "interface", "admin"):
        resp = hub.api("GET", "/api/v1/whoami", role=role)
        assert resp.status_code == 200 and resp.json == {"name": f"test-{role}", "role": role}
    resp = hub.client.simulate_get("/api/v1/whoami", headers={"Authorization": f"Bearer {metrics}"})
    assert resp.json == {"name": "scraper", "role": "metrics"}
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic dWk6cHc="}):
        resp = hub.client.simulate_get("/api/v1/whoami", headers=headers)
        assert resp.status_code == 401 and resp.headers["WWW-Authenticate"] == "Bearer"
    hub.built.services.tokens.revoke("scraper")
    resp = hub.client.simulate_get("/api/v1/whoami", headers={"Authorization": f"Bearer {metrics}"})
    assert resp.status_code == 401
    operation = hub.api("GET", "/openapi.json").json["paths"]["/api/v1/whoami"]["get"]
    assert operation["x-roles"] == ["admin", "agent", "interface", "metrics"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["required"] == ["name", "role"] and "401" in operation["responses"]


def test_me_tells_a_token_its_name_role_and_what_its_role_may_do(hub):
    """GET /api/v1/me: an interface offers only what the caller's role may use."""
    metrics = hub.built.services.tokens.add("scraper", "metrics")
    interface = hub.api("GET", "/api/v1/me").json
    assert interface == {"name": "test-interface", "role": "interface",
                         "may": ["read", "notes", "filters", "enqueue_refresh", "refresh_issue",
                                 "fetch_attachments", "cancel_commands", "retry_commands"]}
    admin = hub.api("GET", "/api/v1/me", role="admin").json
    assert admin["may"] == [*interface["may"], "remove_agents", "admin", "metrics", "write"]
    writer = hub.built.services.tokens.add("writer", "interface", write=True)
    resp = hub.client.simulate_get("/api/v1/me", headers={"Authorization": f"Bearer {writer}"})
    assert resp.json["may"] == [*interface["may"], "write"]
    assert hub.api("GET", "/api/v1/me", role="agent").json["may"] == ["agent"]
    resp = hub.client.simulate_get("/api/v1/me", headers={"Authorization": f"Bearer {metrics}"})
    assert resp.json == {"name": "scraper", "role": "metrics", "may": ["metrics"]}
    assert hub.client.simulate_get("/api/v1/me").status_code == 401
    operation = hub.api("GET", "/openapi.json").json["paths"]["/api/v1/me"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["required"] == ["name", "role", "may"]
    assert schema["properties"]["may"]["items"]["enum"] == list(ACTIONS)


def test_what_a_role_may_do_follows_the_routes_roles():
    """The actions come from the route table's roles: a route closed to a role takes its action away."""
    class Notes:
        roles: ClassVar[dict[str, frozenset[str]]] = {"POST": ADMIN}

    class Open:
        roles = INTERFACE

    table = [(template, Notes() if action == "notes" else Open()) for action, (_, template) in ACTIONS.items()]
    may = actions_by_role(table)
    assert "notes" not in may["interface"] and "notes" in may["admin"] and "read" in may["interface"]
    with pytest.raises(LookupError, match="notes"):
        actions_by_role([row for row in table if row[0] != ACTIONS["notes"][1]])


def test_token_names_roles_and_duplicates(hub):
    tokens = hub.built.services.tokens
    with pytest.raises(ContractError):
        tokens.add("bad name", "agent")
    with pytest.raises(ContractError):
        tokens.add("ok", "root")
    with pytest.raises(Conflict):
        tokens.add("test-agent", "agent")
    with pytest.raises(NotFound):
        tokens.revoke("nobody")
    assert [t.name for t in tokens.list()] == ["test-admin", "test-agent", "test-interface"]
    assert tokens.create_first_admin() is None


def test_token_cli(tmp_path, database_url):
    data_dir = created_hub(tmp_path / "data", database_url)
    env = {"HUB_DATABASE_URL": database_url} if database_url else {}
    added = run_hub("token", "add", "field-agent", "--role", "agent", data_dir=data_dir, **env)
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip()
    assert len(token) >= 40 and "shown only now" in added.stderr
    listed = run_hub("token", "list", data_dir=data_dir, **env)
    assert listed.stdout.startswith("field-agent\tagent\t") and token not in listed.stdout
    again = run_hub("token", "add", "field-agent", "--role", "agent", data_dir=data_dir, **env)
    assert again.returncode == 1 and "exists" in again.stderr
    assert run_hub("token", "revoke", "field-agent", data_dir=data_dir, **env).returncode == 0
    gone = run_hub("token", "revoke", "field-agent", data_dir=data_dir, **env)
    assert gone.returncode == 1 and "no token named" in gone.stderr
    bad = run_hub("token", "add", "x", "--role", "root", data_dir=data_dir, **env)
    assert bad.returncode == 2


def test_a_token_never_starts_with_a_dash_so_a_command_line_takes_it():
    # One token in 64 would start with "-" and read as an option: `hub-agent run --token -x…` fails.
    tokens = [new_token() for _ in range(3000)]
    assert not any(token.startswith("-") for token in tokens)
    assert len(set(tokens)) == len(tokens) and all(len(token) == 43 for token in tokens)


def test_the_first_admin_token_is_made_once_however_many_nodes_start_at_once(config):
    """Nodes of one hub starting together each ask for the first admin token: one gets it,
    round after round on a hub whose tokens are gone again."""
    import threading

    from hub import startup
    from hub.db import database, open_hub_database
    from hub.models import Token

    startup.prepare(config)
    open_hub_database(config)
    nodes = 8

    def node(starting: threading.Barrier, answers: list, errors: list) -> None:
        try:
            database.connect(reuse_if_open=True)  # connected before the race, not during it
            tokens = built_services(config).tokens  # each node its own, as each builds its hub
            starting.wait()
            answers.append(tokens.create_first_admin())
        except Exception as exc:  # any failure of a node is what the test looks for
            errors.append(exc)
        finally:
            database.close()

    for _ in range(10):
        Token.delete().execute()
        starting, answers, errors = threading.Barrier(nodes), [], []
        threads = [threading.Thread(target=node, args=(starting, answers, errors)) for _ in range(nodes)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert len([token for token in answers if token]) == 1, answers
        assert [(token.name, token.role) for token in built_services(config).tokens.list()] == [("admin", "admin")]
