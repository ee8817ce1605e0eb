"""Request schemas checked compiled: the verdicts and the words of a refusal."""

from __future__ import annotations

import pytest

from hub.api import schemas
from hub.api.app import build_services, routes
from hub.api.longpoll import LongPolls
from hub.api.validation import SchemaCheck
from hub.config import Config
from tests.support import rich

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def request_schemas() -> list[dict]:
    found = []
    for _, resource in routes(build_services(Config(), print), Config(), LongPolls(1)):
        for name in dir(resource):
            responder = getattr(resource, name)
            if name.startswith("on_"):
                found += [schema for schema in (getattr(responder, "request_schema", None),
                                                getattr(responder, "query_schema", None)) if schema]
    return found


SCHEMAS = request_schemas()


def message(schema: dict, value) -> str | None:
    refusal = SchemaCheck(schema).first_error(value)
    return None if refusal is None else refusal.message


def test_every_request_schema_refuses_what_is_no_object():
    assert len(SCHEMAS) > 10
    for schema in SCHEMAS:
        refusal = SchemaCheck(schema).first_error([1, 2])
        assert refusal == (None, "must be object, not array"), schema


def test_a_value_json_cannot_hold_is_refused_not_a_crash():
    check = SchemaCheck({"type": "object", "additionalProperties": False})
    assert check.first_error({1: 2}) == (None, "is not a JSON value")
    check = SchemaCheck({"type": "object", "properties": {"a": {"maxLength": 1}}})
    assert check.first_error({"a": "\ud800\ud800"}) == (None, "is not a JSON value")
    assert check.first_error({"a": "\ud800"}) is None


def page() -> dict:
    return {"agent_id": "a", "delivery": 1, "issues": [rich(f"AURORA-{n}", n) for n in range(1, 4)],
            "neighbors": [rich("AURORA-90", 9)]}


def test_a_valid_page_is_accepted():
    assert SchemaCheck(schemas.STATE_PAGE).first_error(page()) is None


def test_a_page_of_a_hundred_issues_is_accepted_and_one_more_is_refused():
    issues = [rich(f"AURORA-{n}", n) for n in range(1, schemas.MAX_PAGE_ISSUES + 1)]
    assert message(schemas.STATE_PAGE, {"issues": issues}) is None
    issues.append(rich("AURORA-999", 999))
    assert message(schemas.STATE_PAGE, {"issues": issues}) == "issues: must have at most 100 items, not 101"


def test_the_field_named_is_the_one_at_fault_deep_in_a_page():
    body = page()
    body["issues"][2]["comments"][1]["id"] = 10001
    refusal = SchemaCheck(schemas.STATE_PAGE).first_error(body)
    assert refusal == ("issues.2.comments.1.id", "issues.2.comments.1.id: must be string, not integer")


@pytest.mark.parametrize("value", [1.0, 48213.0])
def test_an_integer_written_as_a_float_is_an_integer(value):
    attachment = {"id": "10001", "filename": "f", "size": value}
    assert SchemaCheck(schemas.ATTACHMENT).first_error(attachment) is None


LONG = "x" * 100
EXCERPT = '"' + "x" * 40 + '…"'

