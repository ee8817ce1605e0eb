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

Each schema is checked compiled (:mod:`jsonschema_rs`, the same 2020-12 draft,
the schema as written): a valid body, the common case, then costs a small part
of what jsonschema walking it would. Only a body the compiled check refuses is
walked by jsonschema, which names the first error and has the last word.
"""

from __future__ import annotations

import json
import re

import falcon
import jsonschema_rs
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
        values: dict[str, object] = {}
        for name, raw in req.params.items():
            if isinstance(raw, list):
                raise ContractError(f"query parameter {name!r} is given more than once", name)
            kind = properties.get(name, {}).get("type")
            value: object = raw
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

    Done on the bytes, before parsing, at C speed: strings are cut out
    (escaped backslashes and quotes first, so that every quote left opens or
    closes a string; an unterminated string runs to the end), every byte but
    brackets dropped, then innermost pairs removed one level per pass.
    Unbalanced brackets are left for the parser to call malformed.
    """
    if len(raw) <= 2 * limit:
        return False
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    brackets = b"".join(raw.translate(None, _NOT_BRACKETS_OR_QUOTES).split(b'"')[::2])
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


class SchemaCheck:
    """One request schema, checked compiled; jsonschema names the first error."""

    def __init__(self, schema: dict):
        self._validator = Draft202012Validator(schema)
        self._compiled = jsonschema_rs.Draft202012Validator(schema)

    def first_error(self, value) -> ValidationError | None:
        """The first error of ``value``, or None when it is valid."""
        try:
            if self._compiled.is_valid(value):
                return None
        except ValueError:
            pass  # a value JSON cannot hold (a dict with int keys): jsonschema decides
        # The first error is enough to refuse the request; iter_errors is lazy, so
        # a body of a million wrong values costs one error, not a million.
        return next(self._validator.iter_errors(value), None)


def _checked(validator: SchemaCheck, value):
    error = validator.first_error(value)
    if error is not None:
        error = _nearest_form(error)
        field = _field(error)
        where = f"{field}: " if field else ""
        raise ContractError(f"{where}{_describe(error)}", field)
    return value


def _nearest_form(error: ValidationError) -> ValidationError:
    """For a value that matches none of an ``anyOf``'s forms, the first error of
    the form it comes nearest to: the one with the fewest errors, then the one
    naming more of the members sent, then the deeper error (``{"total": -1}``
    is a refresh's result with a bad total, not a file's result missing two
    members)."""
    while error.validator == "anyOf" and error.context:
        forms: dict[int, list[ValidationError]] = {}
        for sub in error.context:
            forms.setdefault(sub.schema_path[0], []).append(sub)
        sent = set(error.instance) if isinstance(error.instance, dict) else set()

        def distance(item, forms_schema=error.validator_value):
            index, errs = item
            named = sent & set(forms_schema[index].get("properties", {}))
            return len(errs), -len(named), -len(errs[0].absolute_path)

        error = min(forms.items(), key=distance)[1][0]
    return error


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
