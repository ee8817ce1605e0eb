"""JQL's fields over the mirror: the one table of which field names exist, their kind, and
where the mirror keeps them (SQL over the table ``issue``, written ``issue.<column>``).

A field's *kind* (:class:`Kind`) decides the operators it allows and the SQL of each
(:mod:`hub.services.search.jql.compiler`). The SQL here is the compiler's own text, chosen by
the field's name from this table, never the query's: values reach SQL as parameters only.

Custom fields are found in the issues' ``custom_fields`` (by field id: name, schema type,
custom type, value; see ``agent/mapping.py``), by name or as ``cf[10012]``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from enum import Enum

from hub import dialect
from hub.db import database
from hub.services.search.jql.tree import FieldRef, JqlError


class Kind(Enum):
    """What a field holds, which decides its operators."""

    TEXT = "text"            # ~, !~, IS: through the full-text index
    NAME = "name"            # one name (status, resolution, issue type, an option)
    PRIORITY = "priority"    # a name, ordered as Jira's configured priorities
    USER = "user"            # a login name (or a display name, as Jira resolves it)
    MULTI = "multi"          # a JSON array of names (labels, components, a multi-select)
    VERSION = "version"      # a JSON array of versions {id, name, released}
    SPRINT = "sprint"        # every sprint the issue was ever in (issue_sprint), by name or id
    PROJECT = "project"      # the project of the key
    KEY = "key"              # the key (or an old one of a moved issue), ranges within a project
    ID = "id"                # the Jira id (digits)
    KEY_REF = "key_ref"      # another issue's key (Epic Link, parent)
    DATETIME = "datetime"    # an instant, kept in UTC
    DATE = "date"            # a day (duedate, a date custom field), ``YYYY-MM-DD``
    NUMBER = "number"        # a number (a number custom field)


@dataclass(frozen=True)
class Field:
    """A field as the compiler reads it: its name as Jira spells it (for messages), its kind,
    the SQL of its value (``sql``: a column, or an expression of one), and for kinds that
    need more: ``fts`` (the columns of ``issue_fts`` a TEXT field is searched in),
    ``catalogue`` (the kind of ``jira_catalogue`` ordering its names), ``custom_id``
    (``customfield_10012``), ``sortable`` and ``history`` (WAS / CHANGED allowed)."""

    name: str
    kind: Kind
    sql: str = ""
    fts: str = ""
    catalogue: str | None = None
    custom_id: str | None = None
    sortable: bool = True
    history: bool = False
    unresolved: bool = False  # resolution: the value "Unresolved" is EMPTY, as in Jira
    # Jira always gives it a value: its order needs no term for empty values, and so can walk
    # the column's index.
    always: bool = False


def _fts(*columns: str) -> str:
    return "{" + " ".join(columns) + "}" if len(columns) > 1 else columns[0]


_TEXT_ALL = _fts("summary", "description", "comments", "other")
# Every system field, by its names folded (Jira's names and aliases).
_SYSTEM: dict[str, Field] = {}
for _names, _field in (
    (("project",), Field("project", Kind.PROJECT)),
    (("key", "issuekey", "issue"), Field("key", Kind.KEY, "issue.key")),
    (("id",), Field("id", Kind.ID, "issue.id")),
    (("summary",), Field("summary", Kind.TEXT, "issue.summary", fts="summary")),
    (("description",), Field("description", Kind.TEXT, "issue.description", fts="description")),
    (("environment",), Field("environment", Kind.TEXT, "issue.environment", fts="other")),
    (("comment",), Field("comment", Kind.TEXT, "", fts="comments", sortable=False)),
    (("text",), Field("text", Kind.TEXT, "", fts=_TEXT_ALL, sortable=False)),
    (("status",), Field("status", Kind.NAME, "issue.status", catalogue="status", history=True)),
    (("resolution",), Field("resolution", Kind.NAME, "issue.resolution", catalogue="resolution",
                            history=True, unresolved=True)),
    (("priority",), Field("priority", Kind.PRIORITY, "issue.priority", catalogue="priority", history=True)),
    (("issuetype", "type"), Field("issuetype", Kind.NAME, "issue.issue_type", catalogue="issue_type")),
    (("assignee",), Field("assignee", Kind.USER, "issue.assignee", history=True)),
    (("reporter",), Field("reporter", Kind.USER, "issue.reporter", history=True)),
    (("labels",), Field("labels", Kind.MULTI, "issue.labels")),
    (("component",), Field("component", Kind.MULTI, "issue.components")),
    (("fixversion",), Field("fixVersion", Kind.VERSION, "issue.fix_versions", sortable=False, history=True)),
    (("affectedversion",), Field("affectedVersion", Kind.VERSION, "issue.affects_versions", sortable=False)),
    (("sprint",), Field("sprint", Kind.SPRINT, "issue.sprint", sortable=False)),
    (("epic link", "epiclink"), Field("Epic Link", Kind.KEY_REF, "issue.epic_key")),
    (("parent",), Field("parent", Kind.KEY_REF, "issue.parent_key")),
    # created is kept as Jira wrote it (with its offset): jira_utc reads it as UTC.
    (("created", "createddate"), Field("created", Kind.DATETIME, "jira_utc(issue.created)", always=True)),
    (("updated", "updateddate"), Field("updated", Kind.DATETIME, "issue.jira_updated_at", always=True)),
    (("resolved", "resolutiondate"), Field("resolved", Kind.DATETIME, "issue.resolved_at")),
    (("duedate", "due"), Field("duedate", Kind.DATE, "issue.duedate")),
):
    for _name in _names:
        _SYSTEM[_name] = _field

# Custom fields' schema types and the kinds they are searched as; another type is a NAME.
_CUSTOM_KINDS = {"number": Kind.NUMBER, "date": Kind.DATE, "datetime": Kind.DATETIME, "user": Kind.USER,
                 "array": Kind.MULTI}
# Custom types of ``string`` fields searched by words (text fields); another string is a NAME.
_TEXT_CUSTOM = ("textfield", "textarea", "url", "readonlyfield")
# A field id as the protocol takes one: no quote or bracket that a JSON path or SQL would read.
_FIELD_ID = re.compile(r"[A-Za-z][A-Za-z0-9_.:\-]{0,254}")
# The custom fields the mirror keeps in columns of its own (hub.services.mirror.catalogues.COLUMN_FIELDS),
# by column: read there, whatever their id on the instance (the ``fields`` catalogue names it).
_COLUMNS = {"sprint": _SYSTEM["sprint"], "epic_key": _SYSTEM["epic link"],
            "planned_start": Field("Planned start", Kind.DATE, "issue.planned_start"),
            "planned_end": Field("Planned end", Kind.DATE, "issue.planned_end")}
_CATALOGUED = "SELECT jira_id, name, detail FROM jira_catalogue WHERE kind = 'field'"


def _column(ref: FieldRef) -> Field | None:
    """The column field ``ref`` names by its id (``cf[10510]``) or its name (``"Planned start"``),
    as the agent's ``fields`` catalogue lists them; None when it names none."""
    wanted = " ".join(ref.name.split()).casefold()
    for jira_id, name, detail in database.execute_sql(_CATALOGUED).fetchall():
        named = jira_id == f"customfield_{ref.custom_id}" if ref.custom_id is not None else name.casefold() == wanted
        column = _COLUMNS.get(json.loads(detail or "{}").get("column")) if named else None
        if column is not None:
            # Sprint and Epic Link keep Jira's system names; a planned date is named as Jira names it.
            return column if column.sql in ("issue.sprint", "issue.epic_key") else replace(column, name=name)
    return None


