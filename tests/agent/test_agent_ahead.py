"""OneAhead: the refresh's next page is made while the previous one is sent, and never more than that."""

from __future__ import annotations

import pytest

from agent.ahead import OneAhead

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_items_come_in_order_and_a_producer_error_comes_after_them():
    def items():
        yield from (1, 2, 3)
        raise ValueError("Jira went away")

    got = []
    with OneAhead(items()) as ahead, pytest.raises(ValueError, match="Jira went away"):
        for item in ahead:
            got.append(item)
    assert got == [1, 2, 3]


def test_the_producer_is_never_more_than_one_step_ahead():
    made, taken = [], []

    def items():
        for n in range(20):
            made.append(n)
            yield n

    with OneAhead(items()) as ahead:
        for item in ahead:
            # Each item is made only after the one before was taken: while this one is handled the
            # producer makes at most the next one, however long the handling takes.
            assert len(made) <= item + 2
            taken.append(item)
    assert taken == list(range(20))


def test_closing_stops_the_producer_one_step_ahead_at_most():
    made = []

    def items():
        for n in range(100):
            made.append(n)
            yield n

    with OneAhead(items(), name="ahead-test") as ahead:
        item = next(iter(ahead))
    ahead._thread.join(timeout=10)
    assert not ahead._thread.is_alive()
    assert item == 0 and len(made) <= 2  # the one taken and the one made while it was handled
