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

Each schema is compiled once (:mod:`jsonschema_rs`, draft 2020-12, the schema
as written), and the same check both decides and names the first error: its
error carries the instance path (the field), the schema path (the rule broken,
read back from the schema) and the kind of error, which are put in the hub's
own words here.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, NamedTuple

import falcon
import jsonschema_rs
import orjson

from hub.clock import UTC_TIME_PATTERN
from hub.errors import ContractError
from hub.vocabulary import ISSUE_KEY_PATTERN, JIRA_ID_PATTERN


def accepts(schema: dict, *, optional: bool = False):
    """Validate the JSON body of the decorated responder against ``schema``. With ``optional``, a
    request without a body (none sent, or an empty one) is taken as ``{}``."""
    validator = SchemaCheck(schema)

    def hook(req: falcon.Request, resp, resource, params) -> None:
        if optional and not req.content_length:
            req.context.body = _checked(validator, {})
            return
        req.context.body = _checked(validator, _read_json(req))

    def decorate(responder):
        wrapped = falcon.before(hook)(responder)
        wrapped.request_schema = schema
        wrapped.request_optional = optional
        return wrapped

    return decorate


def query(schema: dict):
    """Validate the query string: integer properties are read as integers."""
    validator = SchemaCheck(schema)
    properties = schema.get("properties", {})

    def hook(req: falcon.Request, resp, resource, params) -> None:
        values: dict[str, object] = {}
        for name, raw in req.params.items():
            if isinstance(raw, list):
                raise ContractError(f"query parameter {name!r} is given more than once", name)
            if "\x00" in raw:
                # No stored text holds one on PostgreSQL (hub.db.nul_free_text): a NUL names nothing.
                raise ContractError(f"query parameter {name!r} holds a NUL character (%00)", name)
            kind = properties.get(name, {}).get("type")
            value: object = raw
            # An issue key in any case is the key, as Jira reads it (parent=aurora-12); ASCII only,
            # so that a look-alike of another alphabet is still refused.
            if (properties.get(name, {}).get("pattern") == ISSUE_KEY_PATTERN and raw.isascii()
                    and _ISSUE_KEY.match(raw.upper())):
                value = raw.upper()
            if kind == "integer":
                try:
                    value = int(raw)
                except ValueError:
                    raise ContractError(f"query parameter {name!r} must be an integer", name) from None
            values[name] = value
        req.context.query = _checked(validator, values)

    def decorate(responder):
        wrapped = falcon.before(hook)(responder)
        wrapped.query_schema = schema
        return wrapped

    return decorate


_ISSUE_KEY = re.compile(ISSUE_KEY_PATTERN)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abAB]")
# Far above any body the contract allows (a state page is about 6 levels deep)
# and far below the depth at which the parser or the validator would recurse
# past Python's stack.
MAX_DEPTH = 64
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
        value = _parse(raw)
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


def _parse(raw: bytes):
    """The JSON value of ``raw``: read by orjson, in half the time of :mod:`json` (a page of
    100 whole issues is close to a megabyte); whatever orjson refuses (NaN, a number past a
    double, text not in UTF-8, a BOM) is read again by :mod:`json`, which accepts or refuses
    it exactly as the hub always has and says why. (orjson reads an integer past 64 bits as a
    float; the schemas bound every integer the hub keeps far below that.)"""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw, parse_constant=_reject_constant)


def _too_deep() -> falcon.HTTPBadRequest:
    return falcon.HTTPBadRequest(
        title="JSON nested too deep",
        description=f"Arrays and objects may nest at most {MAX_DEPTH} levels deep.")


