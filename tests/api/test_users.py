"""``GET /api/v1/users``: the assignee typeahead over the Jira users the mirror knows, matched in
the login or the display name in any case and any script, best first, bounded by ``limit``."""

from __future__ import annotations

import pytest

from tests.support.protocol import issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")

USERS = [{"name": "ivanov", "key": "JIRAUSER1", "display_name": "Иван Иванов"},
         {"name": "petrov", "key": "JIRAUSER2", "display_name": "Pyotr Petrov"},
         {"name": "apetrova", "key": "JIRAUSER3", "display_name": "Anna Petrova"},
         {"name": "kuznetsov", "key": "JIRAUSER4", "display_name": "Ivan Kuznetsov"},
         {"name": "bot", "key": "JIRAUSER5", "display_name": None}]


def users(hub, query: str = "", role: str = "interface"):
    return hub.api("GET", "/api/v1/users", role=role, query_string=query)


@pytest.fixture
def known(hub):
    load(hub, [issue("AURORA-1", status="Open")], catalogues={"users": USERS})
    return hub


def names(resp) -> list[str]:
    assert resp.status_code == 200, resp.json
    return [item["name"] for item in resp.json["items"]]


def test_every_user_by_display_name_without_q(known):
    resp = users(known)
    assert names(resp) == ["apetrova", "bot", "kuznetsov", "petrov", "ivanov"]
    assert resp.json["items"][-1] == {"name": "ivanov", "display_name": "Иван Иванов"}


def test_prefix_matches_come_before_those_holding_the_text(known):
    # petrov starts with it; Anna Petrova has a word starting with it; apetrova holds it.
    assert names(users(known, "q=petr")) == ["petrov", "apetrova"]
    assert names(users(known, "q=PETROVA")) == ["apetrova"]
    # Both start with it (Ivan Kuznetsov's display name, ivanov's login): by display name then.
    assert names(users(known, "q=ivan")) == ["kuznetsov", "ivanov"]
    # A login that is the text exactly comes first of all.
    assert names(users(known, "q=kuznetsov"))[0] == "kuznetsov"
    assert names(users(known, "q=ov")) == ["apetrova", "kuznetsov", "petrov", "ivanov"]


def test_a_display_name_in_another_script_matches_in_any_case(known):
    assert names(users(known, "q=иван")) == ["ivanov"]
    assert names(users(known, "q=ИВАНОВ")) == ["ivanov"]
    assert names(users(known, "q=nobody")) == []


def test_limit_bounds_the_answer(known):
    assert len(names(users(known, "limit=2"))) == 2
    for bad in ("limit=0", "limit=101", "limit=many", "q=" + "x" * 256, "who=me"):
        resp = users(known, bad)
        assert resp.status_code == 422, bad
        assert resp.json["field"] == bad.split("=")[0], bad


def test_no_user_is_known_before_an_agent_reports_them(hub):
    assert names(users(hub)) == []


def test_users_are_for_interface_tokens(known):
    assert users(known, role="agent").status_code == 403
    assert users(known, role=None).status_code == 401
