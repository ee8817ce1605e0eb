"""Request validation at the edge, from JSON Schema definitions.

``@accepts(schema)`` validates a responder's JSON body and ``@query(schema)``
its query string, as Falcon hooks; the parsed values land in
``req.context.body`` and ``req.context.query``. The same schemas are attached
to the responders, which is what ``/openapi.json`` is generated from.

Bodies are bounded before they cost anything: a ``Content-Length`` past
``HUB_MAX_JSON_BYTES`` answers 413 unread, and nesting past :data:`MAX_DEPTH`
answers 400 before parsing. Malformed JSON answers 400; JSON that breaks the
schema answers 422 at its first error, with the offending field named
(``field`` in the error body) and at most an excerpt of the offending value.

Each schema is checked compiled (:mod:`fastjsonschema`, as draft-07) where it
can be: a valid body, the common case, then costs a small part of what jsonschema
walking it would. Only a body the compiled check refuses is walked by
jsonschema, which names the first error and has the last word: where the two
drafts differ at the edges, jsonschema's 2020-12 decides.
"""

from __future__ import annotations

import json
import re

import falcon
import fastjsonschema
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from hub.errors import ContractError


def accepts(schema: dict):
    """Validate the JSON body of the decorated responder against ``schema``."""
    validator = SchemaCheck(schema)

    def hook(req: falcon.Request, resp, resource, params) -> None:
        req.context.body = _checked(validator, _read_json(req))

    def decorate(responder):
        wrapped = falcon.before(hook)(responder)
        wrapped.request_schema = schema
        return wrapped

    return decorate


def query(schema: dict):
    """Validate the query string: integer properties are read as integers."""
    validator = SchemaCheck(schema)
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
# Far above any body the contract allows (a state page is about 6 levels deep)
# and far below the depth at which the parser or the validator would recurse
# past Python's stack.
MAX_DEPTH = 64
# A backslash and the character it escapes: cut out first, so that every quote
# left opens or closes a string.
_ESCAPE = re.compile(rb"\\[\s\S]")
_PAIR = re.compile(rb"\[\]|\{\}")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_NOT_BRACKETS_OR_QUOTES = bytes(b for b in range(256) if b not in b'[]{}"')
# How much of an offending value an error body may quote.
EXCERPT_CHARS = 40


class JsonBodyLimit:
    """Middleware that tells the ``@accepts`` hooks how large a JSON body may be.

    The limit is a setting (``HUB_MAX_JSON_BYTES``), so it travels with the
    request rather than living in a module constant.
    """

    def __init__(self, max_bytes: int):
        self._max_bytes = max_bytes

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.max_json_bytes = self._max_bytes


def _too_large(limit: int) -> falcon.HTTPContentTooLarge:
    return falcon.HTTPContentTooLarge(
        title="Body too large",
        description=f"A JSON body may be at most {limit} bytes (HUB_MAX_JSON_BYTES); "
                    "send fewer issues per page.",
    )


def _read_json(req: falcon.Request):
    limit = req.context.max_json_bytes
    # Refused from the header alone: a body past the limit is never read.
    if req.content_length is not None and req.content_length > limit:
        raise _too_large(limit)
    raw = req.bounded_stream.read(limit + 1)
    if len(raw) > limit:
        raise _too_large(limit)
    if not raw:
        raise falcon.HTTPBadRequest(title="Malformed JSON", description="The request body is empty.")
    if _nested_deeper_than(raw, MAX_DEPTH):
        raise _too_deep()
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
        if _SURROGATE_ESCAPE.search(raw):
            # JSON may escape half of a surrogate pair alone, which no UTF-8
            # text (and so no database column) can hold.
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        return value
    except RecursionError:
        # Unbalanced brackets escape the depth check; the parser then stops
        # at the interpreter's limit instead.
        raise _too_deep() from None
    except (ValueError, UnicodeError) as exc:
        raise falcon.HTTPBadRequest(
            title="Malformed JSON", description=f"The request body is not JSON text: {_cut(str(exc))}."
        ) from None


def _too_deep() -> falcon.HTTPBadRequest:
    return falcon.HTTPBadRequest(
        title="JSON nested too deep",
        description=f"Arrays and objects may nest at most {MAX_DEPTH} levels deep.")


