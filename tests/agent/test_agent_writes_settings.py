"""The write kind's settings and shapes that need no Jira: ``--writes``, ``--writes-jql``,
``--jira-user-tokens`` (refused unless private), ``--no-attribution``; the mirror's field values
turned back into Jira's shapes, and Jira's screens into the ``{FIELD}`` shape the mirror keeps."""

from __future__ import annotations

import argparse
import json
import os

import pytest

from agent import cli, meta
from agent.config import WRITE_OPS, ConfigError, add_run_arguments, from_arguments
from agent.writes import fields

BASE_ENV = {"HUB_URL": "http://hub", "HUB_AGENT_TOKEN": "t", "JIRA_URL": "http://jira", "JIRA_TOKEN": "pat"}


def config(*argv: str, **environ: str):
    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    return from_arguments(parser.parse_args(list(argv)), {**BASE_ENV, **environ})


def test_an_agent_applies_every_write_operation_unless_told_otherwise():
    assert config().writes == frozenset(WRITE_OPS)
    assert config().attribution is True and config().writes_jql is None


def test_writes_names_the_operations_applied_and_none_makes_the_agent_read_only():
    assert config("--writes", "comment,transition").writes == {"comment", "transition"}
    assert config(HUB_AGENT_WRITES="none").writes == frozenset()
    with pytest.raises(ConfigError, match="unknown operation 'delete'"):
        config("--writes", "comment,delete")


def test_writes_jql_and_no_attribution_come_from_flags_or_the_environment():
    assert config(HUB_AGENT_WRITES_JQL="project = AURORA").writes_jql == "project = AURORA"
    assert config("--no-attribution").attribution is False
    assert config(HUB_AGENT_NO_ATTRIBUTION="1").attribution is False


def test_a_user_tokens_file_readable_by_others_is_refused_at_start_with_exit_2(tmp_path, monkeypatch, capsys):
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"alice": "pat-alice"}))
    os.chmod(path, 0o644)
    monkeypatch.setenv("HUB_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("HUB_AGENT_TOKEN", "t")
    monkeypatch.setenv("JIRA_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("JIRA_TOKEN", "pat")
    assert cli.main(["run", "--jira-user-tokens", str(path)]) == 2
    err = capsys.readouterr().err
    assert "mode 0644" in err and "0600 or 0400" in err and "pat-alice" not in err


def test_a_private_user_tokens_file_is_read_and_a_malformed_one_refused(tmp_path):
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"alice": "pat-alice"}))
    for mode in (0o600, 0o400):
        os.chmod(path, mode)
        assert config("--jira-user-tokens", str(path)).jira_user_tokens == {"alice": "pat-alice"}
    os.chmod(path, 0o600)
    path.write_text(json.dumps(["pat-alice"]))
    with pytest.raises(ConfigError, match="object of hub token names"):
        config(HUB_AGENT_JIRA_USER_TOKENS=str(path))
    with pytest.raises(ConfigError, match="cannot read"):
        config("--jira-user-tokens", str(tmp_path / "missing.json"))


DESCRIBED = {
    "customfield_10010": {"id": "customfield_10010", "name": "Story Points", "schema": {"type": "number"}},
    "customfield_10020": {"id": "customfield_10020", "name": "Team",
                          "schema": {"type": "option", "custom": "x:select"}},
    "customfield_10030": {"id": "customfield_10030", "name": "Reviewers",
                          "schema": {"type": "array", "items": "user"}},
}