def _nested_deeper_than(raw: bytes, limit: int) -> bool:
    """Whether arrays and objects in ``raw`` nest more than ``limit`` deep.

    Done on the bytes, before parsing, at C speed: strings are cut out
    (escaped backslashes and quotes first, so that every quote left opens or
    closes a string; an unterminated string runs to the end), every byte but
    brackets dropped, then innermost pairs removed one level per pass.
    Unbalanced brackets are left for the parser to call malformed.
    """
    if len(raw) <= 2 * limit:
        return False
    # Each search is skipped where it would replace nothing: a search of a megabyte
    # costs about as much as the replacing.
    if b"\\\\" in raw:
        raw = raw.replace(b"\\\\", b"")
    if b'\\"' in raw:
        raw = raw.replace(b'\\"', b"")
    # A string without brackets is two quotes side by side once the rest is dropped:
    # removing every such pair leaves the quotes alternating, hides no bracket (nothing
    # stood between them), and leaves few strings for the split.
    quoted = raw.translate(None, _NOT_BRACKETS_OR_QUOTES).replace(b'""', b"")
    brackets = b"".join(quoted.split(b'"')[::2]) if b'"' in quoted else quoted
    for _ in range(limit):
        if not brackets:
            return False
        # Both kinds of pair in one pass: a pair removed leaves a mark that
        # keeps the brackets around it apart until the next pass.
        inner = brackets.replace(b"[]", b"\0").replace(b"{}", b"\0")
        if len(inner) == len(brackets):
            return False
        brackets = inner.replace(b"\0", b"")
    return b"[]" in brackets or b"{}" in brackets


def _reject_constant(name: str):
    # Python's json reads NaN and Infinity, which JSON does not have.
    raise ValueError(f"{name} is not a JSON value")


class Refusal(NamedTuple):
    """Why a value is refused: the offending field (None for the value as a
    whole) and the words of the 422, which name the field first."""

    field: str | None
    message: str


class SchemaCheck:
    """One request schema, compiled (:mod:`jsonschema_rs`): the same check
    decides and names the first error."""

    def __init__(self, schema: dict):
        self._schema = schema
        self._compiled = jsonschema_rs.Draft202012Validator(schema)

    def first_error(self, value) -> Refusal | None:
        """Why ``value`` is refused, at its first error, or None when it is valid."""
        try:
            # validate stops at the first error: a body of a million wrong
            # values costs one error, not a million.
            self._compiled.validate(value)
        except jsonschema_rs.ValidationError as error:
            return _refusal(self._schema, _nearest_form(self._schema, error), value)
        except ValueError:
            # A lone surrogate or a key that is no string: no JSON text holds
            # one, so only a caller in Python can pass it.
            return Refusal(None, "is not a JSON value")
        return None


def _checked(validator: SchemaCheck, value):
    refusal = validator.first_error(value)
    if refusal is not None:
        raise ContractError(refusal.message, refusal.field)
    return value


def _at(node, steps):
    """What ``node`` holds at the end of a path of member names and indexes."""
    for step in steps:
        node = node[step]
    return node


def _nearest_form(schema: dict, error: jsonschema_rs.ValidationError) -> jsonschema_rs.ValidationError:
    """For a value that matches none of an ``anyOf``'s forms, the first error of
    the form it comes nearest to: the one with the fewest errors, then the one
    naming more of the members sent, then the deeper error (``{"total": -1}``
    is a refresh's result with a bad total, not a file's result missing two
    members)."""
    while isinstance(error.kind, jsonschema_rs.ValidationErrorKind.AnyOf) and any(error.kind.context):
        sent = set(error.instance) if isinstance(error.instance, dict) else set()
        depth = len(error.schema_path) + 1  # the path to a form: the anyOf's, then its index

        def distance(errors, depth=depth, sent=sent):
            named = sent & set(_at(schema, errors[0].schema_path[:depth]).get("properties", {}))
            return len(errors), -len(named), -len(errors[0].instance_path)

        error = min((errors for errors in error.kind.context if errors), key=distance)[0]
    return error


