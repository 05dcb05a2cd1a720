"""Per-seat counts of one match, folded from the public events of its ``RunMatch`` stream.

The stream carries every public event (read into the protocol's records by
``brandeln.ladder.referee.admin_client``), so the ladder needs neither the match log nor its format:
a penalty gives timeouts and illegal actions (code ``timeout``; ``illegal`` or ``malformed``),
``contract_set`` says whether the auction produced a soloist (a pass-out's forced soloist under
the Muss-Spiel did not bid) and ``deal_ended`` whether the soloist made it.

>>> from brandeln.protocol.events import ContractSetRecord, DealEndedRecord, EventRecord, Penalty
>>> from brandeln.protocol.decode import LivePenalty
>>> from brandeln.protocol.statuses import SeatOutcome
>>> tally = MatchTally(players=4)
>>> tally.add(EventRecord(1, 1, ContractSetRecord(2, "brand", False)))
>>> tally.add(EventRecord(9, 1, DealEndedRecord(2, "brand", "H", False, (4, 0, 3, 0), True,
...     (0, 0, 0, 0))))
>>> tally.add(LivePenalty(10, Penalty(1, 0, SeatOutcome.TIMEOUT, "late", 1)))
>>> tally.seats()[2].contracts_made, tally.seats()[0].timeouts, tally.deals_ended
(1, 1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from brandeln.ladder.season.duplicate import SeatTally
from brandeln.protocol.decode import LiveEvent, LivePenalty
from brandeln.protocol.events import ContractSetRecord, DealEndedRecord
from brandeln.protocol.statuses import SeatOutcome

__all__ = ["ILLEGAL_CODES", "MatchTally"]

ILLEGAL_CODES: Final = frozenset({SeatOutcome.ILLEGAL, SeatOutcome.MALFORMED})


class MatchTally:
    """Counts per seat while a match's events stream in."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.deals_ended = 0
        self._timeouts = [0] * players
        self._illegal = [0] * players
        self._strikes = [0] * players
        self._bid = [0] * players
        self._made = [0] * players
        self._bid_deals: set[int] = set()  # deals whose soloist won the auction

    def add(self, event: LiveEvent) -> None:
        """Fold one public event in (events of other kinds are ignored)."""
        if isinstance(event, LivePenalty):
            penalty = event.penalty
            if not self._seat(penalty.seat):
                return
            if penalty.code is SeatOutcome.TIMEOUT:
                self._timeouts[penalty.seat] += 1
            elif penalty.code in ILLEGAL_CODES:
                self._illegal[penalty.seat] += 1
            # `strikes` is the seat's running total in the match, as the referee counts it.
            self._strikes[penalty.seat] = max(self._strikes[penalty.seat], penalty.strikes)
            return
        body = event.body
        if isinstance(body, ContractSetRecord):
            if body.soloist is not None and not body.passed_out:
                self._bid_deals.add(event.deal)
        elif isinstance(body, DealEndedRecord):
            self.deals_ended += 1
            soloist = body.soloist
            if soloist is not None and event.deal in self._bid_deals and self._seat(soloist):
                self._bid[soloist] += 1
                self._made[soloist] += int(bool(body.made))

    def seats(self, strikes: Sequence[int] = ()) -> tuple[SeatTally, ...]:
        """The counts by seat; ``strikes`` (the summary's, when it has them) overrides ours."""
        final_strikes = list(strikes) if len(strikes) == self.players else self._strikes
        return tuple(
            SeatTally(
                timeouts=self._timeouts[seat],
                illegal=self._illegal[seat],
                strikes=final_strikes[seat],
                contracts_bid=self._bid[seat],
                contracts_made=self._made[seat],
            )
            for seat in range(self.players)
        )

    def _seat(self, seat: int) -> bool:
        return 0 <= seat < self.players
