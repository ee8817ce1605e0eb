"""The tools as an assistant lists them: names, descriptions, input and output schemas and annotations.

They are the server's contract with assistants (docs/mcp.md): what the tools do may be rearranged
inside, what they say of themselves changes only on purpose, with this listing.
"""

from __future__ import annotations

import anyio
from mcp import Client

from hub.mcp.server import build_server


def test_the_listed_tools_are_exactly_as_documented():
    """Listing the tools reaches no hub: a port nothing listens on will do."""
    async def listing() -> list[dict]:
        async with Client(build_server("http://127.0.0.1:9", "a-token")) as client:
            tools = (await client.list_tools()).tools
        return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]

    listed = anyio.run(listing)
    assert [tool["name"] for tool in listed] == [tool["name"] for tool in LISTING]
    for tool, expected in zip(listed, LISTING, strict=True):
        assert tool == expected, tool["name"]


LISTING = [{'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': 'Search the mirrored Jira issues. Use it to find issues by words (`q`: full-text over '
                           'key, summary, description, comments, environment and text custom fields, ranked, each '
                           'item with a highlighted `snippet`), by a JQL query (`jql`), and/or by exact filters '
                           '(status, resolution, component, fix or affects version, sprint, parent, ...); page with '
                           "`cursor`. `jql` takes Jira's JQL, evaluated over the mirror as Jira would: AND, OR, NOT, "
                           'parentheses; = != > >= < <= ~ !~ IN, NOT IN, IS [NOT] EMPTY; fields project, key, '
                           'summary, description, comment, text, status, resolution, priority, type, assignee, '
                           'reporter, labels, component, fixVersion, affectedVersion, sprint, "Epic Link", parent, '
                           'created, updated, resolved, duedate and custom fields (by name or cf[10012]); dates '
                           '"2026/10/22" or -7d and startOfDay(), endOfWeek(), ... in the Jira user\'s time zone; '
                           'openSprints(), closedSprints(), futureSprints(), linkedIssues(KEY); WAS, CHANGED (FROM, '
                           'TO, BY, AFTER, BEFORE, ON, DURING) over the mirrored changelog; ORDER BY field '
                           '[ASC|DESC], default key DESC. currentUser() and what else needs Jira itself is refused, '
                           'naming it; a query that does not parse is refused with its position (line 1, character '
                           'N). Returns `items`, `total` (all matches, on the first page; null when the hub does not '
                           'count) and `next_cursor`. Issues gone from Jira (deleted, or no longer visible to the '
                           "agent's user) are left out unless `gone` asks for them. Then use get_issue for one "
                           "issue's details; list_filters and run_filter for the team's saved JQL.",
            'inputSchema': {'properties': {'affects_version': {'anyOf': [{'maxLength': 255,
                                                                          'minLength': 1,
                                                                          'type': 'string'},
                                                                         {'type': 'null'}],
                                                               'default': None,
                                                               'description': "an affected version's name or id",
                                                               'title': 'Affects Version'},
                                           'assignee': {'anyOf': [{'maxLength': 255,
                                                                   'minLength': 1,
                                                                   'type': 'string'},
                                                                  {'type': 'null'}],
                                                        'default': None,
                                                        'title': 'Assignee'},
                                           'component': {'anyOf': [{'maxLength': 255,
                                                                    'minLength': 1,
                                                                    'type': 'string'},
                                                                   {'type': 'null'}],
                                                         'default': None,
                                                         'description': "a component's name",
                                                         'title': 'Component'},
                                           'cursor': {'anyOf': [{'minimum': 1, 'type': 'integer'}, {'type': 'null'}],
                                                      'default': None,
                                                      'description': '`next_cursor` of the previous page',
                                                      'title': 'Cursor'},
                                           'epic_key': {'anyOf': [{'maxLength': 255,
                                                                   'minLength': 1,
                                                                   'type': 'string'},
                                                                  {'type': 'null'}],
                                                        'default': None,
                                                        'title': 'Epic Key'},
                                           'fix_version': {'anyOf': [{'maxLength': 255,
                                                                      'minLength': 1,
                                                                      'type': 'string'},
                                                                     {'type': 'null'}],
                                                           'default': None,
                                                           'description': "a fix version's name or id: issues to be "
                                                                          'released in it',
                                                           'title': 'Fix Version'},
                                           'gone': {'anyOf': [{'enum': ['false', 'true', 'any'], 'type': 'string'},
                                                              {'type': 'null'}],
                                                    'default': None,
                                                    'description': 'issues gone from Jira: left out by default '
                                                                   '(`false`); `true` for only those, `any` for all',
                                                    'title': 'Gone'},
                                           'issue_type': {'anyOf': [{'maxLength': 255,
                                                                     'minLength': 1,
                                                                     'type': 'string'},
                                                                    {'type': 'null'}],
                                                          'default': None,
                                                          'title': 'Issue Type'},
                                           'jql': {'anyOf': [{'maxLength': 10000, 'type': 'string'},
                                                             {'type': 'null'}],
                                                   'default': None,
                                                   'description': 'a JQL query, e.g. assignee = ivanov AND status in '
                                                                  '("In Progress", Review) ORDER BY priority DESC',
                                                   'title': 'Jql'},
                                           'label': {'anyOf': [{'maxLength': 255, 'minLength': 1, 'type': 'string'},
                                                               {'type': 'null'}],
                                                     'default': None,
                                                     'description': 'one Jira label',
                                                     'title': 'Label'},
                                           'limit': {'default': 20,
                                                     'description': 'issues per page',
                                                     'maximum': 100,
                                                     'minimum': 1,
                                                     'title': 'Limit',
                                                     'type': 'integer'},
                                           'parent': {'anyOf': [{'description': 'an issue key, e.g. AURORA-12',
                                                                 'maxLength': 255,
                                                                 'minLength': 1,
                                                                 'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',  # noqa: E501
                                                                 'type': 'string'},
                                                                {'type': 'null'}],
                                                      'default': None,
                                                      'description': "a parent issue's key: its sub-tasks",
                                                      'title': 'Parent'},
                                           'project': {'anyOf': [{'maxLength': 255, 'minLength': 1, 'type': 'string'},
                                                                 {'type': 'null'}],
                                                       'default': None,
                                                       'description': "a project's label (see list_projects)",
                                                       'title': 'Project'},
                                           'q': {'anyOf': [{'maxLength': 1000, 'minLength': 1, 'type': 'string'},
                                                           {'type': 'null'}],
                                                 'default': None,
                                                 'description': 'words to search for',
                                                 'title': 'Q'},
                                           'resolution': {'anyOf': [{'maxLength': 255,
                                                                     'minLength': 1,
                                                                     'type': 'string'},
                                                                    {'type': 'null'}],
                                                          'default': None,
                                                          'description': "a resolution's name (e.g. Fixed), or "
                                                                         '`none` for unresolved issues',
                                                          'title': 'Resolution'},
                                           'sort': {'anyOf': [{'const': 'priority', 'type': 'string'},
                                                              {'type': 'null'}],
                                                    'default': None,
                                                    'description': "`priority`: by Jira's configured order of "
                                                                   "priorities, then key; omit for the hub's usual "
                                                                   'order (or rank, with `q`)',
                                                    'title': 'Sort'},
                                           'sprint': {'anyOf': [{'maxLength': 10000,
                                                                 'minLength': 1,
                                                                 'type': 'string'},
                                                                {'type': 'null'}],
                                                      'default': None,
                                                      'description': "a sprint's id or name (see list_sprints): "
                                                                     'issues that were ever in it, past sprints '
                                                                     'included',
                                                      'title': 'Sprint'},
                                           'status': {'anyOf': [{'maxLength': 255, 'minLength': 1, 'type': 'string'},
                                                                {'type': 'null'}],
                                                      'default': None,
                                                      'title': 'Status'},
                                           'updated_since': {'anyOf': [{'maxLength': 64,
                                                                        'minLength': 1,
                                                                        'type': 'string'},
                                                                       {'type': 'null'}],
                                                             'default': None,
                                                             'description': 'a UTC time, e.g. '
                                                                            '2026-11-02T09:00:00+00:00: issues '
                                                                            'updated in Jira since then',
                                                             'title': 'Updated Since'}},
                            'title': 'search_issuesArguments',
                            'type': 'object'},
            'name': 'search_issues',
            'outputSchema': {'description': 'One page of issues.',
                             'properties': {'items': {'description': 'issues, as GET /api/v1/issues lists them (with '
                                                                     '`snippet` for `q`), but for `custom_fields`, '
                                                                     'by display name as get_issue shows them',
                                                      'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Items',
                                                      'type': 'array'},
                                            'next_cursor': {'anyOf': [{'type': 'integer'}, {'type': 'null'}],
                                                            'description': 'pass back as `cursor` for the next page; '
                                                                           'null on the last',
                                                            'title': 'Next Cursor'},
                                            'total': {'anyOf': [{'type': 'integer'}, {'type': 'null'}],
                                                      'description': 'how many issues match in all: the hub counts '
                                                                     'them on the first page (no `cursor`); null on '
                                                                     'later pages or when the hub does not count',
                                                      'title': 'Total'}},
                             'required': ['items', 'total', 'next_cursor'],
                             'title': 'IssuePage',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': 'One issue in full: its fields and description with resolution, components, fix and affects '
                           'versions, environment, parent, sprints with their state, time tracking (`2h 30m`), its '
                           'worklogs counted and summed, its custom fields by display name, its sub-tasks, its links '
                           "both ways worded as Jira words them (`blocks AURORA-13`) with the other issue's summary "
                           "and status, its attachments with their states, the hub's notes, the transitions Jira "
                           'offers (where each goes, the fields it requires) and its editable fields with their '
                           'allowed values, and its writes still on their way to Jira (`pending_writes`). An old key '
                           'of an issue Jira moved finds it under its new key (`moved` says so). `include` adds the '
                           'first page of comments and/or changes (changelog), with their totals; page further with '
                           'get_comments / get_changelog, and read worklogs with get_worklogs. Text fields '
                           '(description, environment, multi-line custom fields, comments) are Markdown the hub '
                           "renders from Jira's wiki markup; `format: wiki` gives them as Jira holds them.",
            'inputSchema': {'properties': {'format': {'default': 'markdown',
                                                      'description': 'how text fields come: `markdown` (the default: '
                                                                     "rendered by the hub from Jira's wiki markup, "
                                                                     "which assistants read best) or `wiki` (Jira's "
                                                                     'wiki markup as Jira holds it)',
                                                      'enum': ['markdown', 'wiki'],
                                                      'title': 'Format',
                                                      'type': 'string'},
                                           'include': {'anyOf': [{'items': {'enum': ['comments', 'changes'],
                                                                            'type': 'string'},
                                                                  'maxItems': 2,
                                                                  'type': 'array'},
                                                                 {'type': 'null'}],
                                                       'default': None,
                                                       'description': 'what else to add: comments, changes',
                                                       'title': 'Include'},
                                           'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'}},
                            'required': ['key'],
                            'title': 'get_issueArguments',
                            'type': 'object'},
            'name': 'get_issue',
            'outputSchema': {'$defs': {'EditableField': {'description': "A field on one of Jira's screens (the edit "
                                                                        "screen, a transition's, a create screen).",
                                                         'properties': {'allowed': {'anyOf': [{'items': {'type': 'string'},  # noqa: E501
                                                                                               'type': 'array'},
                                                                                              {'type': 'null'}],
                                                                                    'description': 'the values it '
                                                                                                   'takes (names), at '
                                                                                                   'most 50; null when '
                                                                                                   'Jira lists none '
                                                                                                   '(free text, users)',
                                                                                    'title': 'Allowed'},
                                                                        'id': {'description': "the field's Jira id: "
                                                                                              '`resolution`, '
                                                                                              '`priority`, '
                                                                                              '`customfield_10010`',
                                                                               'title': 'Id',
                                                                               'type': 'string'},
                                                                        'name': {'description': 'its display name',
                                                                                 'title': 'Name',
                                                                                 'type': 'string'},
                                                                        'operations': {'description': 'how it may be '
                                                                                                      'changed: set, '
                                                                                                      'add, remove',
                                                                                       'items': {'type': 'string'},
                                                                                       'title': 'Operations',
                                                                                       'type': 'array'},
                                                                        'required': {'title': 'Required',
                                                                                     'type': 'boolean'},
                                                                        'type': {'anyOf': [{'type': 'string'},
                                                                                           {'type': 'null'}],
                                                                                 'description': "Jira's schema type: "
                                                                                                'string, priority, '
                                                                                                'user, array, option, '
                                                                                                '...',
                                                                                 'title': 'Type'}},
                                                         'required': ['id',
                                                                      'name',
                                                                      'type',
                                                                      'required',
                                                                      'allowed',
                                                                      'operations'],
                                                         'title': 'EditableField',
                                                         'type': 'object'},
                                       'EntryPage': {'description': "One page of an issue's comments or changelog, "
                                                                    'with the total count.',
                                                     'properties': {'format': {'anyOf': [{'enum': ['markdown',
                                                                                                   'jira-wiki'],
                                                                                          'type': 'string'},
                                                                                         {'type': 'null'}],
                                                                               'description': 'the markup of text '
                                                                                              'fields: comment bodies '
                                                                                              'are Markdown '
                                                                                              '(`markdown`, rendered '
                                                                                              "by the hub from Jira's "
                                                                                              'wiki markup) or Jira '
                                                                                              'wiki markup as Jira '
                                                                                              'holds them '
                                                                                              '(`jira-wiki`)',
                                                                               'title': 'Format'},
                                                                    'items': {'items': {'additionalProperties': True,
                                                                                        'type': 'object'},
                                                                              'title': 'Items',
                                                                              'type': 'array'},
                                                                    'key': {'title': 'Key', 'type': 'string'},
                                                                    'next_cursor': {'anyOf': [{'type': 'integer'},
                                                                                              {'type': 'null'}],
                                                                                    'description': 'pass back as '
                                                                                                   '`cursor` for the '
                                                                                                   'next page; null on '
                                                                                                   'the last',
                                                                                    'title': 'Next Cursor'},
                                                                    'total': {'description': 'how many the issue has '
                                                                                             'in all; never silently '
                                                                                             'cut',
                                                                              'title': 'Total',
                                                                              'type': 'integer'}},
                                                     'required': ['key', 'format', 'items', 'total', 'next_cursor'],
                                                     'title': 'EntryPage',
                                                     'type': 'object'},
                                       'LinkedIssue': {'description': 'One link of an issue, worded as Jira words it, '
                                                                      "with the other issue's summary and status\n"
                                                                      'when the mirror holds it.',
                                                       'properties': {'gone': {'default': False,
                                                                               'description': 'the other issue is gone '
                                                                                              'from Jira (the mirror '
                                                                                              'keeps it)',
                                                                               'title': 'Gone',
                                                                               'type': 'boolean'},
                                                                      'in_mirror': {'title': 'In Mirror',
                                                                                    'type': 'boolean'},
                                                                      'key': {'title': 'Key', 'type': 'string'},
                                                                      'phrase': {'description': 'the link as read from '
                                                                                                'this issue: `blocks` '
                                                                                                'outward, `is blocked '
                                                                                                "by` inward (Jira's "
                                                                                                'names of the link '
                                                                                                'type; its type name '
                                                                                                'when unknown)',
                                                                                 'title': 'Phrase',
                                                                                 'type': 'string'},
                                                                      'status': {'anyOf': [{'type': 'string'},
                                                                                           {'type': 'null'}],
                                                                                 'title': 'Status'},
                                                                      'summary': {'anyOf': [{'type': 'string'},
                                                                                            {'type': 'null'}],
                                                                                  'title': 'Summary'},
                                                                      'text': {'description': 'the phrase and the '
                                                                                              'other issue: `blocks '
                                                                                              'AURORA-13`',
                                                                               'title': 'Text',
                                                                               'type': 'string'},
                                                                      'type': {'title': 'Type', 'type': 'string'}},
                                                       'required': ['type',
                                                                    'phrase',
                                                                    'text',
                                                                    'key',
                                                                    'summary',
                                                                    'status',
                                                                    'in_mirror'],
                                                       'title': 'LinkedIssue',
                                                       'type': 'object'},
                                       'Links': {'properties': {'inward': {'description': "other issues' links to this "
                                                                                          'one',
                                                                           'items': {'$ref': '#/$defs/LinkedIssue'},
                                                                           'title': 'Inward',
                                                                           'type': 'array'},
                                                                'outward': {'description': "this issue's links to "
                                                                                           'others (it blocks, relates '
                                                                                           'to, ...)',
                                                                            'items': {'$ref': '#/$defs/LinkedIssue'},
                                                                            'title': 'Outward',
                                                                            'type': 'array'}},
                                                 'required': ['outward', 'inward'],
                                                 'title': 'Links',
                                                 'type': 'object'},
                                       'TimeTracking': {'description': "An issue's time tracking in Jira's notation "
                                                                       '(`1w 2d 3h 30m`: a day of 8 hours, a week of 5 '
                                                                       'days).',
                                                        'properties': {'original_estimate': {'anyOf': [{'type': 'string'},  # noqa: E501
                                                                                                       {'type': 'null'}],  # noqa: E501
                                                                                             'description': 'the '
                                                                                                            'original '
                                                                                                            'estimate; '
                                                                                                            'null when '
                                                                                                            'none',
                                                                                             'title': 'Original '
                                                                                                      'Estimate'},
                                                                       'remaining': {'anyOf': [{'type': 'string'},
                                                                                               {'type': 'null'}],
                                                                                     'description': 'the remaining '
                                                                                                    'estimate; null '
                                                                                                    'when none',
                                                                                     'title': 'Remaining'},
                                                                       'spent': {'anyOf': [{'type': 'string'},
                                                                                           {'type': 'null'}],
                                                                                 'description': 'the time logged, as '
                                                                                                'Jira sums it; null '
                                                                                                'when none',
                                                                                 'title': 'Spent'}},
                                                        'required': ['original_estimate', 'remaining', 'spent'],
                                                        'title': 'TimeTracking',
                                                        'type': 'object'},
                                       'TransitionOption': {'description': 'One transition Jira offers an issue now.',
                                                            'properties': {'fields': {'description': 'the fields its '
                                                                                                     'screen takes; '
                                                                                                     'the required '
                                                                                                     'ones must be '
                                                                                                     'given',
                                                                                      'items': {'$ref': '#/$defs/EditableField'},  # noqa: E501
                                                                                      'title': 'Fields',
                                                                                      'type': 'array'},
                                                                           'id': {'title': 'Id', 'type': 'string'},
                                                                           'name': {'title': 'Name', 'type': 'string'},
                                                                           'text': {'description': 'the transition in '
                                                                                                   'a line: `Resolve '
                                                                                                   'Issue (31) → '
                                                                                                   'Resolved; requires '
                                                                                                   'Resolution`',
                                                                                    'title': 'Text',
                                                                                    'type': 'string'},
                                                                           'to': {'anyOf': [{'type': 'string'},
                                                                                            {'type': 'null'}],
                                                                                  'description': 'the status it leads '
                                                                                                 'to',
                                                                                  'title': 'To'}},
                                                            'required': ['id', 'name', 'to', 'text', 'fields'],
                                                            'title': 'TransitionOption',
                                                            'type': 'object'},
                                       'WorklogTotal': {'properties': {'count': {'description': 'how many worklogs the '
                                                                                                'mirror holds for the '
                                                                                                'issue (get_worklogs '
                                                                                                'lists them)',
                                                                                 'title': 'Count',
                                                                                 'type': 'integer'},
                                                                       'time_spent': {'description': 'their time '
                                                                                                     'summed, in '
                                                                                                     "Jira's notation",
                                                                                      'title': 'Time Spent',
                                                                                      'type': 'string'},
                                                                       'time_spent_seconds': {'title': 'Time Spent '
                                                                                                       'Seconds',
                                                                                              'type': 'integer'}},
                                                        'required': ['count', 'time_spent', 'time_spent_seconds'],
                                                        'title': 'WorklogTotal',
                                                        'type': 'object'}},
                             'description': 'One issue as the mirror holds it.',
                             'properties': {'attachments': {'description': 'its attachments, each with `state` (ready, '
                                                                           'fetching, failed, none)',
                                                            'items': {'additionalProperties': True, 'type': 'object'},
                                                            'title': 'Attachments',
                                                            'type': 'array'},
                                            'changes': {'anyOf': [{'$ref': '#/$defs/EntryPage'}, {'type': 'null'}],
                                                        'default': None,
                                                        'description': 'the first page of changes, with `include: '
                                                                       'changes`'},
                                            'comments': {'anyOf': [{'$ref': '#/$defs/EntryPage'}, {'type': 'null'}],
                                                         'default': None,
                                                         'description': 'the first page of comments, with `include: '
                                                                        'comments`'},
                                            'custom_fields': {'additionalProperties': {'type': 'string'},
                                                              'description': "the issue's other Jira fields by display "
                                                                             'name, each value as text (`Story '
                                                                             'Points`: `5`; lists joined with `, `; '
                                                                             'cut to 1000 characters, ending in `…`); '
                                                                             'a name two fields share is followed by '
                                                                             "the field's id",
                                                              'title': 'Custom Fields',
                                                              'type': 'object'},
                                            'editable_fields': {'anyOf': [{'items': {'$ref': '#/$defs/EditableField'},
                                                                           'type': 'array'},
                                                                          {'type': 'null'}],
                                                                'default': None,
                                                                'description': "the fields Jira's edit screen offers "
                                                                               '(for update_issue), with what each '
                                                                               'allows; null when the hub does not '
                                                                               'know them yet',
                                                                'title': 'Editable Fields'},
                                            'fields': {'additionalProperties': True,
                                                       'description': "the issue's fields as GET /api/v1/issues/{key} "
                                                                      'answers them (`description`, `environment`, '
                                                                      '`resolution`, `resolved`, `components`, '
                                                                      '`fix_versions` and `affects_versions` with '
                                                                      '`released`, `parent_key`, `sprints` with their '
                                                                      'state, time tracking in seconds, `people`, '
                                                                      '...), but for `links`, `subtasks` and '
                                                                      '`custom_fields`, which follow',
                                                       'title': 'Fields',
                                                       'type': 'object'},
                                            'format': {'description': '`description`, `environment`, multi-line custom '
                                                                      'fields (and comment bodies) are Markdown '
                                                                      "(`markdown`, rendered by the hub from Jira's "
                                                                      'wiki markup) or Jira wiki markup (`jira-wiki`)',
                                                       'enum': ['markdown', 'jira-wiki'],
                                                       'title': 'Format',
                                                       'type': 'string'},
                                            'gone': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                     'default': None,
                                                     'description': 'set when the issue is gone from Jira (deleted, or '
                                                                    "no longer visible to the agent's user): since "
                                                                    'when and why, in a sentence; its fields are as '
                                                                    'last mirrored. Null while Jira returns it',
                                                     'title': 'Gone'},
                                            'key': {'description': 'the key the issue has now (asked by an old key, '
                                                                   "the moved issue's)",
                                                    'title': 'Key',
                                                    'type': 'string'},
                                            'links': {'$ref': '#/$defs/Links'},
                                            'moved': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                      'default': None,
                                                      'description': 'when Jira moved the issue to another key: which '
                                                                     'keys it had before (`moved_from` in `fields`), '
                                                                     'and that the key asked is an old one',
                                                      'title': 'Moved'},
                                            'notes': {'description': "the hub's own notes on it",
                                                      'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Notes',
                                                      'type': 'array'},
                                            'pending_writes': {'description': 'writes to this issue still to reach '
                                                                              'Jira (pending or applying), oldest '
                                                                              'first: the mirror does not show them '
                                                                              'until they are done',
                                                               'items': {'additionalProperties': True,
                                                                         'type': 'object'},
                                                               'title': 'Pending Writes',
                                                               'type': 'array'},
                                            'screens': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                        'default': None,
                                                        'description': 'what is not known of transitions and editable '
                                                                       'fields, and why',
                                                        'title': 'Screens'},
                                            'subtasks': {'description': 'its sub-tasks: key, summary, status, gone',
                                                         'items': {'additionalProperties': True, 'type': 'object'},
                                                         'title': 'Subtasks',
                                                         'type': 'array'},
                                            'time_tracking': {'$ref': '#/$defs/TimeTracking'},
                                            'transitions': {'anyOf': [{'items': {'$ref': '#/$defs/TransitionOption'},
                                                                       'type': 'array'},
                                                                      {'type': 'null'}],
                                                            'default': None,
                                                            'description': 'the transitions Jira offers the issue now '
                                                                           '(for transition_issue): where each goes '
                                                                           'and the fields its screen takes; null when '
                                                                           'the hub does not know them yet (the agent '
                                                                           'has not sent them)',
                                                            'title': 'Transitions'},
                                            'worklogs': {'$ref': '#/$defs/WorklogTotal'}},
                             'required': ['key',
                                          'format',
                                          'fields',
                                          'custom_fields',
                                          'time_tracking',
                                          'worklogs',
                                          'subtasks',
                                          'links',
                                          'attachments',
                                          'notes'],
                             'title': 'IssueDetail',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': "An issue's comments, oldest first, a page at a time, with `total`: bodies are Markdown "
                           "the hub renders from Jira's wiki markup (`format: wiki` for the markup as Jira holds "
                           'it). Use it to read a discussion in full; follow `next_cursor` until it is null.',
            'inputSchema': {'properties': {'cursor': {'anyOf': [{'minimum': 0, 'type': 'integer'}, {'type': 'null'}],
                                                      'default': None,
                                                      'description': '`next_cursor` of the previous page; omit for '
                                                                     'the first',
                                                      'title': 'Cursor'},
                                           'format': {'default': 'markdown',
                                                      'description': 'how text fields come: `markdown` (the default: '
                                                                     "rendered by the hub from Jira's wiki markup, "
                                                                     "which assistants read best) or `wiki` (Jira's "
                                                                     'wiki markup as Jira holds it)',
                                                      'enum': ['markdown', 'wiki'],
                                                      'title': 'Format',
                                                      'type': 'string'},
                                           'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'},
                                           'limit': {'default': 50,
                                                     'maximum': 200,
                                                     'minimum': 1,
                                                     'title': 'Limit',
                                                     'type': 'integer'}},
                            'required': ['key'],
                            'title': 'get_commentsArguments',
                            'type': 'object'},
            'name': 'get_comments',
            'outputSchema': {'description': "One page of an issue's comments or changelog, with the total count.",
                             'properties': {'format': {'anyOf': [{'enum': ['markdown', 'jira-wiki'],
                                                                  'type': 'string'},
                                                                 {'type': 'null'}],
                                                       'description': 'the markup of text fields: comment bodies are '
                                                                      'Markdown (`markdown`, rendered by the hub '
                                                                      "from Jira's wiki markup) or Jira wiki markup "
                                                                      'as Jira holds them (`jira-wiki`)',
                                                       'title': 'Format'},
                                            'items': {'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Items',
                                                      'type': 'array'},
                                            'key': {'title': 'Key', 'type': 'string'},
                                            'next_cursor': {'anyOf': [{'type': 'integer'}, {'type': 'null'}],
                                                            'description': 'pass back as `cursor` for the next page; '
                                                                           'null on the last',
                                                            'title': 'Next Cursor'},
                                            'total': {'description': 'how many the issue has in all; never silently '
                                                                     'cut',
                                                      'title': 'Total',
                                                      'type': 'integer'}},
                             'required': ['key', 'format', 'items', 'total', 'next_cursor'],
                             'title': 'EntryPage',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': "An issue's changelog, oldest first, one item per changed field (who, when, from, to), a "
                           'page at a time, with `total`. Use it to see how an issue moved: status changes, '
                           'reassignments, edits.',
            'inputSchema': {'properties': {'cursor': {'anyOf': [{'minimum': 0, 'type': 'integer'}, {'type': 'null'}],
                                                      'default': None,
                                                      'description': '`next_cursor` of the previous page; omit for '
                                                                     'the first',
                                                      'title': 'Cursor'},
                                           'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'},
                                           'limit': {'default': 50,
                                                     'maximum': 200,
                                                     'minimum': 1,
                                                     'title': 'Limit',
                                                     'type': 'integer'}},
                            'required': ['key'],
                            'title': 'get_changelogArguments',
                            'type': 'object'},
            'name': 'get_changelog',
            'outputSchema': {'description': "One page of an issue's comments or changelog, with the total count.",
                             'properties': {'format': {'anyOf': [{'enum': ['markdown', 'jira-wiki'],
                                                                  'type': 'string'},
                                                                 {'type': 'null'}],
                                                       'description': 'the markup of text fields: comment bodies are '
                                                                      'Markdown (`markdown`, rendered by the hub '
                                                                      "from Jira's wiki markup) or Jira wiki markup "
                                                                      'as Jira holds them (`jira-wiki`)',
                                                       'title': 'Format'},
                                            'items': {'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Items',
                                                      'type': 'array'},
                                            'key': {'title': 'Key', 'type': 'string'},
                                            'next_cursor': {'anyOf': [{'type': 'integer'}, {'type': 'null'}],
                                                            'description': 'pass back as `cursor` for the next page; '
                                                                           'null on the last',
                                                            'title': 'Next Cursor'},
                                            'total': {'description': 'how many the issue has in all; never silently '
                                                                     'cut',
                                                      'title': 'Total',
                                                      'type': 'integer'}},
                             'required': ['key', 'format', 'items', 'total', 'next_cursor'],
                             'title': 'EntryPage',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': "An issue's worklogs (who logged how much time when, and why), oldest first, a page at a "
                           'time, with `total` and the time of them all (`2h 30m`: a day of 8 hours, a week of 5 '
                           'days). Use it to see where time on an issue went. Comments are Markdown (`format: wiki` '
                           "for Jira's wiki markup).",
            'inputSchema': {'properties': {'cursor': {'anyOf': [{'minimum': 1, 'type': 'integer'}, {'type': 'null'}],
                                                      'default': None,
                                                      'description': '`next_cursor` of the previous page; omit for '
                                                                     'the first',
                                                      'title': 'Cursor'},
                                           'format': {'default': 'markdown',
                                                      'description': 'how text fields come: `markdown` (the default: '
                                                                     "rendered by the hub from Jira's wiki markup, "
                                                                     "which assistants read best) or `wiki` (Jira's "
                                                                     'wiki markup as Jira holds it)',
                                                      'enum': ['markdown', 'wiki'],
                                                      'title': 'Format',
                                                      'type': 'string'},
                                           'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'},
                                           'limit': {'default': 50,
                                                     'maximum': 200,
                                                     'minimum': 1,
                                                     'title': 'Limit',
                                                     'type': 'integer'}},
                            'required': ['key'],
                            'title': 'get_worklogsArguments',
                            'type': 'object'},
            'name': 'get_worklogs',
            'outputSchema': {'description': "One page of an issue's worklogs, with the issue's totals.",
                             'properties': {'format': {'description': 'worklog comments are Markdown (`markdown`) or '
                                                                      'Jira wiki markup (`jira-wiki`)',
                                                       'enum': ['markdown', 'jira-wiki'],
                                                       'title': 'Format',
                                                       'type': 'string'},
                                            'items': {'description': 'worklogs as GET /api/v1/issues/{key}/worklogs '
                                                                     'lists them, each with `time_spent` in seconds '
                                                                     "and `time_spent_text` in Jira's notation",
                                                      'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Items',
                                                      'type': 'array'},
                                            'key': {'title': 'Key', 'type': 'string'},
                                            'next_cursor': {'anyOf': [{'type': 'integer'}, {'type': 'null'}],
                                                            'description': 'pass back as `cursor` for the next page; '
                                                                           'null on the last',
                                                            'title': 'Next Cursor'},
                                            'time_spent': {'description': "the time of all of them, in Jira's "
                                                                          'notation',
                                                           'title': 'Time Spent',
                                                           'type': 'string'},
                                            'time_spent_seconds': {'title': 'Time Spent Seconds', 'type': 'integer'},
                                            'total': {'description': 'how many worklogs the issue has in all',
                                                      'title': 'Total',
                                                      'type': 'integer'}},
                             'required': ['key',
                                          'format',
                                          'items',
                                          'total',
                                          'time_spent',
                                          'time_spent_seconds',
                                          'next_cursor'],
                             'title': 'WorklogPage',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': 'The sprints the mirror knows, active first, then future, then closed, newest first: each '
                           'with its state, start, end and complete dates, board, goal and how many mirrored issues '
                           "were ever in it. Use it to find a sprint's id or name for search_issues(sprint=...).",
            'inputSchema': {'properties': {'board': {'anyOf': [{'maximum': 9223372036854775807,
                                                                'minimum': 1,
                                                                'type': 'integer'},
                                                               {'type': 'null'}],
                                                     'default': None,
                                                     'description': "only this board's sprints (its id)",
                                                     'title': 'Board'},
                                           'cursor': {'anyOf': [{'minimum': 1, 'type': 'integer'}, {'type': 'null'}],
                                                      'default': None,
                                                      'description': '`next_cursor` of the previous page',
                                                      'title': 'Cursor'},
                                           'limit': {'default': 50,
                                                     'description': 'sprints per page',
                                                     'maximum': 100,
                                                     'minimum': 1,
                                                     'title': 'Limit',
                                                     'type': 'integer'},
                                           'state': {'anyOf': [{'enum': ['future', 'active', 'closed'],
                                                                'type': 'string'},
                                                               {'type': 'null'}],
                                                     'default': None,
                                                     'description': 'only sprints in this state',
                                                     'title': 'State'}},
                            'title': 'list_sprintsArguments',
                            'type': 'object'},
            'name': 'list_sprints',
            'outputSchema': {'description': 'One page of the sprints the mirror knows.',
                             'properties': {'items': {'description': 'sprints as GET /api/v1/sprints lists them: id, '
                                                                     'name, state, start, end and complete dates, '
                                                                     'board, goal and `issues` (how many mirrored '
                                                                     'issues were ever in it)',
                                                      'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Items',
                                                      'type': 'array'},
                                            'next_cursor': {'anyOf': [{'type': 'integer'}, {'type': 'null'}],
                                                            'description': 'pass back as `cursor` for the next page; '
                                                                           'null on the last',
                                                            'title': 'Next Cursor'}},
                             'required': ['items', 'next_cursor'],
                             'title': 'SprintPage',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': "The team's projects (each one Jira label) and the base JQL the mirror loads. Use it to "
                           'learn which `project` values search_issues takes and what the mirror covers.',
            'inputSchema': {'properties': {}, 'title': 'list_projectsArguments', 'type': 'object'},
            'name': 'list_projects',
            'outputSchema': {'properties': {'base_jql': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                         'description': 'the JQL a full refresh loads; null with no '
                                                                        'projects',
                                                         'title': 'Base Jql'},
                                            'items': {'description': 'projects: one Jira label each, with a name and '
                                                                     'maybe a board',
                                                      'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Items',
                                                      'type': 'array'},
                                            'scope': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                      'description': 'the JQL before the labels clause',
                                                      'title': 'Scope'}},
                             'required': ['items', 'scope', 'base_jql'],
                             'title': 'ProjectList',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': "The team's saved filters: JQL queries kept in the hub under a name, newest first, each "
                           'with its `id`, `name`, `jql` and `owner` (the token that saved it). Use it to find the '
                           'filter a person names ("my open bugs", "the release board"), then run_filter, or to '
                           'reuse its JQL in search_issues(jql=...).',
            'inputSchema': {'properties': {'cursor': {'anyOf': [{'minimum': 1, 'type': 'integer'}, {'type': 'null'}],
                                                      'default': None,
                                                      'description': '`next_cursor` of the previous page',
                                                      'title': 'Cursor'},
                                           'limit': {'default': 50,
                                                     'description': 'filters per page',
                                                     'maximum': 100,
                                                     'minimum': 1,
                                                     'title': 'Limit',
                                                     'type': 'integer'}},
                            'title': 'list_filtersArguments',
                            'type': 'object'},
            'name': 'list_filters',
            'outputSchema': {'description': "One page of the team's saved filters.",
                             'properties': {'items': {'description': 'saved filters: `id`, `name`, `jql`, `owner` '
                                                                     "(the saving token's name), `created_at`, "
                                                                     '`updated_at`',
                                                      'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Items',
                                                      'type': 'array'},
                                            'next_cursor': {'anyOf': [{'type': 'integer'}, {'type': 'null'}],
                                                            'description': 'pass back as `cursor` for the next page; '
                                                                           'null on the last',
                                                            'title': 'Next Cursor'}},
                             'required': ['items', 'next_cursor'],
                             'title': 'FilterList',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': 'Run a saved filter (see list_filters): the issues its JQL finds in the mirror now, as '
                           "search_issues(jql=...) finds them, in the filter's ORDER BY; page with `cursor`. Returns "
                           '`items`, `total` (on the first page) and `next_cursor`.',
            'inputSchema': {'properties': {'cursor': {'anyOf': [{'minimum': 1, 'type': 'integer'}, {'type': 'null'}],
                                                      'default': None,
                                                      'description': '`next_cursor` of the previous page',
                                                      'title': 'Cursor'},
                                           'filter_id': {'description': "the saved filter's id (see list_filters)",
                                                         'maximum': 9223372036854775807,
                                                         'minimum': 1,
                                                         'title': 'Filter Id',
                                                         'type': 'integer'},
                                           'limit': {'default': 20,
                                                     'description': 'issues per page',
                                                     'maximum': 100,
                                                     'minimum': 1,
                                                     'title': 'Limit',
                                                     'type': 'integer'}},
                            'required': ['filter_id'],
                            'title': 'run_filterArguments',
                            'type': 'object'},
            'name': 'run_filter',
            'outputSchema': {'description': 'One page of issues.',
                             'properties': {'items': {'description': 'issues, as GET /api/v1/issues lists them (with '
                                                                     '`snippet` for `q`), but for `custom_fields`, '
                                                                     'by display name as get_issue shows them',
                                                      'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Items',
                                                      'type': 'array'},
                                            'next_cursor': {'anyOf': [{'type': 'integer'}, {'type': 'null'}],
                                                            'description': 'pass back as `cursor` for the next page; '
                                                                           'null on the last',
                                                            'title': 'Next Cursor'},
                                            'total': {'anyOf': [{'type': 'integer'}, {'type': 'null'}],
                                                      'description': 'how many issues match in all: the hub counts '
                                                                     'them on the first page (no `cursor`); null on '
                                                                     'later pages or when the hub does not count',
                                                      'title': 'Total'}},
                             'required': ['items', 'total', 'next_cursor'],
                             'title': 'IssuePage',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': 'How fresh the mirror is: agents (how many, how many online, and a few of them), the last '
                           'full and incremental refresh runs, and the command queue by type and status. Use it '
                           'before trusting the mirror for recent changes.',
            'inputSchema': {'properties': {}, 'title': 'sync_statusArguments', 'type': 'object'},
            'name': 'sync_status',
            'outputSchema': {'properties': {'agents': {'description': 'at most 20 agents, the online ones first, '
                                                                      'each with `online`, `last_seen_at`, '
                                                                      '`detail` (cut to 200 characters), `holds` '
                                                                      '(the commands it holds now: id, type, '
                                                                      'claimed_at, lease_until) and `jira` '
                                                                      '(whether its last call to Jira was '
                                                                      'answered: reachable, checked_at, error, '
                                                                      'since; null: not reported)',
                                                       'items': {'additionalProperties': True, 'type': 'object'},
                                                       'title': 'Agents',
                                                       'type': 'array'},
                                            'agents_online': {'description': 'agents heard from within the last 120 '
                                                                             'seconds',
                                                              'title': 'Agents Online',
                                                              'type': 'integer'},
                                            'agents_total': {'description': "agents heard from within the hub's "
                                                                            'forget time (HUB_AGENT_FORGET_HOURS)',
                                                             'title': 'Agents Total',
                                                             'type': 'integer'},
                                            'last_runs': {'additionalProperties': True,
                                                          'description': '`full` and `incremental`: the last '
                                                                         'finished run of each, or null',
                                                          'title': 'Last Runs',
                                                          'type': 'object'},
                                            'oldest_queued_age_seconds': {'anyOf': [{'type': 'number'},
                                                                                    {'type': 'null'}],
                                                                          'title': 'Oldest Queued Age Seconds'},
                                            'oldest_queued_at': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                                 'title': 'Oldest Queued At'},
                                            'queue': {'description': 'commands counted by type and status',
                                                      'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Queue',
                                                      'type': 'array'},
                                            'store': {'additionalProperties': True,
                                                      'description': 'the attachment store: files and bytes',
                                                      'title': 'Store',
                                                      'type': 'object'}},
                             'required': ['agents',
                                          'agents_total',
                                          'agents_online',
                                          'queue',
                                          'oldest_queued_at',
                                          'oldest_queued_age_seconds',
                                          'last_runs',
                                          'store'],
                             'title': 'SyncStatus',
                             'type': 'object'}},
           {'annotations': {'destructiveHint': False,
                            'idempotentHint': True,
                            'openWorldHint': True,
                            'readOnlyHint': False},
            'description': "Ask the hub's agent to reload issues from Jira: those matching `jql`, or without it "
                           'everything the base JQL covers (a full run). While a refresh of the same query is queued '
                           'or running, that one is answered (`queued`: false) instead of a second. With '
                           '`wait_seconds` it waits that long for the refresh to finish. Use it when the mirror may '
                           'be stale for what the user asks about.',
            'inputSchema': {'properties': {'jql': {'anyOf': [{'maxLength': 10000, 'minLength': 1, 'type': 'string'},
                                                             {'type': 'null'}],
                                                   'default': None,
                                                   'description': 'e.g. key = AURORA-12',
                                                   'title': 'Jql'},
                                           'wait_seconds': {'default': 0,
                                                            'description': 'how long to wait for it to finish',
                                                            'maximum': 600,
                                                            'minimum': 0,
                                                            'title': 'Wait Seconds',
                                                            'type': 'integer'}},
                            'title': 'request_refreshArguments',
                            'type': 'object'},
            'name': 'request_refresh',
            'outputSchema': {'properties': {'command': {'additionalProperties': True,
                                                        'description': 'the refresh command as the hub shows it',
                                                        'title': 'Command',
                                                        'type': 'object'},
                                            'finished': {'description': 'whether it ended (done, failed or '
                                                                        'cancelled) within the wait',
                                                         'title': 'Finished',
                                                         'type': 'boolean'},
                                            'queued': {'description': 'whether this call queued it; false: a '
                                                                      'refresh of the same query was already '
                                                                      'queued or running, and this is that one',
                                                       'title': 'Queued',
                                                       'type': 'boolean'}},
                             'required': ['command', 'queued', 'finished'],
                             'title': 'RefreshResult',
                             'type': 'object'}},
           {'annotations': {'destructiveHint': False,
                            'idempotentHint': True,
                            'openWorldHint': True,
                            'readOnlyHint': False},
            'description': "Ask for an attachment's content (the hub's agent downloads it from Jira) and wait up to "
                           '`wait_seconds` for it to be `ready`. Then read it with read_attachment. Attachment ids '
                           "are in get_issue's `attachments`.",
            'inputSchema': {'properties': {'attachment_id': {'description': "the attachment's Jira id, e.g. 10001",
                                                             'maxLength': 255,
                                                             'minLength': 1,
                                                             'pattern': '^[1-9][0-9]{0,17}(?![\\s\\S])',
                                                             'title': 'Attachment Id',
                                                             'type': 'string'},
                                           'wait_seconds': {'default': 30,
                                                            'description': 'how long to wait for `ready`',
                                                            'maximum': 300,
                                                            'minimum': 0,
                                                            'title': 'Wait Seconds',
                                                            'type': 'integer'}},
                            'required': ['attachment_id'],
                            'title': 'fetch_attachmentArguments',
                            'type': 'object'},
            'name': 'fetch_attachment',
            'outputSchema': {'properties': {'attachment': {'additionalProperties': True,
                                                           'description': 'the attachment and its `state` when the '
                                                                          'wait ended',
                                                           'title': 'Attachment',
                                                           'type': 'object'},
                                            'command': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                  {'type': 'null'}],
                                                        'description': 'the fetch_attachment command that serves the '
                                                                       'request',
                                                        'title': 'Command'},
                                            'ready': {'title': 'Ready', 'type': 'boolean'}},
                             'required': ['attachment', 'ready', 'command'],
                             'title': 'AttachmentFetch',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': 'Read a ready attachment: text files as text (up to `max_bytes`, saying whether it was '
                           'cut), images as an image, anything else described with its size and a download URL. An '
                           'attachment that is not ready is an error: call fetch_attachment first.',
            'inputSchema': {'properties': {'attachment_id': {'description': "the attachment's Jira id, e.g. 10001",
                                                             'maxLength': 255,
                                                             'minLength': 1,
                                                             'pattern': '^[1-9][0-9]{0,17}(?![\\s\\S])',
                                                             'title': 'Attachment Id',
                                                             'type': 'string'},
                                           'max_bytes': {'default': 100000,
                                                         'description': 'at most this much text',
                                                         'maximum': 1000000,
                                                         'minimum': 1,
                                                         'title': 'Max Bytes',
                                                         'type': 'integer'}},
                            'required': ['attachment_id'],
                            'title': 'read_attachmentArguments',
                            'type': 'object'},
            'name': 'read_attachment',
            'outputSchema': {'properties': {'attachment': {'additionalProperties': True,
                                                           'title': 'Attachment',
                                                           'type': 'object'},
                                            'bytes_returned': {'title': 'Bytes Returned', 'type': 'integer'},
                                            'download_url': {'description': 'the content at the hub (needs the same '
                                                                            'token)',
                                                             'title': 'Download Url',
                                                             'type': 'string'},
                                            'kind': {'description': 'text: `text` holds it; image: an image content '
                                                                    'block holds it; binary: not inlined',
                                                     'enum': ['text', 'image', 'binary'],
                                                     'title': 'Kind',
                                                     'type': 'string'},
                                            'text': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                     'title': 'Text'},
                                            'truncated': {'description': 'whether the text stops at `max_bytes` '
                                                                         "before the file's end",
                                                          'title': 'Truncated',
                                                          'type': 'boolean'}},
                             'required': ['attachment',
                                          'kind',
                                          'text',
                                          'truncated',
                                          'bytes_returned',
                                          'download_url'],
                             'title': 'AttachmentRead',
                             'type': 'object'}},
           {'annotations': {'openWorldHint': False, 'readOnlyHint': True},
            'description': "The hub's own notes on an issue (kept by the team's tools and assistants, not in Jira).",
            'inputSchema': {'properties': {'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'}},
                            'required': ['key'],
                            'title': 'list_notesArguments',
                            'type': 'object'},
            'name': 'list_notes',
            'outputSchema': {'properties': {'items': {'items': {'additionalProperties': True, 'type': 'object'},
                                                      'title': 'Items',
                                                      'type': 'array'},
                                            'key': {'title': 'Key', 'type': 'string'}},
                             'required': ['key', 'items'],
                             'title': 'NoteList',
                             'type': 'object'}},
           {'annotations': {'destructiveHint': False,
                            'idempotentHint': False,
                            'openWorldHint': False,
                            'readOnlyHint': False},
            'description': 'Add a note to an issue in the hub (not in Jira): a finding, a summary, a reminder for '
                           "the team. Its author is the token's name.",
            'inputSchema': {'properties': {'body': {'maxLength': 100000,
                                                    'minLength': 1,
                                                    'title': 'Body',
                                                    'type': 'string'},
                                           'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'}},
                            'required': ['key', 'body'],
                            'title': 'add_noteArguments',
                            'type': 'object'},
            'name': 'add_note',
            'outputSchema': {'properties': {'author': {'title': 'Author', 'type': 'string'},
                                            'body': {'title': 'Body', 'type': 'string'},
                                            'created_at': {'title': 'Created At', 'type': 'string'},
                                            'id': {'title': 'Id', 'type': 'integer'},
                                            'key': {'title': 'Key', 'type': 'string'},
                                            'updated_at': {'title': 'Updated At', 'type': 'string'}},
                             'required': ['id', 'key', 'author', 'body', 'created_at', 'updated_at'],
                             'title': 'Note',
                             'type': 'object'}},
           {'annotations': {'destructiveHint': False,
                            'idempotentHint': False,
                            'openWorldHint': True,
                            'readOnlyHint': False},
            'description': "Add a comment to a Jira issue, through the hub's agent beside Jira. `body` is Jira wiki "
                           'markup, or Markdown with `format: markdown`; `visibility` limits it to a group or project '
                           "role. Waits up to `wait` seconds for Jira's outcome: done (the new comment's id), or "
                           'pending when the agent has not taken it yet (Jira may be out of reach: check later with '
                           'get_write). Every call adds a comment: do not call it again to find out whether the first '
                           'one was made; use get_write.',
            'inputSchema': {'$defs': {'Visibility': {'description': 'Who may read a comment in Jira.',
                                                     'properties': {'type': {'enum': ['group', 'role'],
                                                                             'title': 'Type',
                                                                             'type': 'string'},
                                                                    'value': {'description': "the group's or project "
                                                                                             "role's name",
                                                                              'maxLength': 255,
                                                                              'minLength': 1,
                                                                              'title': 'Value',
                                                                              'type': 'string'}},
                                                     'required': ['type', 'value'],
                                                     'title': 'Visibility',
                                                     'type': 'object'}},
                            'properties': {'body': {'description': "the comment's text",
                                                    'maxLength': 32767,
                                                    'minLength': 1,
                                                    'title': 'Body',
                                                    'type': 'string'},
                                           'format': {'default': 'wiki',
                                                      'description': "the markup of the text given: `wiki` (Jira's "
                                                                     'wiki markup, the default) or `markdown` '
                                                                     '(converted to wiki markup by the hub)',
                                                      'enum': ['wiki', 'markdown'],
                                                      'title': 'Format',
                                                      'type': 'string'},
                                           'idempotency_key': {'anyOf': [{'maxLength': 255,
                                                                          'minLength': 1,
                                                                          'pattern': '^[!-~]+(?![\\s\\S])',
                                                                          'type': 'string'},
                                                                         {'type': 'null'}],
                                                               'default': None,
                                                               'description': 'omit normally. After a call that ended '
                                                                              'in an error saying it is not known '
                                                                              'whether the hub recorded the write, '
                                                                              'call again with the key that error '
                                                                              'named: the hub answers that write, '
                                                                              'never a second',
                                                               'title': 'Idempotency Key'},
                                           'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'},
                                           'visibility': {'anyOf': [{'$ref': '#/$defs/Visibility'}, {'type': 'null'}],
                                                          'default': None},
                                           'wait': {'default': 20,
                                                    'description': "seconds to wait for Jira's outcome (at most 20); 0 "
                                                                   'answers at once, queued',
                                                    'maximum': 20,
                                                    'minimum': 0,
                                                    'title': 'Wait',
                                                    'type': 'integer'}},
                            'required': ['key', 'body'],
                            'title': 'add_commentArguments',
                            'type': 'object'},
            'name': 'add_comment',
            'outputSchema': {'description': 'A write to Jira as the hub shows it, and what it means.',
                             'properties': {'conflict': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                   {'type': 'null'}],
                                                         'description': 'per field, `base` (the value when asked) and '
                                                                        "`jira` (Jira's now)",
                                                         'title': 'Conflict'},
                                            'error': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                      'description': "why it failed, in Jira's words",
                                                      'title': 'Error'},
                                            'id': {'description': "the write's id: get_write(id) tells its status "
                                                                  'later',
                                                   'title': 'Id',
                                                   'type': 'integer'},
                                            'key': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                    'description': 'the issue written to; null for a new issue',
                                                    'title': 'Key'},
                                            'op': {'title': 'Op', 'type': 'string'},
                                            'result': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                 {'type': 'null'}],
                                                       'description': 'what Jira made when done: `comment_id`, '
                                                                      '`worklog_id`, `key` and `id` of a new issue, '
                                                                      '`link_id`, `transition`, `fields`',
                                                       'title': 'Result'},
                                            'said': {'description': 'the status in words, and what to do next',
                                                     'title': 'Said',
                                                     'type': 'string'},
                                            'status': {'description': 'pending: queued, no agent has taken it; '
                                                                      'applying: the agent beside Jira is applying it; '
                                                                      "done: in Jira; failed: Jira (or the agent's "
                                                                      'rules) refused it; conflict: Jira changed since '
                                                                      'it was asked, nothing written; cancelled: '
                                                                      'withdrawn before any agent took it',
                                                       'enum': ['pending',
                                                                'applying',
                                                                'done',
                                                                'failed',
                                                                'conflict',
                                                                'cancelled'],
                                                       'title': 'Status',
                                                       'type': 'string'},
                                            'write': {'additionalProperties': True,
                                                      'description': 'the write object as the hub answers it (GET '
                                                                     '/api/v1/writes/{id})',
                                                      'title': 'Write',
                                                      'type': 'object'}},
                             'required': ['id', 'status', 'said', 'op', 'key', 'result', 'error', 'conflict', 'write'],
                             'title': 'WriteOutcome',
                             'type': 'object'}},
           {'annotations': {'destructiveHint': True,
                            'idempotentHint': False,
                            'openWorldHint': True,
                            'readOnlyHint': False},
            'description': "Move a Jira issue through a workflow transition (change its status), through the hub's "
                           'agent beside Jira. `to` is the target status ("Resolved"), the transition\'s name or its '
                           "id, as get_issue's `transitions` list them with the fields each screen requires (e.g. "
                           '`fields: {"resolution": "Fixed"}`); `comment` adds a comment with it. The status you saw '
                           "(`base`, else the mirror's) must still be Jira's, or the outcome is a conflict and nothing "
                           'is written. Waits up to `wait` seconds for the outcome: done, conflict (read the issue '
                           "again, then retry with the new base), failed (Jira's words, what a field allows) or "
                           'pending (check later with get_write).',
            'inputSchema': {'properties': {'base': {'anyOf': [{'additionalProperties': True,
                                                               'maxProperties': 100,
                                                               'type': 'object'},
                                                              {'type': 'null'}],
                                                    'default': None,
                                                    'description': 'the status you saw, {"status": "Open"}; omit for '
                                                                   "the mirror's now",
                                                    'title': 'Base'},
                                           'comment': {'anyOf': [{'maxLength': 32767, 'minLength': 1, 'type': 'string'},
                                                                 {'type': 'null'}],
                                                       'default': None,
                                                       'description': 'a comment to add with the transition',
                                                       'title': 'Comment'},
                                           'fields': {'anyOf': [{'additionalProperties': True,
                                                                 'maxProperties': 100,
                                                                 'type': 'object'},
                                                                {'type': 'null'}],
                                                      'default': None,
                                                      'description': "the transition screen's fields, in the mirror's "
                                                                     'flattened form: resolution: "Fixed", assignee: '
                                                                     '"ivanov", fix_versions: ["1.0"], time_spent: '
                                                                     '"1h" to log work',
                                                      'title': 'Fields'},
                                           'format': {'default': 'wiki',
                                                      'description': "the markup of the text given: `wiki` (Jira's "
                                                                     'wiki markup, the default) or `markdown` '
                                                                     '(converted to wiki markup by the hub)',
                                                      'enum': ['wiki', 'markdown'],
                                                      'title': 'Format',
                                                      'type': 'string'},
                                           'idempotency_key': {'anyOf': [{'maxLength': 255,
                                                                          'minLength': 1,
                                                                          'pattern': '^[!-~]+(?![\\s\\S])',
                                                                          'type': 'string'},
                                                                         {'type': 'null'}],
                                                               'default': None,
                                                               'description': 'omit normally. After a call that ended '
                                                                              'in an error saying it is not known '
                                                                              'whether the hub recorded the write, '
                                                                              'call again with the key that error '
                                                                              'named: the hub answers that write, '
                                                                              'never a second',
                                                               'title': 'Idempotency Key'},
                                           'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'},
                                           'to': {'description': 'a target status name, a transition name or a '
                                                                 'transition id, matched in that order',
                                                  'maxLength': 255,
                                                  'minLength': 1,
                                                  'title': 'To',
                                                  'type': 'string'},
                                           'wait': {'default': 20,
                                                    'description': "seconds to wait for Jira's outcome (at most 20); 0 "
                                                                   'answers at once, queued',
                                                    'maximum': 20,
                                                    'minimum': 0,
                                                    'title': 'Wait',
                                                    'type': 'integer'}},
                            'required': ['key', 'to'],
                            'title': 'transition_issueArguments',
                            'type': 'object'},
            'name': 'transition_issue',
            'outputSchema': {'description': 'A write to Jira as the hub shows it, and what it means.',
                             'properties': {'conflict': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                   {'type': 'null'}],
                                                         'description': 'per field, `base` (the value when asked) and '
                                                                        "`jira` (Jira's now)",
                                                         'title': 'Conflict'},
                                            'error': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                      'description': "why it failed, in Jira's words",
                                                      'title': 'Error'},
                                            'id': {'description': "the write's id: get_write(id) tells its status "
                                                                  'later',
                                                   'title': 'Id',
                                                   'type': 'integer'},
                                            'key': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                    'description': 'the issue written to; null for a new issue',
                                                    'title': 'Key'},
                                            'op': {'title': 'Op', 'type': 'string'},
                                            'result': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                 {'type': 'null'}],
                                                       'description': 'what Jira made when done: `comment_id`, '
                                                                      '`worklog_id`, `key` and `id` of a new issue, '
                                                                      '`link_id`, `transition`, `fields`',
                                                       'title': 'Result'},
                                            'said': {'description': 'the status in words, and what to do next',
                                                     'title': 'Said',
                                                     'type': 'string'},
                                            'status': {'description': 'pending: queued, no agent has taken it; '
                                                                      'applying: the agent beside Jira is applying it; '
                                                                      "done: in Jira; failed: Jira (or the agent's "
                                                                      'rules) refused it; conflict: Jira changed since '
                                                                      'it was asked, nothing written; cancelled: '
                                                                      'withdrawn before any agent took it',
                                                       'enum': ['pending',
                                                                'applying',
                                                                'done',
                                                                'failed',
                                                                'conflict',
                                                                'cancelled'],
                                                       'title': 'Status',
                                                       'type': 'string'},
                                            'write': {'additionalProperties': True,
                                                      'description': 'the write object as the hub answers it (GET '
                                                                     '/api/v1/writes/{id})',
                                                      'title': 'Write',
                                                      'type': 'object'}},
                             'required': ['id', 'status', 'said', 'op', 'key', 'result', 'error', 'conflict', 'write'],
                             'title': 'WriteOutcome',
                             'type': 'object'}},
           {'annotations': {'destructiveHint': True,
                            'idempotentHint': False,
                            'openWorldHint': True,
                            'readOnlyHint': False},
            'description': "Change fields of a Jira issue (its edit screen: get_issue's `editable_fields` lists them "
                           "with their allowed values), through the hub's agent beside Jira. The values you saw "
                           "(`base`, else the mirror's) must still be Jira's: if any differs the outcome is a conflict "
                           'and nothing at all is written; add/remove forms never conflict. Waits up to `wait` seconds '
                           "for the outcome: done, conflict (each field's value when asked and Jira's now: read the "
                           "issue again, then retry with the new base), failed (Jira's words, what a field allows) or "
                           'pending (check later with get_write).',
            'inputSchema': {'properties': {'base': {'anyOf': [{'additionalProperties': True,
                                                               'maxProperties': 100,
                                                               'type': 'object'},
                                                              {'type': 'null'}],
                                                    'default': None,
                                                    'description': 'the values you based the change on, by field (as '
                                                                   "get_issue showed them); omit to take the mirror's "
                                                                   'values now. Jira holding other values is a '
                                                                   'conflict: nothing is written',
                                                    'title': 'Base'},
                                           'fields': {'additionalProperties': True,
                                                      'description': "fields by the mirror's names, in the issue "
                                                                     "object's flattened form: summary, description, "
                                                                     'priority ("Major"), assignee (a user name), '
                                                                     'duedate ("2026-12-31"), labels, components, '
                                                                     'fix_versions, affects_versions (["1.0"]), '
                                                                     'environment, original_estimate, '
                                                                     'remaining_estimate ("2h"), any custom field by '
                                                                     'id (customfield_10010) or by name; labels, '
                                                                     'components and versions also as {"add": [...], '
                                                                     '"remove": [...]}',
                                                      'maxProperties': 100,
                                                      'minProperties': 1,
                                                      'title': 'Fields',
                                                      'type': 'object'},
                                           'format': {'default': 'wiki',
                                                      'description': 'the markup of description and other text fields: '
                                                                     '`wiki` (the default) or `markdown`',
                                                      'enum': ['wiki', 'markdown'],
                                                      'title': 'Format',
                                                      'type': 'string'},
                                           'idempotency_key': {'anyOf': [{'maxLength': 255,
                                                                          'minLength': 1,
                                                                          'pattern': '^[!-~]+(?![\\s\\S])',
                                                                          'type': 'string'},
                                                                         {'type': 'null'}],
                                                               'default': None,
                                                               'description': 'omit normally. After a call that ended '
                                                                              'in an error saying it is not known '
                                                                              'whether the hub recorded the write, '
                                                                              'call again with the key that error '
                                                                              'named: the hub answers that write, '
                                                                              'never a second',
                                                               'title': 'Idempotency Key'},
                                           'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'},
                                           'wait': {'default': 20,
                                                    'description': "seconds to wait for Jira's outcome (at most 20); 0 "
                                                                   'answers at once, queued',
                                                    'maximum': 20,
                                                    'minimum': 0,
                                                    'title': 'Wait',
                                                    'type': 'integer'}},
                            'required': ['key', 'fields'],
                            'title': 'update_issueArguments',
                            'type': 'object'},
            'name': 'update_issue',
            'outputSchema': {'description': 'A write to Jira as the hub shows it, and what it means.',
                             'properties': {'conflict': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                   {'type': 'null'}],
                                                         'description': 'per field, `base` (the value when asked) and '
                                                                        "`jira` (Jira's now)",
                                                         'title': 'Conflict'},
                                            'error': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                      'description': "why it failed, in Jira's words",
                                                      'title': 'Error'},
                                            'id': {'description': "the write's id: get_write(id) tells its status "
                                                                  'later',
                                                   'title': 'Id',
                                                   'type': 'integer'},
                                            'key': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                    'description': 'the issue written to; null for a new issue',
                                                    'title': 'Key'},
                                            'op': {'title': 'Op', 'type': 'string'},
                                            'result': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                 {'type': 'null'}],
                                                       'description': 'what Jira made when done: `comment_id`, '
                                                                      '`worklog_id`, `key` and `id` of a new issue, '
                                                                      '`link_id`, `transition`, `fields`',
                                                       'title': 'Result'},
                                            'said': {'description': 'the status in words, and what to do next',
                                                     'title': 'Said',
                                                     'type': 'string'},
                                            'status': {'description': 'pending: queued, no agent has taken it; '
                                                                      'applying: the agent beside Jira is applying it; '
                                                                      "done: in Jira; failed: Jira (or the agent's "
                                                                      'rules) refused it; conflict: Jira changed since '
                                                                      'it was asked, nothing written; cancelled: '
                                                                      'withdrawn before any agent took it',
                                                       'enum': ['pending',
                                                                'applying',
                                                                'done',
                                                                'failed',
                                                                'conflict',
                                                                'cancelled'],
                                                       'title': 'Status',
                                                       'type': 'string'},
                                            'write': {'additionalProperties': True,
                                                      'description': 'the write object as the hub answers it (GET '
                                                                     '/api/v1/writes/{id})',
                                                      'title': 'Write',
                                                      'type': 'object'}},
                             'required': ['id', 'status', 'said', 'op', 'key', 'result', 'error', 'conflict', 'write'],
                             'title': 'WriteOutcome',
                             'type': 'object'}},
           {'annotations': {'destructiveHint': False,
                            'idempotentHint': False,
                            'openWorldHint': True,
                            'readOnlyHint': False},
            'description': "Log work on a Jira issue, through the hub's agent beside Jira: `time_spent` in Jira's "
                           'notation ("1h 30m", a day of 8 hours) or seconds, when it was `started` (now by default), '
                           'a `comment`, and how the remaining estimate changes (`adjust_estimate`: auto, leave, new '
                           'with `new_estimate`, manual with `reduce_by`). Waits up to `wait` seconds for the outcome: '
                           "done (the work log's id) or pending (check later with get_write). Every call logs work "
                           'anew.',
            'inputSchema': {'properties': {'adjust_estimate': {'anyOf': [{'enum': ['auto', 'leave', 'new', 'manual'],
                                                                          'type': 'string'},
                                                                         {'type': 'null'}],
                                                               'default': None,
                                                               'title': 'Adjust Estimate'},
                                           'comment': {'anyOf': [{'maxLength': 32767, 'type': 'string'},
                                                                 {'type': 'null'}],
                                                       'default': None,
                                                       'description': 'what was done',
                                                       'title': 'Comment'},
                                           'format': {'default': 'wiki',
                                                      'description': "the markup of the text given: `wiki` (Jira's "
                                                                     'wiki markup, the default) or `markdown` '
                                                                     '(converted to wiki markup by the hub)',
                                                      'enum': ['wiki', 'markdown'],
                                                      'title': 'Format',
                                                      'type': 'string'},
                                           'idempotency_key': {'anyOf': [{'maxLength': 255,
                                                                          'minLength': 1,
                                                                          'pattern': '^[!-~]+(?![\\s\\S])',
                                                                          'type': 'string'},
                                                                         {'type': 'null'}],
                                                               'default': None,
                                                               'description': 'omit normally. After a call that ended '
                                                                              'in an error saying it is not known '
                                                                              'whether the hub recorded the write, '
                                                                              'call again with the key that error '
                                                                              'named: the hub answers that write, '
                                                                              'never a second',
                                                               'title': 'Idempotency Key'},
                                           'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'},
                                           'new_estimate': {'anyOf': [{'maxLength': 100,
                                                                       'minLength': 1,
                                                                       'type': 'string'},
                                                                      {'type': 'null'}],
                                                            'default': None,
                                                            'description': 'with adjust_estimate new: "3h"',
                                                            'title': 'New Estimate'},
                                           'reduce_by': {'anyOf': [{'maxLength': 100, 'minLength': 1, 'type': 'string'},
                                                                   {'type': 'null'}],
                                                         'default': None,
                                                         'description': 'with adjust_estimate manual: "1h"',
                                                         'title': 'Reduce By'},
                                           'started': {'anyOf': [{'maxLength': 64, 'type': 'string'}, {'type': 'null'}],
                                                       'default': None,
                                                       'description': 'when the work started, e.g. '
                                                                      '2026-12-07T09:00:00+00:00; now when omitted',
                                                       'title': 'Started'},
                                           'time_spent': {'anyOf': [{'type': 'string'}, {'type': 'integer'}],
                                                          'description': '"1h 30m", or seconds (at least 60)',
                                                          'title': 'Time Spent'},
                                           'wait': {'default': 20,
                                                    'description': "seconds to wait for Jira's outcome (at most 20); 0 "
                                                                   'answers at once, queued',
                                                    'maximum': 20,
                                                    'minimum': 0,
                                                    'title': 'Wait',
                                                    'type': 'integer'}},
                            'required': ['key', 'time_spent'],
                            'title': 'log_workArguments',
                            'type': 'object'},
            'name': 'log_work',
            'outputSchema': {'description': 'A write to Jira as the hub shows it, and what it means.',
                             'properties': {'conflict': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                   {'type': 'null'}],
                                                         'description': 'per field, `base` (the value when asked) and '
                                                                        "`jira` (Jira's now)",
                                                         'title': 'Conflict'},
                                            'error': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                      'description': "why it failed, in Jira's words",
                                                      'title': 'Error'},
                                            'id': {'description': "the write's id: get_write(id) tells its status "
                                                                  'later',
                                                   'title': 'Id',
                                                   'type': 'integer'},
                                            'key': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                    'description': 'the issue written to; null for a new issue',
                                                    'title': 'Key'},
                                            'op': {'title': 'Op', 'type': 'string'},
                                            'result': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                 {'type': 'null'}],
                                                       'description': 'what Jira made when done: `comment_id`, '
                                                                      '`worklog_id`, `key` and `id` of a new issue, '
                                                                      '`link_id`, `transition`, `fields`',
                                                       'title': 'Result'},
                                            'said': {'description': 'the status in words, and what to do next',
                                                     'title': 'Said',
                                                     'type': 'string'},
                                            'status': {'description': 'pending: queued, no agent has taken it; '
                                                                      'applying: the agent beside Jira is applying it; '
                                                                      "done: in Jira; failed: Jira (or the agent's "
                                                                      'rules) refused it; conflict: Jira changed since '
                                                                      'it was asked, nothing written; cancelled: '
                                                                      'withdrawn before any agent took it',
                                                       'enum': ['pending',
                                                                'applying',
                                                                'done',
                                                                'failed',
                                                                'conflict',
                                                                'cancelled'],
                                                       'title': 'Status',
                                                       'type': 'string'},
                                            'write': {'additionalProperties': True,
                                                      'description': 'the write object as the hub answers it (GET '
                                                                     '/api/v1/writes/{id})',
                                                      'title': 'Write',
                                                      'type': 'object'}},
                             'required': ['id', 'status', 'said', 'op', 'key', 'result', 'error', 'conflict', 'write'],
                             'title': 'WriteOutcome',
                             'type': 'object'}},
           {'annotations': {'destructiveHint': False,
                            'idempotentHint': False,
                            'openWorldHint': True,
                            'readOnlyHint': False},
            'description': "Create a Jira issue, through the hub's agent beside Jira: its `project` key, `issue_type` "
                           '(Bug, Story, Task, Sub-task with `parent`), `summary`, optional `description` and other '
                           "`fields` in the mirror's flattened form. Waits up to `wait` seconds for the outcome: done "
                           "(the new issue's key), failed (Jira's words: a required field missing, a value not "
                           'allowed) or pending (check later with get_write). Every call creates an issue.',
            'inputSchema': {'properties': {'description': {'anyOf': [{'maxLength': 32767, 'type': 'string'},
                                                                     {'type': 'null'}],
                                                           'default': None,
                                                           'title': 'Description'},
                                           'fields': {'anyOf': [{'additionalProperties': True,
                                                                 'maxProperties': 100,
                                                                 'type': 'object'},
                                                                {'type': 'null'}],
                                                      'default': None,
                                                      'description': 'other fields, as update_issue takes them: '
                                                                     'priority, assignee, labels, components, ...',
                                                      'title': 'Fields'},
                                           'format': {'default': 'wiki',
                                                      'description': "the markup of the text given: `wiki` (Jira's "
                                                                     'wiki markup, the default) or `markdown` '
                                                                     '(converted to wiki markup by the hub)',
                                                      'enum': ['wiki', 'markdown'],
                                                      'title': 'Format',
                                                      'type': 'string'},
                                           'idempotency_key': {'anyOf': [{'maxLength': 255,
                                                                          'minLength': 1,
                                                                          'pattern': '^[!-~]+(?![\\s\\S])',
                                                                          'type': 'string'},
                                                                         {'type': 'null'}],
                                                               'default': None,
                                                               'description': 'omit normally. After a call that ended '
                                                                              'in an error saying it is not known '
                                                                              'whether the hub recorded the write, '
                                                                              'call again with the key that error '
                                                                              'named: the hub answers that write, '
                                                                              'never a second',
                                                               'title': 'Idempotency Key'},
                                           'issue_type': {'description': "the issue type's name: Bug",
                                                          'maxLength': 255,
                                                          'minLength': 1,
                                                          'title': 'Issue Type',
                                                          'type': 'string'},
                                           'parent': {'anyOf': [{'description': 'an issue key, e.g. AURORA-12',
                                                                 'maxLength': 255,
                                                                 'minLength': 1,
                                                                 'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',  # noqa: E501
                                                                 'type': 'string'},
                                                                {'type': 'null'}],
                                                      'default': None,
                                                      'description': 'the parent issue of a sub-task',
                                                      'title': 'Parent'},
                                           'project': {'description': "the project's key, e.g. AURORA",
                                                       'maxLength': 255,
                                                       'minLength': 1,
                                                       'pattern': '^[A-Z][A-Z0-9_]*(?![\\s\\S])',
                                                       'title': 'Project',
                                                       'type': 'string'},
                                           'summary': {'maxLength': 255,
                                                       'minLength': 1,
                                                       'title': 'Summary',
                                                       'type': 'string'},
                                           'wait': {'default': 20,
                                                    'description': "seconds to wait for Jira's outcome (at most 20); 0 "
                                                                   'answers at once, queued',
                                                    'maximum': 20,
                                                    'minimum': 0,
                                                    'title': 'Wait',
                                                    'type': 'integer'}},
                            'required': ['project', 'issue_type', 'summary'],
                            'title': 'create_issueArguments',
                            'type': 'object'},
            'name': 'create_issue',
            'outputSchema': {'description': 'A write to Jira as the hub shows it, and what it means.',
                             'properties': {'conflict': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                   {'type': 'null'}],
                                                         'description': 'per field, `base` (the value when asked) and '
                                                                        "`jira` (Jira's now)",
                                                         'title': 'Conflict'},
                                            'error': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                      'description': "why it failed, in Jira's words",
                                                      'title': 'Error'},
                                            'id': {'description': "the write's id: get_write(id) tells its status "
                                                                  'later',
                                                   'title': 'Id',
                                                   'type': 'integer'},
                                            'key': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                    'description': 'the issue written to; null for a new issue',
                                                    'title': 'Key'},
                                            'op': {'title': 'Op', 'type': 'string'},
                                            'result': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                 {'type': 'null'}],
                                                       'description': 'what Jira made when done: `comment_id`, '
                                                                      '`worklog_id`, `key` and `id` of a new issue, '
                                                                      '`link_id`, `transition`, `fields`',
                                                       'title': 'Result'},
                                            'said': {'description': 'the status in words, and what to do next',
                                                     'title': 'Said',
                                                     'type': 'string'},
                                            'status': {'description': 'pending: queued, no agent has taken it; '
                                                                      'applying: the agent beside Jira is applying it; '
                                                                      "done: in Jira; failed: Jira (or the agent's "
                                                                      'rules) refused it; conflict: Jira changed since '
                                                                      'it was asked, nothing written; cancelled: '
                                                                      'withdrawn before any agent took it',
                                                       'enum': ['pending',
                                                                'applying',
                                                                'done',
                                                                'failed',
                                                                'conflict',
                                                                'cancelled'],
                                                       'title': 'Status',
                                                       'type': 'string'},
                                            'write': {'additionalProperties': True,
                                                      'description': 'the write object as the hub answers it (GET '
                                                                     '/api/v1/writes/{id})',
                                                      'title': 'Write',
                                                      'type': 'object'}},
                             'required': ['id', 'status', 'said', 'op', 'key', 'result', 'error', 'conflict', 'write'],
                             'title': 'WriteOutcome',
                             'type': 'object'}},
           {'annotations': {'destructiveHint': False,
                            'idempotentHint': False,
                            'openWorldHint': True,
                            'readOnlyHint': False},
            'description': "Link two Jira issues, through the hub's agent beside Jira: `type` is the link type's name "
                           '(Blocks, Relates, Duplicate) or its phrase; give `outward` for "KEY blocks outward" or '
                           '`inward` for "inward blocks KEY". Waits up to `wait` seconds for the outcome: done (the '
                           "link's id) or pending (check later with get_write).",
            'inputSchema': {'properties': {'idempotency_key': {'anyOf': [{'maxLength': 255,
                                                                          'minLength': 1,
                                                                          'pattern': '^[!-~]+(?![\\s\\S])',
                                                                          'type': 'string'},
                                                                         {'type': 'null'}],
                                                               'default': None,
                                                               'description': 'omit normally. After a call that ended '
                                                                              'in an error saying it is not known '
                                                                              'whether the hub recorded the write, '
                                                                              'call again with the key that error '
                                                                              'named: the hub answers that write, '
                                                                              'never a second',
                                                               'title': 'Idempotency Key'},
                                           'inward': {'anyOf': [{'description': 'an issue key, e.g. AURORA-12',
                                                                 'maxLength': 255,
                                                                 'minLength': 1,
                                                                 'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',  # noqa: E501
                                                                 'type': 'string'},
                                                                {'type': 'null'}],
                                                      'default': None,
                                                      'description': "the other issue, when it is the link's source",
                                                      'title': 'Inward'},
                                           'key': {'description': 'an issue key, e.g. AURORA-12',
                                                   'maxLength': 255,
                                                   'minLength': 1,
                                                   'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',
                                                   'title': 'Key',
                                                   'type': 'string'},
                                           'outward': {'anyOf': [{'description': 'an issue key, e.g. AURORA-12',
                                                                  'maxLength': 255,
                                                                  'minLength': 1,
                                                                  'pattern': '^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\\s\\S])',  # noqa: E501
                                                                  'type': 'string'},
                                                                 {'type': 'null'}],
                                                       'default': None,
                                                       'description': "the other issue, when this one is the link's "
                                                                      'source',
                                                       'title': 'Outward'},
                                           'type': {'description': "the link type's name or phrase",
                                                    'maxLength': 255,
                                                    'minLength': 1,
                                                    'title': 'Type',
                                                    'type': 'string'},
                                           'wait': {'default': 20,
                                                    'description': "seconds to wait for Jira's outcome (at most 20); 0 "
                                                                   'answers at once, queued',
                                                    'maximum': 20,
                                                    'minimum': 0,
                                                    'title': 'Wait',
                                                    'type': 'integer'}},
                            'required': ['key', 'type'],
                            'title': 'link_issuesArguments',
                            'type': 'object'},
            'name': 'link_issues',
            'outputSchema': {'description': 'A write to Jira as the hub shows it, and what it means.',
                             'properties': {'conflict': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                   {'type': 'null'}],
                                                         'description': 'per field, `base` (the value when asked) and '
                                                                        "`jira` (Jira's now)",
                                                         'title': 'Conflict'},
                                            'error': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                      'description': "why it failed, in Jira's words",
                                                      'title': 'Error'},
                                            'id': {'description': "the write's id: get_write(id) tells its status "
                                                                  'later',
                                                   'title': 'Id',
                                                   'type': 'integer'},
                                            'key': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                    'description': 'the issue written to; null for a new issue',
                                                    'title': 'Key'},
                                            'op': {'title': 'Op', 'type': 'string'},
                                            'result': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                 {'type': 'null'}],
                                                       'description': 'what Jira made when done: `comment_id`, '
                                                                      '`worklog_id`, `key` and `id` of a new issue, '
                                                                      '`link_id`, `transition`, `fields`',
                                                       'title': 'Result'},
                                            'said': {'description': 'the status in words, and what to do next',
                                                     'title': 'Said',
                                                     'type': 'string'},
                                            'status': {'description': 'pending: queued, no agent has taken it; '
                                                                      'applying: the agent beside Jira is applying it; '
                                                                      "done: in Jira; failed: Jira (or the agent's "
                                                                      'rules) refused it; conflict: Jira changed since '
                                                                      'it was asked, nothing written; cancelled: '
                                                                      'withdrawn before any agent took it',
                                                       'enum': ['pending',
                                                                'applying',
                                                                'done',
                                                                'failed',
                                                                'conflict',
                                                                'cancelled'],
                                                       'title': 'Status',
                                                       'type': 'string'},
                                            'write': {'additionalProperties': True,
                                                      'description': 'the write object as the hub answers it (GET '
                                                                     '/api/v1/writes/{id})',
                                                      'title': 'Write',
                                                      'type': 'object'}},
                             'required': ['id', 'status', 'said', 'op', 'key', 'result', 'error', 'conflict', 'write'],
                             'title': 'WriteOutcome',
                             'type': 'object'}},
           {'annotations': {'idempotentHint': True, 'openWorldHint': False, 'readOnlyHint': True},
            'description': 'A write to Jira by its id (what add_comment, transition_issue, update_issue, log_work, '
                           'create_issue and link_issues answered): its status and what it means — pending, applying, '
                           "done (what Jira made), conflict (each field's value when asked and Jira's now) or failed "
                           "(Jira's words). `wait` holds the answer up to that many seconds while it is pending or "
                           'applying.',
            'inputSchema': {'properties': {'wait': {'default': 0,
                                                    'description': 'seconds to wait for an outcome while it is pending '
                                                                   'or applying (at most 20)',
                                                    'maximum': 20,
                                                    'minimum': 0,
                                                    'title': 'Wait',
                                                    'type': 'integer'},
                                           'write_id': {'description': "the write's id",
                                                        'maximum': 9223372036854775807,
                                                        'minimum': 1,
                                                        'title': 'Write Id',
                                                        'type': 'integer'}},
                            'required': ['write_id'],
                            'title': 'get_writeArguments',
                            'type': 'object'},
            'name': 'get_write',
            'outputSchema': {'description': 'A write to Jira as the hub shows it, and what it means.',
                             'properties': {'conflict': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                   {'type': 'null'}],
                                                         'description': 'per field, `base` (the value when asked) and '
                                                                        "`jira` (Jira's now)",
                                                         'title': 'Conflict'},
                                            'error': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                      'description': "why it failed, in Jira's words",
                                                      'title': 'Error'},
                                            'id': {'description': "the write's id: get_write(id) tells its status "
                                                                  'later',
                                                   'title': 'Id',
                                                   'type': 'integer'},
                                            'key': {'anyOf': [{'type': 'string'}, {'type': 'null'}],
                                                    'description': 'the issue written to; null for a new issue',
                                                    'title': 'Key'},
                                            'op': {'title': 'Op', 'type': 'string'},
                                            'result': {'anyOf': [{'additionalProperties': True, 'type': 'object'},
                                                                 {'type': 'null'}],
                                                       'description': 'what Jira made when done: `comment_id`, '
                                                                      '`worklog_id`, `key` and `id` of a new issue, '
                                                                      '`link_id`, `transition`, `fields`',
                                                       'title': 'Result'},
                                            'said': {'description': 'the status in words, and what to do next',
                                                     'title': 'Said',
                                                     'type': 'string'},
                                            'status': {'description': 'pending: queued, no agent has taken it; '
                                                                      'applying: the agent beside Jira is applying it; '
                                                                      "done: in Jira; failed: Jira (or the agent's "
                                                                      'rules) refused it; conflict: Jira changed since '
                                                                      'it was asked, nothing written; cancelled: '
                                                                      'withdrawn before any agent took it',
                                                       'enum': ['pending',
                                                                'applying',
                                                                'done',
                                                                'failed',
                                                                'conflict',
                                                                'cancelled'],
                                                       'title': 'Status',
                                                       'type': 'string'},
                                            'write': {'additionalProperties': True,
                                                      'description': 'the write object as the hub answers it (GET '
                                                                     '/api/v1/writes/{id})',
                                                      'title': 'Write',
                                                      'type': 'object'}},
                             'required': ['id', 'status', 'said', 'op', 'key', 'result', 'error', 'conflict', 'write'],
                             'title': 'WriteOutcome',
                             'type': 'object'}}]