# One case for each kind of error the request schemas can give, in the words
# the hub answers with.
MESSAGES = [
    ("type", schemas.HEARTBEAT, {"agent_id": 7, "version": 1}, "agent_id: must be string, not integer"),
    ("type, the schema's order", schemas.HEARTBEAT, {"agent_id": "a", "version": 1, "state": 1},
     "state: must be string or null, not integer"),
    ("required", schemas.HEARTBEAT, {"agent_id": "a"}, "version: is required"),
    ("maxLength", schemas.HEARTBEAT, {"agent_id": "a" * 300, "version": 1},
     "agent_id: must be at most 255 characters, not 300"),
    ("minLength", schemas.NEW_TOKEN, {"name": "", "role": "admin"}, "name: must be at least 1 characters, not 0"),
    ("pattern", schemas.STATE_PAGE, {"issues": [{"key": "aurora-12", "id": "10001"}]},
     'issues.0.key: "aurora-12" is not an issue key: Jira\'s keys are a project key and a number, like AURORA-12'),
    ("pattern, an excerpt", schemas.STATE_PAGE, {"issues": [{"key": LONG, "id": "10001"}]},
     f"issues.0.key: {EXCERPT} is not an issue key: Jira's keys are a project key and a number, like AURORA-12"),
    ("pattern, one without words of its own", schemas.NEW_TOKEN, {"name": "a b", "role": "admin"},
     f'name: "a b" does not match {schemas.NAME_PATTERN}'),
    ("enum, an excerpt", schemas.COMMAND_LIST, {"status": LONG},
     f'status: {EXCERPT} is not one of "queued", "claimed", "done", "failed", "cancelled"'),
    ("enum of integers", schemas.ISSUE_LIST, {"neighbor": 2}, "neighbor: 2 is not one of 0, 1"),
    ("additionalProperties", schemas.NOTE, {"body": "hi", "bdy": "x"}, "bdy: is not allowed here"),
    ("additionalProperties, a long name", schemas.NOTE, {"body": "hi", LONG: 1}, f"{'x' * 40}…: is not allowed here"),
    ("maxItems", schemas.ATTACHMENT_STATES, {"ids": ["10001"] * 1001}, "ids: must have at most 1000 items, not 1001"),
    ("minimum", schemas.CLAIM, {"agent_id": "a", "version": 0}, "version: must be at least 1, not 0"),
    ("maximum", schemas.CLAIM, {"agent_id": "a", "version": 1, "wait": 31}, "wait: must be at most 30, not 31"),
    ("maximum, infinity", schemas.CLAIM, {"agent_id": "a", "version": 1, "wait": float("inf")},
     "wait: must be at most 30, not Infinity"),
    ("minimum, minus infinity", schemas.CLAIM, {"agent_id": "a", "version": 1, "wait": float("-inf")},
     "wait: must be at least 0, not -Infinity"),
    ("type, infinity where an integer goes", schemas.DONE, {"result": {"total": float("inf")}},
     "result.total: must be integer, not number"),
    ("uniqueItems", schemas.CLAIM, {"agent_id": "a", "version": 1, "types": ["refresh", "refresh"]},
     "types: must not repeat an item"),
    ("oneOf, none", schemas.STATE_PAGE,
     {"issues": [{"key": "AURORA-12", "id": "10001", "links": [{"type": "Blocks"}]}]},
     "issues.0.links.0: must match exactly one of the allowed forms"),
    ("oneOf, both", schemas.STATE_PAGE, {"issues": [{"key": "AURORA-12", "id": "10001", "links": [
        {"type": "Blocks", "outward": "AURORA-1", "inward": "AURORA-2"}]}]},
     "issues.0.links.0: must match exactly one of the allowed forms"),
    ("anyOf, the nearest form by its errors", schemas.DONE, {"result": {"total": -1}},
     "result.total: must be at least 0, not -1"),
    ("anyOf, the nearest form by the members sent", schemas.DONE, {"result": {"sha256": "0" * 64}},
     "result.size: is required"),
    ("anyOf, nothing sent", schemas.DONE, {"result": {}}, "result.total: is required"),
    ("const", {"const": "refresh"}, "fetch", 'must be "refresh"'),
    ("format is not asserted; the pattern is", schemas.NEW_COMMAND,
     {"type": "refresh", "params": {"updated_since": "yesterday"}},
     'params.updated_since: "yesterday" is not a UTC time: write a date and time like 2026-11-01T00:00:00Z'),
    ("dependentRequired", schemas.NEW_PROJECT, {"label": "A", "name": "A", "board_id": 1},
     "board_type: board_type is required with board_id"),
    ("dependentRequired, the other way", schemas.NEW_PROJECT, {"label": "A", "name": "A", "board_type": "scrum"},
     "board_id: board_id is required with board_type"),
    ("if/then, enum", schemas.NEW_PROJECT, {"label": "A", "name": "A", "board_id": 1, "board_type": None},
     'board_type: null is not one of "scrum", "kanban"'),
    ("if/then, type", schemas.NEW_PROJECT, {"label": "A", "name": "A", "board_id": None, "board_type": "scrum"},
     "board_id: must be integer, not null"),
    ("if/then, required", schemas.NEW_COMMAND, {"type": "fetch_attachment"}, "params: is required"),
    ("if/then, not", schemas.NEW_COMMAND, {"type": "refresh", "params": {"attachment_id": "10001"}},
     "params.attachment_id: is not allowed here"),
    ("if/then, not, the other type", schemas.NEW_COMMAND,
     {"type": "fetch_attachment", "params": {"attachment_id": "10001", "jql": "x"}},
     "params.jql: is not allowed here"),
]


@pytest.mark.parametrize("schema, value, words", [case[1:] for case in MESSAGES], ids=[case[0] for case in MESSAGES])
def test_a_refusal_names_the_field_and_quotes_an_excerpt(schema, value, words):
    assert message(schema, value) == words


def test_a_date_time_that_only_the_hub_can_refuse_passes_the_schema():
    # The format is an annotation: a month 13 is the hub's to refuse (hub.clock).
    body = {"type": "refresh", "params": {"updated_since": "2026-13-45T10:05:11Z"}}
    assert message(schemas.NEW_COMMAND, body) is None


def test_a_million_wrong_values_are_refused_at_the_first():
    schema = {"type": "array", "items": {"type": "string"}}
    assert message(schema, [7] * 1_000_000) == "0: must be string, not integer"
