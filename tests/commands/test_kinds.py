"""The registry of command kinds: each kind is one module, and a kind added to the registry is
validated, enqueued, claimed and finished with no other change to the hub."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from hub.api import schemas
from hub.api.validation import SchemaCheck
from hub.clock import iso
from hub.db import database
from hub.errors import Conflict, ContractError
from hub.models import Command
from hub.services.commands.kinds import (
    KINDS,
    Kind,
    Reporting,
    claimable,
    enqueued_by_interfaces,
    names,
    open_same,
    register,
    unregister,
)
from hub.vocabulary import DONE, QUEUED

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_the_hub_s_kinds_are_refresh_fetch_attachment_check_issues_and_write_in_that_order():
    assert names() == ["refresh", "fetch_attachment", "check_issues", "write"]
    assert enqueued_by_interfaces() == ["refresh", "fetch_attachment"]


def test_every_kind_s_params_and_result_are_what_openapi_json_shows(hub):
    document = hub.client.simulate_get("/openapi.json").json
    post = document["paths"]["/api/v1/commands"]["post"]
    new_command = post["requestBody"]["content"]["application/json"]["schema"]
    claim = document["paths"]["/agent/v1/claim"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    done = document["paths"]["/agent/v1/commands/{command_id}/done"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]
    assert new_command["properties"]["type"]["enum"] == enqueued_by_interfaces()
    assert claim["properties"]["types"]["items"]["enum"] == names()
    results = done["properties"]["result"]["anyOf"]
    for kind in KINDS.values():
        assert kind.result_schema in results, kind.name
        if kind.by_interfaces:
            for name, schema in kind.params.items():
                assert new_command["properties"]["params"]["properties"][name] == schema, (kind.name, name)
        else:
            assert kind.name not in new_command["properties"]["type"]["enum"]


@pytest.mark.parametrize("version, given", [
    (1, ["refresh"]),
    (13, ["refresh"]),
    (14, ["refresh", "fetch_attachment"]),
    (15, ["refresh", "fetch_attachment"]),
    (16, ["refresh", "fetch_attachment", "check_issues"]),
    (18, ["refresh", "fetch_attachment", "check_issues"]),
])
def test_the_kinds_an_agent_is_given_are_those_its_protocol_version_knows(version, given):
    """docs/agent-protocol.md: fetch_attachment from v14, check_issues from v16."""
    assert claimable(version, None) == given
    assert claimable(version, []) == given


def test_the_kinds_an_agent_asks_for_narrow_what_it_is_given_in_its_order():
    assert claimable(16, ["check_issues", "refresh"]) == ["check_issues", "refresh"]
    assert claimable(13, ["fetch_attachment", "check_issues"]) == []
    assert claimable(18, ["reindex", "refresh"]) == ["refresh"]


ECHO = "echo_for_test"


@dataclass(frozen=True)
class Echo(Kind):
    """A kind of this test's own: ``params.text`` (not blank), one open command per text,
    and a done whose ``echoed`` must be that text."""

    def checked_params(self, params: dict, now) -> dict:
        if not params["text"].strip():
            raise ContractError("params.text must not be blank", "params.text")
        return {"text": params["text"].strip()}

    def enqueue(self, queue, params: dict, batch_id: int | None, token_id: int | None) -> tuple[Command, bool]:
        with database.atomic():
            queue.hold_bound(token_id)
            open_one = open_same(ECHO, params)
            if open_one is not None:
                return open_one, False
            queue.check_room(token_id)
            command = Command.create(type=ECHO, params=params, status=QUEUED, batch=batch_id,
                                     created_at=iso(queue.clock.now()), token_id=token_id)
        queue.notify()
        return command, True

    def done(self, reporting: Reporting, command: Command, result: Any) -> None:
        if self.recorded(result) != {"echoed": command.params["text"]}:
            raise Conflict(f"command {command.id} echoed something else")


@pytest.fixture
def echo():
    kind = register(Echo(
        ECHO,
        params={"text": {"type": "string", "minLength": 1, "maxLength": 100}},
        required=("text",),
        since=19,
        result_schema={"type": "object", "properties": {"echoed": {"type": "string"}},
                       "required": ["echoed"]},
        result_words="an echo's {echoed}",
    ))
    yield kind
    unregister(ECHO)


def test_a_kind_added_to_the_registry_is_validated_enqueued_claimed_and_done_with_no_other_change(hub, echo):
    commands = hub.built.services.commands
    assert ECHO in enqueued_by_interfaces()
    with pytest.raises(ContractError, match=r"a echo_for_test takes params\.text only") as error:
        commands.enqueue(ECHO, {"text": "hi", "jql": "x"})
    assert error.value.extra["field"] == "params.jql"
    with pytest.raises(ContractError, match=r"needs params\.text") as error:
        commands.enqueue(ECHO, {})
    assert error.value.extra["field"] == "params.text"
    with pytest.raises(ContractError, match="must not be blank"):
        commands.enqueue(ECHO, {"text": "  "})
    command, created = commands.enqueue(ECHO, {"text": " hi "})
    again, created_again = commands.enqueue(ECHO, {"text": "hi"})
    assert created and not created_again and again.id == command.id
    assert command.params == {"text": "hi"}

    dispatcher, reports = hub.built.services.dispatcher, hub.built.services.reports
    assert dispatcher.claim("old", 18, [ECHO]) == []  # below the kind's version: not given it
    [claimed] = dispatcher.claim("new", 19, None, limit=5)
    assert (claimed["id"], claimed["type"], claimed["params"]) == (command.id, ECHO, {"text": "hi"})
    with pytest.raises(Conflict, match="state pages belong to refresh, check_issues and write commands"):
        reports.state(command.id, {"agent_id": "new", "issues": []}, token_id=None)
    with pytest.raises(Conflict, match="echoed something else"):
        reports.done(command.id, {"agent_id": "new", "result": {"echoed": "ho"}}, token_id=None)
    finished = reports.done(command.id, {"agent_id": "new", "result": {"echoed": "hi", "more": 1}},
                            token_id=None)
    assert finished.status == DONE and finished.result == {"echoed": "hi"}
    # The same done again is answered as it was, compared by the kind's result members.
    assert reports.done(command.id, {"agent_id": "new", "result": {"echoed": "hi"}}, token_id=None).id == command.id

    cancelled = commands.cancel(commands.enqueue(ECHO, {"text": "again"})[0].id)
    retried, created = commands.retry(cancelled.id)
    assert created and retried.type == ECHO and retried.params == {"text": "again"}


def test_the_body_of_a_new_command_is_built_from_the_kinds_interfaces_enqueue(echo):
    check = SchemaCheck(schemas.new_command([KINDS[name] for name in enqueued_by_interfaces()]))

    def refused(body: dict) -> tuple[str | None, str]:
        refusal = check.first_error(body)
        assert refusal is not None, body
        return refusal.field, refusal.message

    assert check.first_error({"type": ECHO, "params": {"text": "hi"}}) is None
    assert refused({"type": ECHO}) == ("params", "params: is required")
    assert refused({"type": ECHO, "params": {"text": "hi", "jql": "x"}})[0] == "params.jql"
    assert refused({"type": "refresh", "params": {"text": "hi"}})[0] == "params.text"
    assert refused({"type": "check_issues"})[0] == "type"
    # What /openapi.json shows was built before this test's kind: the registry as the hub started.
    assert ECHO not in schemas.NEW_COMMAND["properties"]["type"]["enum"]
