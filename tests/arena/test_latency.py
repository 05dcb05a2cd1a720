"""A seat's decision latency: nearest-rank percentiles, the same from the referee and its log."""

from __future__ import annotations

from brandeln.arena.latency import SeatLatency, latency_of, log_latency, percentile, was_asked
from brandeln.arena.logrecords import DecisionRecord
from brandeln.arena.seat import SeatOutcome


def test_percentiles_are_nearest_rank() -> None:
    ordered = list(range(1, 101))  # 1..100 ms
    assert percentile(ordered, 50) == 50
    assert percentile(ordered, 95) == 95
    assert latency_of([7]) == SeatLatency(1, 7, 7, 7)
    assert latency_of([40, 10, 20, 30]) == SeatLatency(4, 20, 40, 40)


def test_the_fallback_of_a_forfeited_seat_was_asked_of_nobody() -> None:
    assert not was_asked(SeatOutcome.FORFEITED, 0)
    assert was_asked(SeatOutcome.FORFEITED, 12)  # forfeited while it was being asked
    assert was_asked(SeatOutcome.TIMEOUT, 500)
    assert was_asked(SeatOutcome.OK, 0)


def test_log_latency_reads_each_seats_decisions_and_skips_unasked_ones() -> None:
    records = [
        DecisionRecord(0, 1, "pass", 3, SeatOutcome.OK, 1),
        DecisionRecord(1, 2, "pass", 9, SeatOutcome.OK, 2),
        DecisionRecord(0, 0, "pass", 200, SeatOutcome.TIMEOUT, 3),
        DecisionRecord(1, 0, "C7", 0, SeatOutcome.FORFEITED, 4),
    ]
    assert log_latency(records, 3) == [
        SeatLatency(2, 3, 200, 200),
        SeatLatency(1, 9, 9, 9),
        SeatLatency(0, 0, 0, 0),
    ]
