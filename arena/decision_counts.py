"""What a referee's decisions did, counted as they happen: one :class:`DecisionCounts` for
all its tables (plain ints, read by ``brandeln.services.metrics.referee`` when Prometheus scrapes).
Counting is a few native additions per decision (this module is compiled with the per-decision
path), where a metrics library's objects (locks, label lookups) would cost it measurably.
"""

from __future__ import annotations

from bisect import bisect_left

from brandeln.arena import codec
from brandeln.arena.seat import SeatOutcome

__all__ = ["LATENCY_BUCKETS_S", "DecisionCounts", "DecisionCountsSnapshot"]

# The upper bounds (seconds) of the decision latency histogram's buckets: a bot on the same
# machine answers in about a millisecond, a search bot in seconds, and no move time is longer
# than 30 s; a last bucket, unbounded, takes the rest.
LATENCY_BUCKETS_S: tuple[float, ...] = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)

# What DecisionCounts.snapshot returns: decisions by outcome, the latency histogram's bucket
# counts (not cumulative; the last one unbounded) and sum (seconds), rejections by code,
# penalties by code.
DecisionCountsSnapshot = tuple[
    dict[SeatOutcome, int],
    list[int],
    float,
    dict[codec.Rejection, int],
    dict[SeatOutcome, int],
]


class DecisionCounts:
    """What a referee's decisions did, counted as they happen (all its tables share one).

    Written on the event loop only. A scrape reads it from another thread through
    :meth:`snapshot`: copies made by single C calls, so no read sees a dictionary change size,
    and (compiled, as it is installed) the whole snapshot is taken without a thread switch.
    Every key is present from the start, so a count never adds one.
    """

    def __init__(self) -> None:
        self.outcomes: dict[SeatOutcome, int] = dict.fromkeys(SeatOutcome, 0)
        self.latency_buckets: list[int] = [0] * (len(LATENCY_BUCKETS_S) + 1)
        self.latency_sum_s: float = 0.0
        self.rejections: dict[codec.Rejection, int] = dict.fromkeys(codec.Rejection, 0)
        self.penalties: dict[SeatOutcome, int] = dict.fromkeys(SeatOutcome, 0)

    def decided(self, outcome: SeatOutcome) -> None:
        """A decision of no asked seat (a forfeited seat's fallback): no latency."""
        self.outcomes[outcome] += 1

    def timed(self, outcome: SeatOutcome, elapsed_s: float) -> None:
        """A decision a seat was asked, ``elapsed_s`` after its request was sent."""
        self.outcomes[outcome] += 1
        # bisect_left: the first bucket whose bound is >= the time ("le", as Prometheus has it).
        self.latency_buckets[bisect_left(LATENCY_BUCKETS_S, elapsed_s)] += 1
        self.latency_sum_s += elapsed_s

    def rejected(self, rejection: codec.Rejection) -> None:
        self.rejections[rejection] += 1

    def penalized(self, code: SeatOutcome) -> None:
        self.penalties[code] += 1

    def snapshot(self) -> DecisionCountsSnapshot:
        """Copies of the counts (see the class's text)."""
        return (
            self.outcomes.copy(),
            self.latency_buckets.copy(),
            self.latency_sum_s,
            self.rejections.copy(),
            self.penalties.copy(),
        )
