"""AdminClient.watch_match against a real referee: a running match's events from seq 1 (a
late spectator gets the history first), and a clear error for a match that is not running."""

from __future__ import annotations

import pytest

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.ladder.errors import RefereeNotFoundError
from brandeln.ladder.referee.admin_client import AdminClient
from tests.web.matches import start_match


async def test_watch_match_streams_every_event_of_a_running_match_in_order(
    referee: EmbeddedReferee,
) -> None:
    running = await start_match(
        referee, "standard", ("w0", "w1", "w2", "w3"), deals=1, seed=3, delay=0.05
    )
    async with AdminClient(referee.address, referee.admin_token) as admin:
        events = [event async for event in admin.watch_match(running.match_id)]
    summary = await running.done
    assert summary.status == "finished"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[-1].kind == "deal_ended"
    kinds = {e.kind for e in events}
    assert {"bid_made", "contract_set", "card_played", "trick_taken"} <= kinds


async def test_watching_a_match_that_is_not_running_is_not_found(
    referee: EmbeddedReferee,
) -> None:
    async with AdminClient(referee.address, referee.admin_token) as admin:
        with pytest.raises(RefereeNotFoundError, match="no running match"):
            async for _ in admin.watch_match("m_nope"):
                pass
