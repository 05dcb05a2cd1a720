"""A seat's decision latency: nearest-rank percentiles, the same from the referee and its log."""

from __future__ import annotations

from typing import Any

from arena.latency import SeatLatency, latency_of, log_latency, percentile, was_asked
from arena.seat import SeatOutcome


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
    records: list[dict[str, Any]] = [
        {"type": "header"},
        {"type": "decision", "seq": 1, "seat": 0, "req": 1, "action": "pass", "ms": 3},
        {"type": "decision", "seq": 2, "seat": 1, "req": 2, "action": "pass", "ms": 9},
        {
            "type": "decision",
            "seq": 3,
            "seat": 0,
            "req": 0,
            "action": "pass",
            "ms": 200,
            "status": "timeout",
        },
        {
            "type": "decision",
            "seq": 4,
            "seat": 1,
            "req": 0,
            "action": "C7",
            "ms": 0,
            "status": "forfeited",
        },
        {"type": "event", "seq": 5, "kind": "trick_taken"},
    ]
    assert log_latency(records, 3) == [
        SeatLatency(2, 3, 200, 200),
        SeatLatency(1, 9, 9, 9),
        SeatLatency(0, 0, 0, 0),
    ]