def _nested_deeper_than(raw: bytes, limit: int) -> bool:
    """Whether arrays and objects in ``raw`` nest more than ``limit`` deep.

    Done on the bytes, before parsing, at C speed: strings are cut out (escapes
    first, then every other piece between quotes; an unterminated string runs
    to the end), every byte but brackets dropped, then innermost pairs removed
    one level per pass.
    Unbalanced brackets are left for the parser to call malformed.
    """
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    unescaped = _ESCAPE.sub(b"", raw) if b"\\" in raw else raw
    brackets = b"".join(unescaped.translate(None, _NOT_BRACKETS_OR_QUOTES).split(b'"')[::2])
    for _ in range(limit):
        if not brackets:
            return False
        inner = _PAIR.sub(b"", brackets)
        if len(inner) == len(brackets):
            return False
        brackets = inner
    return _PAIR.search(brackets) is not None


def _reject_constant(name: str):
    # Python's json reads NaN and Infinity, which JSON does not have.
    raise ValueError(f"{name} is not a JSON value")


class SchemaCheck:
    """One request schema, checked compiled where it can be; jsonschema names errors."""

    def __init__(self, schema: dict):
        self._validator = Draft202012Validator(schema)
        draft07 = as_draft07(schema)
        self._compiled = None
        if draft07 is not None:
            try:
                self._compiled = fastjsonschema.compile(
                    {**draft07, "$schema": "http://json-schema.org/draft-07/schema#"},
                    use_default=False, use_formats=False, detailed_exceptions=False)
            except fastjsonschema.JsonSchemaDefinitionException:
                pass  # a schema fastjsonschema cannot take: jsonschema checks it alone

    def first_error(self, value) -> ValidationError | None:
        """The first error of ``value``, or None when it is valid."""
        if self._compiled is not None:
            try:
                self._compiled(value)
                return None
            except fastjsonschema.JsonSchemaValueException:
                pass  # refused: jsonschema tells why, or finds it valid after all
        # The first error is enough to refuse the request; iter_errors is lazy, so
        # a body of a million wrong values costs one error, not a million.
        return next(self._validator.iter_errors(value), None)


# Keywords that mean the same in draft-07 and 2020-12, as the schemas use them.
_SAME_IN_DRAFT07 = {"type", "enum", "minLength", "maxLength", "pattern", "minimum",
                    "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems",
                    "maxItems", "uniqueItems", "required", "minProperties", "maxProperties",
                    "default", "title", "description"}
_SUBSCHEMA = {"items", "additionalProperties", "not", "if", "then", "else", "propertyNames"}
_SUBSCHEMAS = {"allOf", "anyOf", "oneOf"}
_SUBSCHEMA_MAPS = {"properties", "patternProperties"}


def as_draft07(schema):
    """``schema`` (2020-12) in a draft-07 form that accepts the same, or None.

    ``dependentRequired`` is draft-07's ``dependencies`` with lists, ``const``
    a one-value ``enum``, and a ``oneOf`` of members one of which is required
    a form that tries less; a keyword outside the known ones
    (``unevaluatedProperties``, ``prefixItems``, ``$ref``, ...) or an
    ``items`` list, whose meaning changed, gives None.
    """
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        return None
    out, also = {}, []
    for keyword, value in schema.items():
        if keyword in _SAME_IN_DRAFT07:
            out[keyword] = value
        elif keyword == "dependentRequired":
            out["dependencies"] = value
        elif keyword == "const" and "enum" not in schema:
            # The same as a one-value enum; fastjsonschema's const fails to
            # compile without its detailed exceptions.
            out["enum"] = [value]
        elif keyword == "oneOf" and _names_of_one_of(value):
            also += _exactly_one_of(_names_of_one_of(value))
        elif keyword in _SUBSCHEMA:
            out[keyword] = as_draft07(value)
            if out[keyword] is None:
                return None
        elif keyword in _SUBSCHEMAS:
            out[keyword] = [as_draft07(part) for part in value]
            if None in out[keyword]:
                return None
        elif keyword in _SUBSCHEMA_MAPS:
            out[keyword] = {name: as_draft07(part) for name, part in value.items()}
            if None in out[keyword].values():
                return None
        else:
            return None
    if also:
        out["allOf"] = [*out.get("allOf", ()), *also]
    return out


def _names_of_one_of(branches) -> list[str] | None:
    """The names of a ``oneOf`` that only says "exactly one of these members"."""
    names = [branch["required"][0] for branch in branches
             if isinstance(branch, dict) and list(branch) == ["required"] and len(branch["required"]) == 1]
    return names if len(names) == len(branches) and len(set(names)) == len(names) else None


