"""Per-seat counts of one match, folded from the public events of its ``RunMatch`` stream.

The stream carries every :class:`GameEvent`, so the ladder needs neither the match log nor its
format: ``SeatPenalized`` gives timeouts and illegal actions (code ``timeout``; ``illegal`` or
``malformed``), ``ContractSet`` says whether the auction produced a soloist (a pass-out's forced
soloist under the Muss-Spiel did not bid) and ``DealEnded`` whether the soloist made it.

>>> from brandeln.v1 import cards_pb2
>>> tally = MatchTally(players=4)
>>> tally.add(cards_pb2.GameEvent(deal_number=1, contract_set=cards_pb2.ContractSet(
...     soloist=2, contract="brand")))
>>> tally.add(cards_pb2.GameEvent(deal_number=1, deal_ended=cards_pb2.DealEnded(
...     deal_number=1, soloist=2, contract="brand", made=True)))
>>> tally.add(cards_pb2.GameEvent(seat_penalized=cards_pb2.SeatPenalized(
...     seat=0, code="timeout", strikes=1)))
>>> tally.seats()[2].contracts_made, tally.seats()[0].timeouts, tally.deals_ended
(1, 1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from brandeln.v1 import cards_pb2
from ladder.duplicate import SeatTally

__all__ = ["ILLEGAL_CODES", "TIMEOUT_CODE", "MatchTally"]

TIMEOUT_CODE: Final = "timeout"
ILLEGAL_CODES: Final = frozenset({"illegal", "malformed"})


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

    def add(self, event: cards_pb2.GameEvent) -> None:
        """Fold one public event in (events of other kinds are ignored)."""
        kind = event.WhichOneof("kind")
        if kind == "contract_set":
            contract = event.contract_set
            if contract.HasField("soloist") and not contract.passed_out:
                self._bid_deals.add(event.deal_number)
        elif kind == "deal_ended":
            ended = event.deal_ended
            self.deals_ended += 1
            deal = ended.deal_number or event.deal_number
            if ended.HasField("soloist") and deal in self._bid_deals and self._seat(ended.soloist):
                self._bid[ended.soloist] += 1
                self._made[ended.soloist] += int(ended.made)
        elif kind == "seat_penalized":
            penalty = event.seat_penalized
            if not self._seat(penalty.seat):
                return
            if penalty.code == TIMEOUT_CODE:
                self._timeouts[penalty.seat] += 1
            elif penalty.code in ILLEGAL_CODES:
                self._illegal[penalty.seat] += 1
            # `strikes` is the seat's running total in the match, as the referee counts it.
            self._strikes[penalty.seat] = max(self._strikes[penalty.seat], penalty.strikes)

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
