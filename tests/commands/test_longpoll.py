"""The long-poll gate on its own: a bounded number of slots, taken without blocking."""

from __future__ import annotations

import falcon
import pytest

from hub.api.longpoll import LongPolls

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_polls_past_the_slots_are_told_to_come_back_and_slots_return_even_on_errors():
    gate = LongPolls(2, retry_after=3)
    first, second, third = falcon.Response(), falcon.Response(), falcon.Response()
    with gate.slot(first) as a, gate.slot(second) as b:
        assert (a, b, gate.waiting) == (True, True, 2)
        with gate.slot(third) as c:
            assert c is False
        assert third.get_header("Retry-After") == "3"
        assert first.get_header("Retry-After") is None
    assert gate.waiting == 0
    with pytest.raises(RuntimeError), gate.slot(falcon.Response()):
        raise RuntimeError("the poll failed")
    with gate.slot(falcon.Response()) as a, gate.slot(falcon.Response()) as b:
        assert (a, b) == (True, True)
