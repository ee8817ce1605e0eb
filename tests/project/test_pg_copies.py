"""The copies of the PostgreSQL template that tests take (tests/support/pg_copies.py): each taker
gets a database of its own at the template's schema, empty of what another test wrote; one given
back is reset for the next taker (tests/support/pg_reset.py), or dropped if its schema changed;
closing drops the ones made ahead."""

from __future__ import annotations

import os

from tests.support import wait_until
from tests.support.pg_copies import TemplateCopies


def databases(server, prefix: str) -> set[str]:
    return {name for (name,) in server.execute(f"SELECT datname FROM pg_database WHERE datname LIKE '{prefix}%'")}


def test_a_copy_whose_schema_a_test_changed_is_dropped_when_given_back(postgres_template):
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
        wait_until(lambda: first not in databases(server, prefix), message="the changed copy given back dropped")
        # Two more are made ahead of the next takers.
        wait_until(lambda: copies.ready() == 2, message="two copies made ahead")
    finally:
        copies.close()
    copies.server.drop_database(second)
    assert not (databases(server, prefix) & {first, second})
    assert copies.ready() == 0


def test_a_copy_given_back_is_handed_out_again_as_the_template_left_it(postgres_template):
    server, template = postgres_template
    copies = TemplateCopies(server, template, ahead=1)
    try:
        taken = copies.take()
        [(settings,)] = server.execute("SELECT count(*) FROM setting", template)
        url = server.url(taken)
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("INSERT INTO setting VALUES ('written_by_a_test', 'x')")
            conn.execute("DELETE FROM setting WHERE key = 'schema_version'")
            conn.execute("INSERT INTO batch (title, created_at) VALUES ('b', '2026-01-01')")
            conn.execute("INSERT INTO batch (title, created_at) VALUES ('c', '2026-01-01')")
            [(first_id,), _] = conn.execute("SELECT id FROM batch ORDER BY id").fetchall()
            # A connection a test left open is ended, not waited on.
            lingering = psycopg.connect(url, autocommit=True)
            copies.give_back(taken)
            wait_until(lambda: copies.reused == 1, message="the copy given back reset")
            assert lingering.closed or lingering.broken or _ended(lingering)
        again = [copies.take() for _ in range(copies.ready())]
        assert taken in again
        assert server.execute("SELECT count(*) FROM setting", taken) == [(settings,)]
        assert server.execute("SELECT value FROM setting WHERE key = 'schema_version'", taken) == \
            server.execute("SELECT value FROM setting WHERE key = 'schema_version'", template)
        assert server.execute("SELECT count(*) FROM batch", taken) == [(0,)]
        server.execute("INSERT INTO batch (title, created_at) VALUES ('d', '2026-01-01')", taken)
        assert server.execute("SELECT id FROM batch", taken) == [(first_id,)]  # the sequence restarted
        for name in again:
            copies.give_back(name)
    finally:
        copies.close()


def _ended(conn) -> bool:
    try:
        conn.execute("SELECT 1")
    except Exception:
        return True
    return False
