"""The referee's Prometheus metrics, read from its own counters when they are scraped.

The referee counts as things happen in plain ints
(:class:`brandeln.arena.decision_counts.DecisionCounts` on the per-decision path,
:class:`brandeln.arena.counters.RefereeCounts` for sessions and matches, ``RefereeStore.errors``)
and knows nothing of Prometheus: a metric object's update per decision (a lock, a label lookup)
would cost the referee's hot path, a scrape every few seconds costs nothing there.
:class:`RefereeCollector` turns those counts, and the gauges read from the referee's state (its
running tables, its open sessions), into metric families at scrape time. It runs on the metrics
server's thread (brandeln.services.metrics.endpoint): every read is of an int or a copy made in one
C call (a ``dict.copy``, ``Lobby.sessions``), never an iteration over something the event loop may
change meanwhile.

Every name starts with :data:`PREFIX`; :data:`METRICS` lists them with their help.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from brandeln.arena.decision_counts import LATENCY_BUCKETS_S
from brandeln.protocol.statuses import SeatOutcome
from brandeln.services.metrics.families import histogram, labelled_counter

if TYPE_CHECKING:
    from brandeln.arena.referee import Referee

__all__ = ["DECISION_OUTCOMES", "METRICS", "PREFIX", "RefereeCollector", "TimeoutKind"]

PREFIX = "brandeln_referee"


class TimeoutKind(enum.StrEnum):
    """What ran out of time: the ``kind`` of ``brandeln_referee_timeouts_total``."""

    DECISION = "decision"  # a seat's move time and bank (its fallback played, a strike)
    RESUME = "resume"  # a dropped seat's reconnect time (the seat forfeits)
    HELLO = "hello"  # a new stream's time to say hello (the stream is ended)


# The outcomes a decision ends with (an illegal, malformed or stale answer is rejected and the
# decision goes on: those are counted as rejections and penalties). Shown even at 0, so a rate
# over them never lacks a series; any other that ever counts is shown too.
DECISION_OUTCOMES = (
    SeatOutcome.OK,
    SeatOutcome.TIMEOUT,
    SeatOutcome.DISCONNECTED,
    SeatOutcome.FORFEITED,
)

# Every metric's name (without PREFIX; a counter's family name, without _total) and help.
METRICS: dict[str, str] = {
    "decisions": "Decisions made at the referee's tables, by how each ended (ok: the seat's "
    "answer; timeout, disconnected, forfeited: the fallback played).",
    "decision_latency_seconds": "Time from a decision's request to the seat's answer (or to "
    "its timeout), for the decisions a seat was asked.",
    "matches_running": "Matches being played now.",
    "matches_started": "Matches started.",
    "matches_ended": "Matches ended, by status (finished, aborted).",
    "bots_connected": "Distinct bots with at least one seat session open.",
    "sessions_open": "Seat sessions open (in the lobby or seated).",
    "sessions_opened": "Seat sessions opened (a Hello accepted).",
    "sessions_closed": "Seat sessions closed, by reason (stream_ended: the bot's side ended it; "
    "the others: the referee did).",
    "timeouts": "Time limits that ran out, by kind (decision: a seat's clock; resume: a dropped "
    "seat's reconnect time; hello: a new stream's hello).",
    "rejections": "Answers rejected, by reason (illegal, stale_request, wrong_phase, malformed).",
    "penalties": "Penalties given to seats, by code (a strike, a forfeit or a disconnect).",
    "store_errors": "Database transactions the referee gave up on (StoreError).",
}


def _name(key: str) -> str:
    return f"{PREFIX}_{key}"


def _counter(key: str, label: str, counts: Mapping[str, int]) -> CounterMetricFamily:
    return labelled_counter(_name(key), METRICS[key], label, counts)


def _latency(buckets: list[int], total_s: float) -> HistogramMetricFamily:
    key = "decision_latency_seconds"
    return histogram(_name(key), METRICS[key], LATENCY_BUCKETS_S, buckets, total_s)


class RefereeCollector(Collector):
    """The metrics of one referee, read at each scrape (see the module's text)."""

    def __init__(self, referee: Referee) -> None:
        self._referee = referee

    def collect(self) -> Iterator[Metric]:
        referee = self._referee
        counts = referee.counts
        outcomes, buckets, latency_s, rejections, penalties = counts.decisions.snapshot()
        decided = {
            str(outcome): count
            for outcome, count in outcomes.items()
            if outcome in DECISION_OUTCOMES or count
        }
        yield _counter("decisions", "outcome", decided)
        yield _latency(buckets, latency_s)
        yield GaugeMetricFamily(
            _name("matches_running"), METRICS["matches_running"], value=len(referee.tables)
        )
        yield CounterMetricFamily(
            _name("matches_started"), METRICS["matches_started"], value=counts.matches_started
        )
        ended = counts.matches_ended.copy()
        yield _counter("matches_ended", "status", {str(s): n for s, n in ended.items()})
        sessions = referee.lobby.sessions()  # a copy, taken in one step
        yield GaugeMetricFamily(
            _name("bots_connected"),
            METRICS["bots_connected"],
            value=len({session.bot_id for session in sessions}),
        )
        yield GaugeMetricFamily(
            _name("sessions_open"), METRICS["sessions_open"], value=len(sessions)
        )
        yield CounterMetricFamily(
            _name("sessions_opened"), METRICS["sessions_opened"], value=counts.sessions_opened
        )
        closed = counts.sessions_closed.copy()
        yield _counter("sessions_closed", "reason", {str(e): n for e, n in closed.items()})
        # A decision's timeout and a resume's are the decisions that ended so: one count each.
        timeouts = {
            TimeoutKind.DECISION: outcomes[SeatOutcome.TIMEOUT],
            TimeoutKind.RESUME: outcomes[SeatOutcome.DISCONNECTED],
            TimeoutKind.HELLO: counts.hello_timeouts,
        }
        yield _counter("timeouts", "kind", {str(k): n for k, n in timeouts.items()})
        yield _counter(
            "rejections", "reason", {code.name.lower(): n for code, n in rejections.items()}
        )
        given = {str(code): n for code, n in penalties.items() if code is not SeatOutcome.OK or n}
        yield _counter("penalties", "code", given)
        yield CounterMetricFamily(
            _name("store_errors"), METRICS["store_errors"], value=referee.store.errors
        )
