"""How the MCP tools word the hub's data: Jira's time notation, custom field values, links."""

from __future__ import annotations

import pytest

from hub.mcp.wording import CUSTOM_VALUE_CHARS, custom_fields, custom_value, duration, link_text


@pytest.mark.parametrize(("seconds", "text"), [
    (None, None), (0, "0m"), (59, "0m"), (60, "1m"), (9000, "2h 30m"), (8 * 3600, "1d"),
    (12 * 3600, "1d 4h"), (5 * 8 * 3600, "1w"), ((5 * 8 + 2 * 8 + 3) * 3600 + 30 * 60 + 15, "1w 2d 3h 30m"),
    (40 * 5 * 8 * 3600, "40w"),
])
def test_durations_read_as_jira_writes_them_with_its_8_hour_day_and_5_day_week(seconds, text):
    assert duration(seconds) == text


@pytest.mark.parametrize(("value", "text"), [
    (5.0, "5"), (2.5, "2.5"), (13, "13"), ("Platform", "Platform"), (["iOS", "Android"], "iOS, Android"),
    ({"parent": "EMEA", "child": "Kazan"}, "EMEA / Kazan"), ({"parent": "EMEA", "child": None}, "EMEA"),
    (True, "yes"), ([], ""), ({"id": 3, "key": "ACC"}, '{"id":3,"key":"ACC"}'),
    ([{"b": "Ё"}, 1.0], '{"b":"Ё"}, 1'),
])
def test_custom_values_read_as_a_person_reads_them(value, text):
    assert custom_value(value) == text


def test_a_long_custom_value_is_cut_and_says_so():
    assert custom_value("ж" * CUSTOM_VALUE_CHARS) == "ж" * CUSTOM_VALUE_CHARS
    cut = custom_value("ж" * (CUSTOM_VALUE_CHARS + 1))
    assert len(cut) == CUSTOM_VALUE_CHARS and cut.endswith("ж…")


def test_custom_fields_go_by_display_name_and_a_shared_name_keeps_its_ids_apart():
    shown = custom_fields({
        "customfield_10002": {"name": "Story Points", "type": "number", "value": 5.0},
        "customfield_10100": {"name": "Team", "value": "Platform"},
        "customfield_10101": {"name": "Team", "value": "Core"},
        "customfield_10300": {"name": "audience", "value": ["internal"]},
    })
    assert list(shown.items()) == [("audience", "internal"), ("Story Points", "5"),
                                   ("Team (customfield_10100)", "Platform"), ("Team (customfield_10101)", "Core")]
    assert custom_fields({}) == {}


def test_links_read_from_the_issue_s_own_side():
    assert link_text("blocks", "AURORA-13") == "blocks AURORA-13"
    assert link_text("is blocked by", "OTHER-7") == "is blocked by OTHER-7"
