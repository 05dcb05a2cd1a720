"""The referee's counters and the collector that shows them to Prometheus
(brandeln.services.metrics.referee), and the endpoint that serves them
(brandeln.services.metrics.endpoint). No gRPC, no bots: counts are made by hand on a real Referee,
and read back through the exposition text, as Prometheus reads them."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from brandeln.arena import codec
from brandeln.arena.config import AdminTokenScope, RefereeConfig
from brandeln.arena.counters import SessionEnd
from brandeln.arena.decision_counts import LATENCY_BUCKETS_S, DecisionCounts
from brandeln.arena.errors import CloseReason
from brandeln.arena.referee import Referee
from brandeln.arena.session import SeatSession
from brandeln.protocol.statuses import MatchStatus, SeatOutcome
from brandeln.services.metrics.endpoint import MetricsServer
from brandeln.services.metrics.referee import (
    DECISION_OUTCOMES,
    METRICS,
    PREFIX,
    RefereeCollector,
    TimeoutKind,
)


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    config = RefereeConfig(
        db_path=tmp_path / "referee.db",
        logs_dir=tmp_path / "logs",
        admin_token_scope=AdminTokenScope.THIS_RUN,
    )
    made = Referee(config)
    yield made
    made.close()


def _samples(text: str) -> dict[str, list[Sample]]:
    return {family.name: family.samples for family in text_string_to_metric_families(text)}


def _exposition(referee: Referee) -> str:
    """The text a scrape of the referee's own metrics reads."""
    registry = CollectorRegistry()
    registry.register(RefereeCollector(referee))
    return generate_latest(registry).decode()


def _scrape(referee: Referee) -> dict[str, list[Sample]]:
    return _samples(_exposition(referee))


def _value(samples: list[Sample], name: str, **labels: str) -> float:
    found = [s.value for s in samples if s.name == name and s.labels == labels]
    assert len(found) == 1, (name, labels, samples)
    return found[0]


def _session(session_id: str, bot_id: str) -> SeatSession:
    return SeatSession(session_id, bot_id, bot_id, "v1", frozenset(), False)


def test_the_latency_buckets_are_the_bots_from_a_millisecond_to_thirty_seconds() -> None:
    assert LATENCY_BUCKETS_S[0] == 0.001
    assert LATENCY_BUCKETS_S[-1] == 30.0
    assert list(LATENCY_BUCKETS_S) == sorted(set(LATENCY_BUCKETS_S))


def test_a_decision_falls_in_the_first_bucket_whose_bound_it_does_not_exceed() -> None:
    counts = DecisionCounts()
    for elapsed in (0.0, 0.0004, 0.001, 0.0011, 29.9, 30.0, 31.0):
        counts.timed(SeatOutcome.OK, elapsed)
    counts.decided(SeatOutcome.FORFEITED)  # asked of no one: no latency
    outcomes, buckets, total, _, _ = counts.snapshot()
    assert outcomes[SeatOutcome.OK] == 7
    assert outcomes[SeatOutcome.FORFEITED] == 1
    le = dict(zip((*LATENCY_BUCKETS_S, float("inf")), buckets, strict=True))
    assert le[0.001] == 3  # 0, 0.4 ms and exactly 1 ms: "le" is at most
    assert le[0.0025] == 1
    assert le[30.0] == 2
    assert le[float("inf")] == 1
    assert sum(buckets) == 7
    assert total == pytest.approx(0.0004 + 0.001 + 0.0011 + 29.9 + 30.0 + 31.0)


def test_a_snapshot_is_a_copy() -> None:
    counts = DecisionCounts()
    outcomes, buckets, _, rejections, penalties = counts.snapshot()
    counts.timed(SeatOutcome.TIMEOUT, 2.0)
    counts.rejected(codec.Rejection.ILLEGAL)
    counts.penalized(SeatOutcome.TIMEOUT)
    assert outcomes[SeatOutcome.TIMEOUT] == 0
    assert sum(buckets) == 0
    assert rejections[codec.Rejection.ILLEGAL] == 0
    assert penalties[SeatOutcome.TIMEOUT] == 0


def test_every_session_close_reason_has_its_end_label() -> None:
    assert SessionEnd.of(None) is SessionEnd.STREAM_ENDED
    for reason in CloseReason:
        assert SessionEnd.of(reason).name == reason.name


def test_a_fresh_referee_shows_every_metric_with_its_help_and_zero_counts(
    referee: Referee,
) -> None:
    families = text_string_to_metric_families(_exposition(referee))
    by_name = {family.name: family for family in families}
    for key, documentation in METRICS.items():
        family = by_name[f"{PREFIX}_{key}"]
        assert family.documentation == documentation
        assert all(sample.value == 0 for sample in family.samples), family
    assert by_name[f"{PREFIX}_decisions"].type == "counter"
    assert by_name[f"{PREFIX}_decision_latency_seconds"].type == "histogram"
    assert by_name[f"{PREFIX}_sessions_open"].type == "gauge"
    decided = {s.labels["outcome"] for s in by_name[f"{PREFIX}_decisions"].samples}
    assert decided == {str(outcome) for outcome in DECISION_OUTCOMES}
    # Label sets are whole from the start: a rate() never lacks a series.
    kinds = {s.labels["kind"] for s in by_name[f"{PREFIX}_timeouts"].samples}
    assert kinds == {str(kind) for kind in TimeoutKind}
    reasons = {s.labels["reason"] for s in by_name[f"{PREFIX}_rejections"].samples}
    assert reasons == {"illegal", "stale_request", "wrong_phase", "malformed"}