def field(ref: FieldRef) -> Field:
    """The field ``ref`` names: a system field (case-insensitive, aliases), a custom field the
    mirror keeps in a column (by id or name, :func:`_column`), another custom field by its name or
    ``cf[id]``; JqlError worded as Jira's when the mirror holds no such field."""
    system = _SYSTEM.get(" ".join(ref.name.split()).casefold()) if ref.custom_id is None else None
    if system is not None:
        return system
    column = _column(ref)
    if column is not None:
        return column
    if ref.custom_id is None:
        # The first issue that holds a custom field of that name: its id and schema.
        row = database.execute_sql(dialect.jql.current().custom_by_name(), [ref.name.casefold()]).fetchone()
    else:
        row = database.execute_sql(*dialect.jql.current().custom_by_id(f"customfield_{ref.custom_id}")).fetchone()
    if row is None:
        raise JqlError(f"Field '{ref.name}' does not exist or you do not have permission to view it.", ref.at)
    return custom(*row)


def custom(fid: str, schema_type: str | None, custom_type: str | None, name: str | None) -> Field:
    """A custom field as a :class:`Field`, by its id and schema (``/rest/api/2/field``)."""
    if not _FIELD_ID.fullmatch(fid):
        raise JqlError(f"Field '{name or fid}' cannot be searched: its id {fid!r} is not one Jira makes.")
    value = dialect.jql.current().extract("issue.custom_fields", fid, "value")
    kind = _CUSTOM_KINDS.get(schema_type or "", Kind.NAME)
    if schema_type == "string" and (custom_type or "").rpartition(":")[2] in _TEXT_CUSTOM:
        kind = Kind.TEXT
    if kind is Kind.DATETIME:
        value = f"jira_utc({value})"  # kept as Jira wrote it, with its offset
    elif kind is Kind.NUMBER:
        # Read as SQLite's CAST(… AS REAL) reads it on either engine: text by its leading number, else 0.
        value = dialect.jql.current().number("issue.custom_fields", fid, "value")
    # The custom field's value sits in its own column of custom_fields' JSON; its text is in
    # issue_fts' ``other`` (with the environment's and other text fields').
    return Field(name or fid, kind, value, fts="other", custom_id=fid, sortable=kind is not Kind.MULTI)
