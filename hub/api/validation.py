"""Request validation at the edge, from JSON Schema definitions.

``@accepts(schema)`` validates a responder's JSON body and ``@query(schema)``
its query string, as Falcon hooks; the parsed values land in
``req.context.body`` and ``req.context.query``. The same schemas are attached
to the responders, which is what ``/openapi.json`` is generated from.

Malformed JSON answers 400; JSON that breaks the schema answers 422 with the
offending field named (``field`` in the error body).
"""

from __future__ import annotations

import json
import re

import falcon
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from hub.errors import ContractError


def accepts(schema: dict):
    """Validate the JSON body of the decorated responder against ``schema``."""
    validator = Draft202012Validator(schema)

    def hook(req: falcon.Request, resp, resource, params) -> None:
        req.context.body = _checked(validator, _read_json(req))

    def decorate(responder):
        wrapped = falcon.before(hook)(responder)
        wrapped.request_schema = schema
        return wrapped

    return decorate


def query(schema: dict):
    """Validate the query string: integer properties are read as integers."""
    validator = Draft202012Validator(schema)
    properties = schema.get("properties", {})

    def hook(req: falcon.Request, resp, resource, params) -> None:
        values = {}
        for name, raw in req.params.items():
            if isinstance(raw, list):
                raise ContractError(f"query parameter {name!r} is given more than once", name)
            kind = properties.get(name, {}).get("type")
            if kind == "integer":
                try:
                    raw = int(raw)
                except ValueError:
                    raise ContractError(f"query parameter {name!r} must be an integer", name) from None
            values[name] = raw
        req.context.query = _checked(validator, values)

    def decorate(responder):
        wrapped = falcon.before(hook)(responder)
        wrapped.query_schema = schema
        return wrapped

    return decorate


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abAB]")
# A JSON body is read whole; file contents travel as raw bodies, not JSON.
MAX_JSON_BYTES = 64 * 1024 * 1024


def _read_json(req: falcon.Request):
    if req.content_length is not None and req.content_length > MAX_JSON_BYTES:
        raise falcon.HTTPContentTooLarge(
            title="Body too large",
            description=f"A JSON body may be at most {MAX_JSON_BYTES} bytes; send fewer issues per page.",
        )
    raw = req.bounded_stream.read(MAX_JSON_BYTES + 1)
    if len(raw) > MAX_JSON_BYTES:
        raise falcon.HTTPContentTooLarge(
            title="Body too large", description=f"A JSON body may be at most {MAX_JSON_BYTES} bytes."
        )
    if not raw:
        raise falcon.HTTPBadRequest(title="Malformed JSON", description="The request body is empty.")
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
        if _SURROGATE_ESCAPE.search(raw):
            # JSON may escape half of a surrogate pair alone, which no UTF-8
            # text (and so no database column) can hold.
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        return value
    except (ValueError, UnicodeError) as exc:
        raise falcon.HTTPBadRequest(
            title="Malformed JSON", description=f"The request body is not JSON text: {exc}."
        ) from None


def _reject_constant(name: str):
    # Python's json reads NaN and Infinity, which JSON does not have.
    raise ValueError(f"{name} is not a JSON value")


def _checked(validator: Draft202012Validator, value):
    error = _first_error(validator, value)
    if error is not None:
        field = _field(error)
        where = f"{field}: " if field else ""
        raise ContractError(f"{where}{error.message}", field)
    return value


def _first_error(validator: Draft202012Validator, value) -> ValidationError | None:
    # The deepest, then leftmost error names the field most precisely.
    errors = sorted(validator.iter_errors(value), key=lambda e: (-len(e.absolute_path), list(map(str, e.absolute_path))))
    return errors[0] if errors else None


def _field(error: ValidationError) -> str | None:
    path = [str(part) for part in error.absolute_path]
    if error.validator == "required":
        missing = next((name for name in error.validator_value if name not in error.instance), None)
        if missing:
            path.append(missing)
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - allowed)
        if extra:
            path.append(extra[0])
    return ".".join(path) or None


class IdConverter(falcon.routing.BaseConverter):
    """``{name:id}`` in a route: a positive 64-bit integer; anything else is 404."""

    def convert(self, value: str):
        if not value.isascii() or not value.isdigit() or len(value) > 19:
            return None
        number = int(value)
        return number if 1 <= number <= 2**63 - 1 else None