async def test_the_collector_reads_the_referees_counts_and_state_when_scraped(
    referee: Referee,
) -> None:
    decisions = referee.counts.decisions
    for elapsed in (0.0005, 0.003, 0.2):
        decisions.timed(SeatOutcome.OK, elapsed)
    decisions.timed(SeatOutcome.TIMEOUT, 10.0)
    decisions.timed(SeatOutcome.DISCONNECTED, 3.0)
    decisions.decided(SeatOutcome.FORFEITED)
    decisions.rejected(codec.Rejection.ILLEGAL)
    decisions.rejected(codec.Rejection.STALE_REQUEST)
    decisions.rejected(codec.Rejection.STALE_REQUEST)
    decisions.penalized(SeatOutcome.TIMEOUT)
    referee.counts.matches_started = 3
    referee.counts.match_ended(MatchStatus.FINISHED)
    referee.counts.match_ended(MatchStatus.ABORTED)
    referee.counts.hello_timeouts = 4
    referee.counts.session_closed(SessionEnd.SLOW_READER)
    referee.store.errors = 5
    for session in (_session("s1", "b_a"), _session("s2", "b_a"), _session("s3", "b_b")):
        await referee.lobby.join(session)

    metrics = _scrape(referee)

    decided = metrics[f"{PREFIX}_decisions"]
    name = f"{PREFIX}_decisions_total"
    assert _value(decided, name, outcome="ok") == 3
    assert _value(decided, name, outcome="timeout") == 1
    assert _value(decided, name, outcome="disconnected") == 1
    assert _value(decided, name, outcome="forfeited") == 1
    latency = metrics[f"{PREFIX}_decision_latency_seconds"]
    histogram = f"{PREFIX}_decision_latency_seconds"
    assert _value(latency, f"{histogram}_count") == 5  # the forfeited seat was asked nothing
    assert _value(latency, f"{histogram}_sum") == pytest.approx(13.2035)
    assert _value(latency, f"{histogram}_bucket", le="0.001") == 1
    assert _value(latency, f"{histogram}_bucket", le="0.005") == 2
    assert _value(latency, f"{histogram}_bucket", le="2.5") == 3
    assert _value(latency, f"{histogram}_bucket", le="5.0") == 4
    assert _value(latency, f"{histogram}_bucket", le="+Inf") == 5
    timeouts = metrics[f"{PREFIX}_timeouts"]
    assert _value(timeouts, f"{PREFIX}_timeouts_total", kind="decision") == 1
    assert _value(timeouts, f"{PREFIX}_timeouts_total", kind="resume") == 1
    assert _value(timeouts, f"{PREFIX}_timeouts_total", kind="hello") == 4
    rejections = metrics[f"{PREFIX}_rejections"]
    assert _value(rejections, f"{PREFIX}_rejections_total", reason="illegal") == 1
    assert _value(rejections, f"{PREFIX}_rejections_total", reason="stale_request") == 2
    penalties = metrics[f"{PREFIX}_penalties"]
    assert _value(penalties, f"{PREFIX}_penalties_total", code="timeout") == 1
    ended = metrics[f"{PREFIX}_matches_ended"]
    assert _value(ended, f"{PREFIX}_matches_ended_total", status="finished") == 1
    assert _value(ended, f"{PREFIX}_matches_ended_total", status="aborted") == 1
    started = metrics[f"{PREFIX}_matches_started"]
    assert _value(started, f"{PREFIX}_matches_started_total") == 3
    running = metrics[f"{PREFIX}_matches_running"]
    assert _value(running, f"{PREFIX}_matches_running") == 0
    assert _value(metrics[f"{PREFIX}_bots_connected"], f"{PREFIX}_bots_connected") == 2
    assert _value(metrics[f"{PREFIX}_sessions_open"], f"{PREFIX}_sessions_open") == 3
    closed = metrics[f"{PREFIX}_sessions_closed"]
    assert _value(closed, f"{PREFIX}_sessions_closed_total", reason="slow_reader") == 1
    errors = metrics[f"{PREFIX}_store_errors"]
    assert _value(errors, f"{PREFIX}_store_errors_total") == 5


def test_the_endpoint_serves_the_referees_and_the_process_metrics_over_http(
    referee: Referee,
) -> None:
    referee.counts.decisions.timed(SeatOutcome.OK, 0.002)
    server = MetricsServer([RefereeCollector(referee)], "127.0.0.1", 0)
    try:
        assert server.url == f"http://127.0.0.1:{server.port}/metrics"
        # A client that connects and says nothing holds one request's thread, not the endpoint.
        with (
            socket.create_connection(("127.0.0.1", server.port), timeout=10),
            urllib.request.urlopen(server.url, timeout=10) as response,
        ):
            assert response.status == 200
            text = response.read().decode()
        metrics = _samples(text)
        decided = metrics[f"{PREFIX}_decisions"]
        assert _value(decided, f"{PREFIX}_decisions_total", outcome="ok") == 1
        assert "process_cpu_seconds" in metrics  # prometheus_client's process collector
        assert "python_gc_collections" in metrics
    finally:
        server.stop()
    with pytest.raises(urllib.error.URLError, match="refused"):
        urllib.request.urlopen(server.url, timeout=10)


def test_a_metrics_port_in_use_is_an_os_error(referee: Referee) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError, match="in use"):
            MetricsServer([RefereeCollector(referee)], "127.0.0.1", taken.getsockname()[1])
