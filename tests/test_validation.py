"""Request schemas checked compiled: the same verdicts as jsonschema, for less."""

from __future__ import annotations

import copy
import random

import pytest
from jsonschema import Draft202012Validator

from hub.api import schemas
from hub.api.app import build_services, routes
from hub.api.validation import SchemaCheck
from hub.config import Config
from tests.support import garbage, rich


def request_schemas() -> list[dict]:
    found = []
    for _, resource in routes(build_services(Config(), print), Config()):
        for name in dir(resource):
            responder = getattr(resource, name)
            if name.startswith("on_"):
                found += [schema for schema in (getattr(responder, "request_schema", None),
                                                getattr(responder, "query_schema", None)) if schema]
    return found


SCHEMAS = request_schemas()


def test_every_request_schema_is_checked_compiled():
    assert len(SCHEMAS) > 10
    for schema in SCHEMAS:
        assert SchemaCheck(schema)._compiled is not None, schema


def test_a_value_json_cannot_hold_is_left_to_jsonschema():
    check = SchemaCheck({"type": "object", "additionalProperties": False})
    assert check.first_error({1: 2}).validator == "additionalProperties"
    check = SchemaCheck({"type": "object", "properties": {"a": {"maxLength": 1}}})
    assert check.first_error({"a": "\ud800\ud800"}).validator == "maxLength"
    assert check.first_error({"a": "\ud800"}) is None


def page() -> dict:
    return {"agent_id": "a", "delivery": 1, "issues": [rich(f"X-{n}", n) for n in range(1, 4)],
            "neighbors": [rich("N-1", 9)]}


def test_a_valid_page_is_never_walked_by_jsonschema(monkeypatch):
    check = SchemaCheck(schemas.STATE_PAGE)
    monkeypatch.setattr(check, "_validator", None)  # any use of it would fail
    assert check.first_error(page()) is None


def mutated(rng: random.Random, value):
    """``value`` with one member somewhere replaced, removed or added."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        name = rng.choice(list(value))
        roll = rng.random()
        if roll < 0.2:
            del value[name]
        elif roll < 0.3:
            value[rng.choice(["key", "id", "links", "x", "inward", "outward", "items"])] = garbage(rng)
        else:
            value[name] = mutated(rng, value[name])
        return value
    if isinstance(value, list) and value and rng.random() < 0.8:
        n = rng.randrange(len(value))
        value[n] = mutated(rng, value[n])
        return value
    return rng.choice([garbage(rng), "", "x" * 300, None, 1.0, 2**63, -1, True, [], {},
                       "AURORA-1\n", "a b"])


def test_the_compiled_check_refuses_whatever_jsonschema_refuses():
    rng = random.Random(3)
    valid = page()
    pairs = [(SchemaCheck(schema), Draft202012Validator(schema)) for schema in SCHEMAS]
    state_page = (SchemaCheck(schemas.STATE_PAGE), Draft202012Validator(schemas.STATE_PAGE))
    for _ in range(3000):
        check, validator = rng.choice(pairs + [state_page] * len(pairs))
        value = mutated(rng, copy.deepcopy(valid)) if check is state_page[0] else garbage(rng)
        error = next(validator.iter_errors(value), None)
        try:
            if not check._compiled.is_valid(value):
                continue
        except ValueError:  # lone surrogates: first_error leaves them to jsonschema
            continue
        assert error is None, (value, error.message[:200])
        assert check.first_error(value) is None


@pytest.mark.parametrize("value", [1.0, 48213.0])
def test_an_integer_written_as_a_float_is_an_integer(value):
    attachment = {"id": "1", "filename": "f", "size": value}
    assert SchemaCheck(schemas.ATTACHMENT).first_error(attachment) is None
