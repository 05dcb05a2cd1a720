"""How long a seat took to decide: the count, median, 95th percentile and slowest of a match.

One definition for the referee (``MatchSummary.latency``, from the decisions it timed) and for
the readers of a log (``matches show``: the ``ms`` of every ``decision`` record). A decision
counts when the seat was asked, timeouts and waits for a resume included: all but the fallback
played at once for a seat already forfeited (outcome ``forfeited`` after 0 ms), which was
asked of nobody (:func:`was_asked`, the same test on both sides).

Percentiles are nearest-rank: the smallest value with at least p% of the values at or below it.

>>> latency_of([5, 1, 3, 2, 4])
SeatLatency(decisions=5, p50_ms=3, p95_ms=5, max_ms=5)
>>> latency_of([])
SeatLatency(decisions=0, p50_ms=0, p95_ms=0, max_ms=0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from brandeln.arena.seat import SeatOutcome

if TYPE_CHECKING:
    from brandeln.arena.logrecords import DecisionRecord

Number = TypeVar("Number", int, float)

__all__ = ["SeatLatency", "latency_of", "log_latency", "percentile", "was_asked"]


@dataclass(frozen=True, slots=True)
class SeatLatency:
    """One seat's decision times in one match (all zero when it was asked nothing)."""

    decisions: int
    p50_ms: int
    p95_ms: int
    max_ms: int


def was_asked(outcome: SeatOutcome, latency_ms: int) -> bool:
    """Whether a decision was asked of its seat (see the module docstring)."""
    return not (outcome is SeatOutcome.FORFEITED and latency_ms == 0)


def percentile(ordered: Sequence[Number], percent: float) -> Number:
    """The nearest-rank percentile of ``ordered`` (sorted, not empty): the one definition the
    referee, the log readers, the web pages and the benchmarks share.

    >>> percentile([1, 2, 3, 4], 50), percentile([1, 2, 3, 4], 99), percentile([0.5], 95)
    (2, 4, 0.5)
    """
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]


def latency_of(times_ms: Iterable[int]) -> SeatLatency:
    """The summary of one seat's decision times."""
    ordered = sorted(times_ms)
    if not ordered:
        return SeatLatency(0, 0, 0, 0)
    return SeatLatency(
        decisions=len(ordered),
        p50_ms=percentile(ordered, 50),
        p95_ms=percentile(ordered, 95),
        max_ms=ordered[-1],
    )


def log_latency(decisions: Iterable[DecisionRecord], players: int) -> list[SeatLatency]:
    """Each seat's latency from a match log's decision records (``brandeln.arena.logreader``)."""
    times: list[list[int]] = [[] for _ in range(players)]
    for decision in decisions:
        if was_asked(decision.outcome, decision.latency_ms) and 0 <= decision.seat < players:
            times[decision.seat].append(decision.latency_ms)
    return [latency_of(seat_times) for seat_times in times]