def test_the_mirrors_flattened_values_are_written_in_jiras_shapes():
    values, update = fields.to_jira(
        {"priority": "Major", "assignee": "ivanov", "fix_versions": ["1.0"], "labels": {"add": ["a"], "remove": ["b"]},
         "original_estimate": 5400, "remaining_estimate": "1h", "Story Points": 3, "customfield_10020": "Red",
         "reviewers": ["petrov"], "components": {"add": ["API"]}, "duedate": "2026-12-01"}, DESCRIBED)
    assert values == {"priority": {"name": "Major"}, "assignee": {"name": "ivanov"}, "fixVersions": [{"name": "1.0"}],
                      "customfield_10010": 3, "customfield_10020": {"value": "Red"},
                      "customfield_10030": [{"name": "petrov"}], "duedate": "2026-12-01",
                      "timetracking": {"originalEstimate": "90m", "remainingEstimate": "1h"}}
    assert update == {"labels": [{"add": "a"}, {"remove": "b"}], "components": [{"add": {"name": "API"}}]}


def test_a_field_jira_does_not_know_is_named_and_add_remove_refused_on_a_single_value():
    with pytest.raises(fields.FieldError, match="Jira has no field 'Velocity'") as caught:
        fields.to_jira({"Velocity": 3}, DESCRIBED)
    assert caught.value.field == "Velocity"
    with pytest.raises(fields.FieldError, match="no list"):
        fields.to_jira({"priority": {"add": ["Major"]}}, DESCRIBED)


def test_a_transition_screens_time_spent_is_a_work_log_and_unassigning_sends_null():
    values, update = fields.to_jira({"resolution": "Fixed", "time_spent": "1h", "assignee": None}, {})
    assert values == {"resolution": {"name": "Fixed"}, "assignee": None}
    assert update == {"worklog": [{"add": {"timeSpent": "1h"}}]}


def test_values_compare_as_a_person_reads_them():
    assert fields.same(["b", "a"], ["a", "b"]) and fields.same(None, []) and fields.same("x\r\ny", "x\ny")
    assert fields.same([{"name": "1.0", "id": "10"}], ["1.0"]) and not fields.same("Open", "Closed")
    assert fields.same(5400, "1h 30m", estimate=True) and fields.seconds("1d 2h") == 10 * 3600
    assert fields.holds(["a", "c"], {"add": ["a"], "remove": ["b"]})
    assert not fields.holds(["a", "b"], {"add": ["a"], "remove": ["b"]})


def test_jiras_screens_are_kept_in_the_one_field_shape():
    screen = {"resolution": {"required": True, "name": "Resolution", "operations": ["set"],
                             "schema": {"type": "resolution", "system": "resolution"},
                             "allowedValues": [{"id": "1", "name": "Fixed"}, {"id": "2", "name": "Won't Fix"}]},
              "customfield_10020": {"required": False, "name": "Team", "operations": ["set"],
                                    "schema": {"type": "option", "custom": "x:select", "customId": 10020},
                                    "allowedValues": [{"id": "5", "value": "Red"}]},
              "labels": {"required": False, "name": "Labels", "operations": ["add", "set", "remove"],
                         "schema": {"type": "array", "items": "string", "system": "labels"}}}
    assert meta.fields(screen) == {
        "resolution": {"name": "Resolution", "required": True, "type": "resolution", "allowed": ["Fixed", "Won't Fix"],
                       "operations": ["set"]},
        "customfield_10020": {"name": "Team", "required": False, "type": "option", "custom": "x:select",
                              "allowed": ["Red"], "operations": ["set"]},
        "labels": {"name": "Labels", "required": False, "type": "array", "items": "string",
                   "operations": ["add", "set", "remove"]}}
    issue = {"transitions": [{"id": "5", "name": "Resolve Issue", "to": {"name": "Resolved", "id": "5"},
                              "fields": {"resolution": screen["resolution"]}}],
             "editmeta": {"fields": {"labels": screen["labels"]}}}
    assert meta.issue_meta(issue) == {
        "transitions": [{"id": "5", "name": "Resolve Issue", "to": "Resolved",
                         "fields": {"resolution": meta.field(screen["resolution"])}}],
        "edit_fields": {"labels": meta.field(screen["labels"])}}
    assert meta.issue_meta({"key": "A-1"}) == {}  # not expanded: the mirror keeps what it has
