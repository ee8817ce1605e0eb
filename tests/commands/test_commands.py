"""CommandService.enqueue holds the rules of each command type, whoever calls it."""

from __future__ import annotations

import pytest

from hub.errors import Conflict, ContractError, NotFound
from hub.models import AttachmentFile, Batch

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def service(hub):
    return hub.built.services.commands


def load_attachment(hub, aid="31337"):
    command = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "key = A-1"}}).json
    hub.agent("POST", "/agent/v1/claim", {"agent_id": "a", "version": 14})
    hub.agent("POST", f"/agent/v1/commands/{command['id']}/state",
              {"issues": [{"key": "A-1", "id": "1", "attachments": [{"id": aid, "filename": "f.pdf"}]}]})


@pytest.mark.parametrize("type_, params, field", [
    ("refresh", {"attachment_id": "1"}, "params.attachment_id"),
    ("fetch_attachment", {"jql": "x"}, "params.jql"),
    ("fetch_attachment", {}, "params.attachment_id"),
    ("reindex", {}, "type"),
])
def test_each_type_takes_its_own_params(hub, type_, params, field):
    with pytest.raises(ContractError) as error:
        service(hub).enqueue(type_, params)
    assert error.value.extra["field"] == field


def test_a_batch_must_exist_for_either_type(hub):
    load_attachment(hub)
    for type_, params in (("refresh", {"jql": "x"}), ("fetch_attachment", {"attachment_id": "31337"})):
        with pytest.raises(ContractError, match="batch 99 does not exist"):
            service(hub).enqueue(type_, params, batch_id=99)
    batch = Batch.create(title="t", created_at="2026-11-30T00:00:00+00:00")
    command, created = service(hub).enqueue("fetch_attachment", {"attachment_id": "31337"}, batch.id)
    assert created and command.batch_id == batch.id


def test_one_open_fetch_per_attachment_and_unknown_ones_are_404(hub):
    load_attachment(hub)
    first, created = service(hub).enqueue("fetch_attachment", {"attachment_id": "31337"})
    again, created_again = service(hub).enqueue("fetch_attachment", {"attachment_id": "31337"})
    assert created and not created_again and again.id == first.id
    with pytest.raises(NotFound):
        service(hub).enqueue("fetch_attachment", {"attachment_id": "404"})


def test_a_ready_attachment_fetched_before_commands_were_kept_is_a_conflict(hub, tmp_path):
    """A v6 hub's attachment_file row with its file but no command left to name."""
    load_attachment(hub)
    sha = "a" * 64
    hub.config.files_dir.mkdir(parents=True, exist_ok=True)
    (hub.config.files_dir / sha).write_bytes(b"x")
    AttachmentFile.create(attachment_id="31337", file=sha, size=1, fetched_at="2026-11-30T00:00:00+00:00")
    with pytest.raises(Conflict, match="ready already"):
        service(hub).enqueue("fetch_attachment", {"attachment_id": "31337"})
