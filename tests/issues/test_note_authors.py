"""Notes are changed and deleted only by their author's token or an admin token (issue 33):
any interface token reads every note and adds its own."""

from __future__ import annotations

import pytest

from tests.support import db_rows, mirrored

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_only_a_notes_author_or_an_admin_changes_or_deletes_it(hub):
    mirrored(hub)
    theirs = {"Authorization": f"Bearer {hub.built.services.tokens.add('second-interface', 'interface')}"}
    note = hub.api("POST", "/api/v1/issues/X-1/notes", {"body": "ask design"}).json
    assert note["author"] == "test-interface"
    # Another interface token reads it, but may neither change nor delete it.
    listed = hub.api("GET", "/api/v1/issues/X-1/notes", role=None, headers=theirs).json["items"]
    assert [n["id"] for n in listed] == [note["id"]]
    refused = hub.api("PATCH", f"/api/v1/notes/{note['id']}", {"body": "mine now"}, role=None, headers=theirs)
    assert refused.status_code == 403, refused.json
    assert refused.json["title"] == "Forbidden"
    assert "only its author's token or an admin token" in refused.json["description"]
    assert hub.api("DELETE", f"/api/v1/notes/{note['id']}", role=None, headers=theirs).status_code == 403
    assert db_rows(hub, "SELECT author, body, updated_at FROM issue_note") == [
        ("test-interface", "ask design", note["updated_at"])]
    # Its author may; so may an admin token, and the note still names its author.
    assert hub.api("PATCH", f"/api/v1/notes/{note['id']}", {"body": "asked"}).status_code == 200
    by_admin = hub.api("PATCH", f"/api/v1/notes/{note['id']}", {"body": "answered"}, role="admin")
    assert by_admin.status_code == 200 and by_admin.json["author"] == "test-interface"
    assert hub.api("DELETE", f"/api/v1/notes/{note['id']}", role="admin").status_code == 204
    # The other token's own note is its own to delete; an unknown note is still 404 for anyone.
    own = hub.api("POST", "/api/v1/issues/X-1/notes", {"body": "x"}, role=None, headers=theirs).json
    assert hub.api("DELETE", f"/api/v1/notes/{own['id']}", role=None, headers=theirs).status_code == 204
    assert hub.api("PATCH", f"/api/v1/notes/{own['id']}", {"body": "y"}, role=None, headers=theirs).status_code == 404
