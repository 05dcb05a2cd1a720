"""Who watches a table besides its seats: spectators (WatchMatch), the RunMatch caller's
observers (every update, or only the summary events) and the history a late spectator is sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from brandeln.arena import codec

__all__ = ["SUMMARY_EVENTS", "Audience", "Observer"]

Observer = Callable[[codec.MatchUpdate], None]
# The events a summary observer (RunMatchRequest.summary_updates) is sent.
SUMMARY_EVENTS = frozenset({"contract_set", "deal_ended", "seat_penalized"})


class Audience:
    def __init__(self) -> None:
        self.observers: list[Observer] = []
        self.summary_observers: list[Observer] = []
        self.watchers: list[asyncio.Queue[codec.GameEvent | None]] = []
        # Every public event so far, serialized, for spectators who join late (history()).
        self._history: list[bytes] = []

    def started(self, message: codec.MatchStarted) -> None:
        update = codec.MatchUpdate(started=message)
        for observer in (*self.observers, *self.summary_observers):
            observer(update)

    def history(self) -> list[codec.GameEvent]:
        """The public events so far, in order."""
        return [codec.GameEvent.FromString(data) for data in self._history]

    def event(self, data: bytes, kind: str) -> None:
        """A public event, serialized, and its kind (the ``GameEvent.kind`` it fills).

        On the hot path: the message is parsed back only for whoever watches or observes it."""
        self._history.append(data)
        summary = bool(self.summary_observers) and kind in SUMMARY_EVENTS
        if not (self.watchers or self.observers or summary):
            return
        message = codec.GameEvent.FromString(data)
        for queue in self.watchers:
            queue.put_nowait(message)
        if self.observers or summary:
            update = codec.MatchUpdate(event=message)
            for observer in self.observers:
                observer(update)
            if summary:
                for observer in self.summary_observers:
                    observer(update)

    def ended(self, summary: codec.MatchSummary) -> None:
        for queue in self.watchers:
            queue.put_nowait(None)
        result = codec.MatchUpdate(result=summary)
        for observer in (*self.observers, *self.summary_observers):
            observer(result)
