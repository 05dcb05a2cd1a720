"""Per-seat counts folded from a match's public events (as the RunMatch stream's messages
read into the protocol's records, the way ``brandeln.ladder.referee.admin_client`` hands them to the
tally)."""

from __future__ import annotations

from brandeln.ladder.referee.tally import MatchTally
from brandeln.ladder.season.duplicate import SeatTally
from brandeln.protocol.decode import LiveEvent, event_from_pb
from brandeln.v1 import cards_pb2


def _live(event: cards_pb2.GameEvent) -> LiveEvent:
    decoded = event_from_pb(event)
    assert decoded is not None
    return decoded


def contract(deal: int, soloist: int | None, passed_out: bool = False) -> LiveEvent:
    contract_set = cards_pb2.ContractSet(contract="brand", passed_out=passed_out)
    if soloist is not None:
        contract_set.soloist = soloist
    return _live(cards_pb2.GameEvent(deal_number=deal, contract_set=contract_set))


def ended(deal: int, soloist: int | None, made: bool) -> LiveEvent:
    deal_ended = cards_pb2.DealEnded(deal_number=deal, contract="brand", made=made)
    if soloist is not None:
        deal_ended.soloist = soloist
    return _live(cards_pb2.GameEvent(deal_number=deal, deal_ended=deal_ended))


def penalty(seat: int, code: str, strikes: int) -> LiveEvent:
    return _live(
        cards_pb2.GameEvent(
            seat_penalized=cards_pb2.SeatPenalized(seat=seat, code=code, strikes=strikes)
        )
    )


def test_contracts_bid_and_made_count_for_the_soloist_only() -> None:
    tally = MatchTally(players=4)
    for event in (
        contract(1, 2),
        ended(1, 2, made=True),
        contract(2, 2),
        ended(2, 2, made=False),
        contract(3, 0),
        ended(3, 0, made=True),
    ):
        tally.add(event)
    seats = tally.seats()
    assert (seats[2].contracts_bid, seats[2].contracts_made) == (2, 1)
    assert (seats[0].contracts_bid, seats[0].contracts_made) == (1, 1)
    assert seats[1] == seats[3] == SeatTally()
    assert tally.deals_ended == 3


def test_a_passed_out_deal_forced_on_forehand_is_not_a_contract_bid() -> None:
    tally = MatchTally(players=4)
    tally.add(contract(1, 1, passed_out=True))
    tally.add(ended(1, 1, made=True))
    tally.add(contract(2, None, passed_out=True))  # haferl: no soloist at all
    tally.add(ended(2, None, made=False))
    assert tally.seats()[1] == SeatTally()
    assert tally.deals_ended == 2


def test_penalties_count_timeouts_illegal_actions_and_strikes() -> None:
    tally = MatchTally(players=3)
    for event in (
        penalty(0, "timeout", 1),
        penalty(0, "illegal", 2),
        penalty(0, "malformed", 3),
        penalty(1, "disconnected", 1),
        penalty(7, "timeout", 1),  # a seat out of range is ignored, not a crash
    ):
        tally.add(event)
    seats = tally.seats()
    assert seats[0] == SeatTally(timeouts=1, illegal=2, strikes=3)
    assert seats[1] == SeatTally(strikes=1)
    assert seats[2] == SeatTally()


def test_the_summary_strikes_override_the_counted_ones() -> None:
    tally = MatchTally(players=2)
    tally.add(penalty(0, "timeout", 1))
    assert [seat.strikes for seat in tally.seats([4, 2])] == [4, 2]
    assert [seat.strikes for seat in tally.seats([4])] == [1, 0]  # wrong length: ignored


def test_a_penalty_counts_the_same_whether_told_by_its_word_or_by_its_enum() -> None:
    by_word, by_enum = MatchTally(players=2), MatchTally(players=2)
    told = (
        ("timeout", cards_pb2.SEAT_OUTCOME_TIMEOUT),
        ("malformed", cards_pb2.SEAT_OUTCOME_MALFORMED),
    )
    for strikes, (code, outcome) in enumerate(told, start=1):
        by_word.add(penalty(1, code, strikes))
        enum_only = cards_pb2.SeatPenalized(seat=1, outcome=outcome, strikes=strikes)
        by_enum.add(_live(cards_pb2.GameEvent(seat_penalized=enum_only)))
    assert by_word.seats() == by_enum.seats()
    assert by_enum.seats()[1] == SeatTally(timeouts=1, illegal=1, strikes=2)
