"""Who watches a table besides its seats: spectators (WatchMatch), the RunMatch caller's
observers (every update, or only the summary events) and the history a late spectator is sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from arena import codec

__all__ = ["SUMMARY_EVENTS", "Audience", "Observer"]

Observer = Callable[[codec.MatchUpdate], None]
# The events a summary observer (RunMatchRequest.summary_updates) is sent.
SUMMARY_EVENTS = frozenset({"contract_set", "deal_ended", "seat_penalized"})


class Audience:
    def __init__(self) -> None:
        self.observers: list[Observer] = []
        self.summary_observers: list[Observer] = []
        self.watchers: list[asyncio.Queue[codec.GameEvent | None]] = []
        self.history: list[codec.GameEvent] = []  # for spectators who join late

    def started(self, message: codec.MatchStarted) -> None:
        update = codec.MatchUpdate(started=message)
        for observer in (*self.observers, *self.summary_observers):
            observer(update)

    def event(self, message: codec.GameEvent) -> None:
        """A public event (on the hot path: one update built only if someone observes)."""
        self.history.append(message)
        for queue in self.watchers:
            queue.put_nowait(message)
        if self.observers or self.summary_observers:
            update = codec.MatchUpdate(event=message)
            for observer in self.observers:
                observer(update)
            if self.summary_observers and message.WhichOneof("kind") in SUMMARY_EVENTS:
                for observer in self.summary_observers:
                    observer(update)

    def ended(self, summary: codec.MatchSummary) -> None:
        for queue in self.watchers:
            queue.put_nowait(None)
        result = codec.MatchUpdate(result=summary)
        for observer in (*self.observers, *self.summary_observers):
            observer(result)