def _exactly_one_of(names: list[str]) -> list[dict]:
    # A oneOf tries every branch, and a failed try is an exception raised and
    # caught: for each link of a page. This form tries a second branch only
    # when the first member is absent: at least one, and none beside another.
    return [{"anyOf": [{"required": [name]} for name in names]},
            {"dependencies": {name: {"properties": {other: False for other in names if other != name}}
                              for name in names}}]


def _checked(validator: SchemaCheck, value):
    error = validator.first_error(value)
    if error is not None:
        field = _field(error)
        where = f"{field}: " if field else ""
        raise ContractError(f"{where}{_describe(error)}", field)
    return value


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _excerpt(value) -> str:
    """A short, JSON-like rendering of ``value``: never the whole of a large one."""
    if isinstance(value, str):
        return json.dumps(value[:EXCERPT_CHARS], ensure_ascii=False)[:-1] + (
            "…\"" if len(value) > EXCERPT_CHARS else "\"")
    if isinstance(value, list):
        return f"an array of {len(value)} items"
    if isinstance(value, dict):
        return f"an object of {len(value)} members"
    return _cut(json.dumps(value), EXCERPT_CHARS)


_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number",
               list: "array", dict: "object", type(None): "null"}


def _describe(error: ValidationError) -> str:
    """What is wrong, in words that quote at most an excerpt of the value.

    jsonschema's own messages embed the whole offending value, which for a
    10 MB string would be echoed back whole.
    """
    kind, expected, value = error.validator, error.validator_value, error.instance
    if kind == "type":
        wanted = expected if isinstance(expected, list) else [expected]
        return f"must be {' or '.join(wanted)}, not {_JSON_TYPES.get(type(value), 'unknown')}"
    if kind == "required":
        return "is required"
    if kind in ("additionalProperties", "unevaluatedProperties") or kind is None:
        return "is not allowed here"
    if kind == "dependentRequired":
        missing = next((f"{name} is required with {prop}" for prop, names in expected.items()
                        if prop in value for name in names if name not in value), "")
        return missing or "is missing a property that goes with another"
    if kind in ("minLength", "maxLength"):
        bound = "at least" if kind == "minLength" else "at most"
        return f"must be {bound} {expected} characters, not {len(value)}"
    if kind in ("minItems", "maxItems"):
        bound = "at least" if kind == "minItems" else "at most"
        return f"must have {bound} {expected} items, not {len(value)}"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        words = {"minimum": "at least", "maximum": "at most",
                 "exclusiveMinimum": "more than", "exclusiveMaximum": "less than"}
        return f"must be {words[kind]} {expected}, not {_excerpt(value)}"
    if kind == "pattern":
        return f"{_excerpt(value)} does not match {expected}"
    if kind == "enum":
        return f"{_excerpt(value)} is not one of {', '.join(map(_excerpt, expected))}"
    if kind == "const":
        return f"must be {_excerpt(expected)}"
    if kind == "not" and expected == {}:
        return "is not allowed here"
    if kind == "uniqueItems":
        return "must not repeat an item"
    if kind == "oneOf":
        return "must match exactly one of the allowed forms"
    if kind == "anyOf":
        return "matches none of the allowed forms"
    return _cut(f"breaks the rule {kind!r}")


def _field(error: ValidationError) -> str | None:
    path = [str(part) for part in error.absolute_path]
    if error.validator == "required":
        missing = next((name for name in error.validator_value if name not in error.instance), None)
        if missing:
            path.append(missing)
    elif error.validator == "dependentRequired" and isinstance(error.instance, dict):
        missing = next((name for prop, names in error.validator_value.items() if prop in error.instance
                        for name in names if name not in error.instance), None)
        if missing:
            path.append(missing)
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - allowed)
        if extra:
            path.append(extra[0])
    # A member's name is the client's text too: quoted, like values, only in part.
    return ".".join(_cut(part, EXCERPT_CHARS) for part in path) or None


class IdConverter(falcon.routing.BaseConverter):
    """``{name:id}`` in a route: a positive 64-bit integer; anything else is 404."""

    def convert(self, value: str):
        if not value.isascii() or not value.isdigit() or len(value) > 19:
            return None
        number = int(value)
        return number if 1 <= number <= 2**63 - 1 else None
