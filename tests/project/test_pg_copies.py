"""The copies of the PostgreSQL template that tests take (tests/support/pg_copies.py): each taker
gets a database of its own at the template's schema, empty of what another test wrote, and one
given back is dropped; closing drops the ones made ahead."""

from __future__ import annotations

import os

from tests.support import wait_until
from tests.support.pg_copies import TemplateCopies


def databases(server, prefix: str) -> set[str]:
    return {name for (name,) in server.execute(f"SELECT datname FROM pg_database WHERE datname LIKE '{prefix}%'")}


def test_a_copy_taken_is_a_fresh_database_of_the_takers_own_and_one_given_back_is_dropped(postgres_template):
    server, template = postgres_template
    prefix = f"hub_test_{os.getpid()}_"  # the names PostgresServer.create_database gives in this process
    copies = TemplateCopies(server, template, ahead=2)
    try:
        first, second = copies.take(), copies.take()
        assert first != second and {first, second} <= databases(server, prefix)
        server.execute("CREATE TABLE written_by_a_test (n int)", first)
        [(version,)] = server.execute("SELECT value FROM setting WHERE key = 'schema_version'", second)
        [(expected,)] = server.execute("SELECT value FROM setting WHERE key = 'schema_version'", template)
        assert version == expected
        assert not server.execute("SELECT 1 FROM pg_tables WHERE tablename = 'written_by_a_test'", second)
        copies.give_back(first)
        wait_until(lambda: first not in databases(server, prefix), message="the copy given back dropped")
        # Two more are made ahead of the next takers.
        wait_until(lambda: copies.ready() == 2, message="two copies made ahead")
    finally:
        copies.close()
    copies.server.drop_database(second)
    assert not (databases(server, prefix) & {first, second})
    assert copies.ready() == 0