def _refusal(schema: dict, error: jsonschema_rs.ValidationError, value) -> Refusal:
    kind: str | None = error.kind.name
    if error.schema_path and error.schema_path[-1] == "dependentRequired":
        kind = "dependentRequired"  # reported as the required member it misses
    elif kind == "falseSchema":
        kind = None
    # The schema's own words (its types in its order) and the value as sent
    # (a float as a float): what the error carries is a converted copy.
    expected: Any = _at(schema, error.schema_path) if kind else None
    instance = _at(value, error.instance_path)
    parent = _at(schema, error.schema_path[:-1])
    if kind == "type" and isinstance(instance, float) and not math.isfinite(instance) and "number" in expected:
        # Python's json reads 1e400 as infinity, which the compiled check takes
        # for no number at all: where a number goes, the bound it passes is
        # the rule it breaks.
        bound = "maximum" if instance > 0 else "minimum"
        if bound in parent:
            kind, expected = bound, parent[bound]
    field = _field(kind, expected, instance, error.instance_path, parent)
    where = f"{field}: " if field else ""
    return Refusal(field, f"{where}{_describe(kind, expected, instance)}")


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


# The kinds of error whose words do not depend on the value (None: a false schema).
_FIXED_WORDS = {
    "required": "is required",
    "additionalProperties": "is not allowed here",
    "unevaluatedProperties": "is not allowed here",
    None: "is not allowed here",
    "uniqueItems": "must not repeat an item",
    "oneOf": "must match exactly one of the allowed forms",
    "anyOf": "matches none of the allowed forms",
}
# The shapes a person types most, said in words with an example rather than as the pattern.
_PATTERN_WORDS = {
    ISSUE_KEY_PATTERN: "is not an issue key: Jira's keys are a project key and a number, like AURORA-12",
    JIRA_ID_PATTERN: "is not a Jira id: Jira's ids are numbers, like 10001",
    UTC_TIME_PATTERN: "is not a UTC time: write a date and time like 2026-11-01T00:00:00Z",
}
_BOUND_WORDS = {"minimum": "at least", "maximum": "at most",
                "exclusiveMinimum": "more than", "exclusiveMaximum": "less than"}


def _describe(kind: str | None, expected, value) -> str:
    """What is wrong, in words that quote at most an excerpt of the value.

    The validator's own messages embed the whole offending value, which for a
    10 MB string would be echoed back whole.
    """
    if kind in _FIXED_WORDS:
        return _FIXED_WORDS[kind]
    if kind == "type":
        wanted = expected if isinstance(expected, list) else [expected]
        return f"must be {' or '.join(wanted)}, not {_JSON_TYPES.get(type(value), 'unknown')}"
    if kind == "dependentRequired":
        missing = next((f"{name} is required with {prop}" for prop, names in expected.items()
                        if prop in value for name in names if name not in value), "")
        return missing or "is missing a property that goes with another"
    bounded = _describe_bound(kind, expected, value)
    if bounded is not None:
        return bounded
    if kind == "pattern":
        return f"{_excerpt(value)} {_PATTERN_WORDS.get(expected, f'does not match {expected}')}"
    if kind == "enum":
        return f"{_excerpt(value)} is not one of {', '.join(map(_excerpt, expected))}"
    if kind == "const":
        return f"must be {_excerpt(expected)}"
    if kind == "not" and expected == {}:
        return "is not allowed here"
    return _cut(f"breaks the rule {kind!r}")


def _describe_bound(kind: str | None, expected, value) -> str | None:
    """The words for a bound on a length, a number of items or a number; None for another kind."""
    if kind in ("minLength", "maxLength"):
        bound = "at least" if kind == "minLength" else "at most"
        return f"must be {bound} {expected} characters, not {len(value)}"
    if kind in ("minItems", "maxItems"):
        bound = "at least" if kind == "minItems" else "at most"
        return f"must have {bound} {expected} items, not {len(value)}"
    if kind in _BOUND_WORDS:
        return f"must be {_BOUND_WORDS[kind]} {expected}, not {_excerpt(value)}"
    return None


def _field(kind: str | None, expected, instance, path, parent) -> str | None:
    path = [str(part) for part in path]
    if kind == "required":
        missing = next((name for name in expected if name not in instance), None)
        if missing:
            path.append(missing)
    elif kind == "dependentRequired" and isinstance(instance, dict):
        missing = next((name for prop, names in expected.items() if prop in instance
                        for name in names if name not in instance), None)
        if missing:
            path.append(missing)
    elif kind == "additionalProperties" and isinstance(instance, dict):
        allowed = set(parent.get("properties", {}))
        extra = sorted(set(instance) - allowed)
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
